"""`view --bundle OUT`: the same pages as a static site (relative links; opens from file:// and any static
host). The question list is filtered, sorted and paged by static/view.js over all its rendered rows."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from benchmarker.errors import UserError
from benchmarker.log.confined import confined_to, make_folders
from benchmarker.log.jsonl import write_bytes_atomic, write_text_atomic
from benchmarker.view.assets import static_files
from benchmarker.view.board import Leaderboard
from benchmarker.view.catalog import Catalog
from benchmarker.view.links import BundleLinks, bundle_path
from benchmarker.view.listing import ListQuery
from benchmarker.view.pages import Site


class _Out:
    def __init__(self, root: Path):
        self.root = root
        self.pages = 0

    def page(self, rel: str, html: str) -> None:
        path = self.root / rel
        write_text_atomic(path, html)  # masked again on the way out, like every file the harness writes
        self.pages += 1


def write_bundle(catalog: Catalog, out: Path, chosen: list[Path] | None = None) -> int:
    """Write every page under `out` (absent or empty); returns the number of pages. `chosen`: the run
    directories named on the command line, compared in that order (A -> B) besides the usual pairs."""
    for path in (out, *out.parents):
        if path.is_symlink() and not path.exists():
            raise UserError(f"view --bundle: {path} is a dangling symbolic link (to {os.readlink(path)}); "
                            "give a new or empty folder")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"view --bundle: {out} is not an empty folder; give a new or empty one")
    try:
        with confined_to(out):   # a link planted below `out` while it is written is refused (log/confined.py)
            return _write_pages(catalog, out, chosen or [])
    except UserError:
        raise
    except OSError as err:
        raise UserError(f"view --bundle: cannot write {err.filename or out}: {err.strerror or err}") from None


def _write_pages(catalog: Catalog, out: Path, chosen: list[Path]) -> int:
    catalog.refresh(force=True)
    site, dest = Site(catalog), _Out(out)
    dest.page("index.html", site.index_page(BundleLinks("index.html")))
    make_folders(out / "static")
    for name, data in static_files().items():
        write_text_atomic(out / "static" / name, data.decode("utf-8"))
    for ref in catalog.runs.values():
        here = bundle_path("run", ref.id)
        dest.page(here, site.run_page(ref, ListQuery(), BundleLinks(here)))
        for name in ref.names("plots", ".png"):
            source, target = ref.file("plots", name), out / bundle_path("plot", ref.id, name)
            if source is not None:
                write_bytes_atomic(target, source.read_bytes())
        for row in sorted(site.rows(ref).values(), key=lambda r: r.case_id):  # a case's calls are read once
            here = bundle_path("question", ref.id, row.qid)
            if (html := site.question_page(ref, row.qid, BundleLinks(here))) is not None:
                dest.page(here, html)
    for a, b in dict.fromkeys([*site.pairs(), *chosen_pairs(catalog, chosen)]):
        here = bundle_path("compare", a, b)
        dest.page(here, site.compare_page(catalog.runs[a], catalog.runs[b], BundleLinks(here)))
    for ref in catalog.calibrations.values():
        here = bundle_path("calibration", ref.id)
        dest.page(here, site.calibration_page(ref, BundleLinks(here)))
    _write_board(Leaderboard(site), out, dest)
    return dest.pages


def chosen_pairs(catalog: Catalog, chosen: list[Path]) -> list[tuple[str, str]]:
    """Consecutive chosen run directories as (A, B) ids, in the order given."""
    by_path = {ref.path: ref.id for ref in catalog.runs.values()}
    ids = [by_path[p] for p in (c.resolve() for c in chosen) if p in by_path]
    return [(a, b) for a, b in itertools.pairwise(ids) if a != b]


def _write_board(board: Leaderboard, out: Path, dest: _Out) -> None:
    """board.html and its figures (board/NAME.png)."""
    dest.page(bundle_path("board"), board.page(BundleLinks(bundle_path("board"))))
    for name in board.plot_names():
        if (png := board.plot(name)) is not None:
            write_bytes_atomic(out / bundle_path("board_plot", name), png)
