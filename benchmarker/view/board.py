"""The board: every valid run and every result bundle under the served folders, ranked by accuracy within its suite
and dataset (sha256), with what each answer cost and how long a search took, and the Pareto frontier of accuracy
against cost per question and against p95 search latency.

Only numbers that are scores are ranked: a run directory whose summary's `validity.valid` is not true, a run still
in progress, and a bundle that is damaged, does not match its own hashes or is invalid are listed apart with why.
A bundle is read in memory (bundle/archive.py), never unpacked; what was read of it is kept until its size or
mtime changes. Each row is checked like-for-like against its group's first row (reporting/like_for_like.py:
dataset, questions, judge, top_k, context), and a row that is not says why.
"""

from __future__ import annotations

import io
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import ValidationError

from benchmarker.bundle.archive import BundleView, UnsafeBundle, read_bundle, read_member
from benchmarker.log.jsonl import latest_by
from benchmarker.reporting.like_for_like import RunFacts, like_for_like, run_facts
from benchmarker.reporting.summary_model import RunSummary, summary_error
from benchmarker.scoring.validity import headline
from benchmarker.view.board_rows import Row, make_row
from benchmarker.view.catalog import Folder, safe_name
from benchmarker.view.frontier import Point, frontier_png
from benchmarker.view.lines import iter_objects, objects_in, result_lines
from benchmarker.view.links import ServerLinks
from benchmarker.view.pages import Site
from benchmarker.view.runinfo import get

MAX_BUNDLE_RESULTS = 512 * 2**20  # a bundle's results.jsonl read for the like-for-like check (a LoCoMo run's is ~50 MB)
PLOTS = {"cost": ("USD per question", "usd_per_question"), "latency": ("p95 search latency (ms)", "search_p95")}


@dataclass(frozen=True)
class Group:
    """The rows of one suite and dataset, best accuracy first."""

    suite: str
    dataset_sha256: str | None
    rows: list[Row]

    @property
    def slug(self) -> str:
        return safe_name(f"{self.suite or 'unknown'}-{(self.dataset_sha256 or 'no-sha256')[:12]}")

    def plot_name(self, kind: str) -> str:
        return f"{self.slug}-{kind}.png"

    def points(self, kind: str) -> list[Point]:
        attr = PLOTS[kind][1]
        return [Point(r.label, x, acc) for r in self.rows
                if (x := getattr(r, attr)) is not None and (acc := r.accuracy) is not None]


@dataclass(frozen=True)
class Board:
    groups: list[Group]
    skipped: list[tuple[str, str]]  # (run or bundle, why it is not ranked)


class Leaderboard:
    """The board of a Site's served folders; bundles read once per change."""

    def __init__(self, site: Site):
        self.site = site
        self._bundles: dict[Path, tuple[tuple[int, int], BundleView, RunFacts | None]] = {}
        self._facts: dict[Path, tuple[tuple[int, int, int | None] | None, RunFacts]] = {}
        self._lock = threading.Lock()

    def board(self) -> Board:
        catalog = self.site.catalog
        catalog.refresh()
        rows: list[Row] = []
        skipped: list[tuple[str, str]] = []
        for ref in catalog.runs.values():
            row, why = self._run_row(ref)
            _keep(rows, skipped, ref.id, row, why)
        for ref in catalog.bundles.values():
            row, why = self._bundle_row(ref)
            _keep(rows, skipped, ref.id, row, why)
        return Board(_groups(rows), skipped)

    def page(self, links: ServerLinks) -> str:
        board = self.board()
        return self.site.render("board.html", links, title="Board", board=board, plots=PLOTS)

    def plot(self, name: str) -> bytes | None:
        """A figure the board page shows, by its file name; None when no group has it."""
        for group in self.board().groups:
            for kind, (x_label, _) in PLOTS.items():
                if name == group.plot_name(kind) and (points := group.points(kind)):
                    return frontier_png(points, x_label, f"{group.suite} · dataset sha256 {(group.dataset_sha256 or '?')[:12]}")
        return None

    def plot_names(self) -> list[str]:
        return [g.plot_name(kind) for g in self.board().groups for kind in PLOTS if g.points(kind)]

    def _run_row(self, ref: Folder) -> tuple[Row | None, str]:
        info = self.site.info(ref)
        if info.summary_error:
            return None, info.summary_error
        if info.in_progress:
            return None, "in progress"
        validity = info.summary.validity
        if validity is None or validity.valid is not True:
            return None, headline(validity.as_dict() if validity else None) or "no validity verdict in summary.json"
        facts = self._run_facts(ref, info.summary.run.top_k)
        return make_row(ref.id, ref.id, ref.id, info.summary, info.manifest, suite=info.suite,
                        dataset_sha256=get(info.manifest, "dataset", "sha256"), verified="local", facts=facts), ""

    def _run_facts(self, ref: Folder, top_k: int | None) -> RunFacts:
        """The like-for-like facts of a run's results lines, kept until results.jsonl changes."""
        path = ref.file("results.jsonl")
        try:
            st = os.stat(path) if path else None
        except OSError:
            st, path = None, None
        stamp = (st.st_size, st.st_mtime_ns, top_k) if st else None
        with self._lock:
            cached = self._facts.get(ref.path)
        if cached and cached[0] == stamp:
            return cached[1]
        lines = latest_by(result_lines(iter_objects(path)), "question_id") if path else []  # damaged, over-long lines skipped
        facts = run_facts(ref.id, ref.path, lines, top_k)
        with self._lock:
            self._facts[ref.path] = (stamp, facts)
        return facts

    def _bundle_row(self, ref: Folder) -> tuple[Row | None, str]:
        try:
            view, facts = self._read(ref)
        except (OSError, RuntimeError) as err:  # RuntimeError: a symlink loop above it
            return None, f"cannot be read: {getattr(err, 'strerror', None) or err}"
        if view.problem:
            return None, view.problem
        if view.summary is None:
            return None, "no summary.json in the bundle"
        try:
            summary = RunSummary.model_validate(view.summary)
        except ValidationError as err:
            return None, summary_error(f"{ref.id}: summary.json", err)
        if summary.validity is None or summary.validity.valid is not True:
            return None, headline(summary.validity.as_dict() if summary.validity else None) or "no validity verdict"
        bundle, manifest = view.bundle, view.manifest or {}
        label = str(bundle.get("run_id") or ref.path.name)
        verified = "hashes ok · signature not checked (verify --public-key)" if view.signed else "hashes ok · unsigned"
        return make_row(ref.id, label, None, summary, manifest, suite=str(bundle.get("suite") or ""),
                        dataset_sha256=get(bundle, "dataset", "sha256") or get(manifest, "dataset", "sha256"),
                        verified=verified, facts=facts), ""

    def _read(self, ref: Folder) -> tuple[BundleView, RunFacts | None]:
        """read_bundle and the like-for-like facts of its results lines, kept until the file changes."""
        real = ref.path.resolve(strict=True)
        if not real.is_relative_to(ref.root) or not real.is_file():
            raise OSError(0, f"{ref.id} resolves outside the served folder")
        st = os.stat(real)
        stamp = (st.st_size, st.st_mtime_ns)
        with self._lock:
            cached = self._bundles.get(real)
        if cached and cached[0] == stamp:
            return cached[1], cached[2]
        view = read_bundle(real)
        facts = None
        if not view.problem:
            try:
                data = read_member(real, "results.jsonl", MAX_BUNDLE_RESULTS)
            except UnsafeBundle:
                data = None  # no lines (or too many to hold): like-for-like says what it could not compare
            lines = latest_by(result_lines(objects_in(io.BytesIO(data))), "question_id") if data is not None else []
            top_k = get(view.summary, "run", "top_k")
            facts = run_facts(ref.id, None, lines, top_k if isinstance(top_k, int) else None, manifest=view.manifest or {})
            facts = replace(facts, dataset_sha256=get(view.bundle, "dataset", "sha256") or facts.dataset_sha256)
        with self._lock:
            self._bundles[real] = (stamp, view, facts)
        return view, facts


def _keep(rows: list[Row], skipped: list[tuple[str, str]], name: str, row: Row | None, why: str) -> None:
    if row is None:
        skipped.append((name, why))
    else:
        rows.append(row)


def _groups(rows: list[Row]) -> list[Group]:
    """Rows grouped by suite and dataset sha256, best accuracy first; each marked against its group's first."""
    by_key: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        by_key.setdefault((row.suite, row.dataset_sha256 or ""), []).append(row)
    groups = []
    for (suite, sha), members in sorted(by_key.items()):
        members.sort(key=lambda r: (-(r.accuracy if r.accuracy is not None else -1.0), r.key))
        first = members[0]
        marked = [first] + [replace(r, unlike=_unlike(first, r)) for r in members[1:]]
        groups.append(Group(suite, sha or None, marked))
    return groups


def _unlike(first: Row, row: Row) -> list[str]:
    if first.facts is None or row.facts is None:
        return ["like-for-like not checked: no results lines"]
    return like_for_like(first.facts, row.facts)["differences"]
