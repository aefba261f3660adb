"""Where a page's links point: the server's absolute URLs, or a bundle's files relative to the page, so the
same templates serve both (a bundle opens from file:// and from any static host)."""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from benchmarker.view.catalog import safe_name


class ServerLinks:
    bundle = False

    def index(self) -> str:
        return "/"

    def run(self, run_id: str) -> str:
        return f"/runs/{run_id}"

    def question(self, run_id: str, qid: str) -> str:
        return f"/runs/{run_id}/questions/{quote(qid, safe='')}"

    def plot(self, run_id: str, name: str) -> str:
        return f"/runs/{run_id}/plots/{quote(name)}"

    def compare(self, a: str, b: str) -> str:
        return f"/compare/{a}/{b}"

    def calibration(self, ident: str) -> str:
        return f"/calibrations/{ident}"

    def board(self) -> str:
        return "/board"

    def board_plot(self, name: str) -> str:
        return f"/board/plots/{quote(name)}"

    def static(self, name: str) -> str:
        return f"/static/{name}"


class BundleLinks(ServerLinks):
    """Links from the bundle file `here` (a path under the bundle's root) to the bundle's other files."""

    bundle = True

    def __init__(self, here: str):
        self.here = here

    def _to(self, target: str) -> str:
        return quote(posixpath.relpath(target, posixpath.dirname(self.here) or "."))

    def index(self) -> str:
        return self._to(bundle_path("index"))

    def run(self, run_id: str) -> str:
        return self._to(bundle_path("run", run_id))

    def question(self, run_id: str, qid: str) -> str:
        return self._to(bundle_path("question", run_id, qid))

    def plot(self, run_id: str, name: str) -> str:
        return self._to(bundle_path("plot", run_id, name))

    def compare(self, a: str, b: str) -> str:
        return self._to(bundle_path("compare", a, b))

    def calibration(self, ident: str) -> str:
        return self._to(bundle_path("calibration", ident))

    def board(self) -> str:
        return self._to(bundle_path("board"))

    def board_plot(self, name: str) -> str:
        return self._to(bundle_path("board_plot", name))

    def static(self, name: str) -> str:
        return self._to(f"static/{name}")


def bundle_path(page: str, *keys: str) -> str:
    """A page's file in a bundle. Run and calibration ids are already safe (catalog.safe_name per folder);
    question ids and plot names are made so here."""
    if page == "index":
        return "index.html"
    if page == "run":
        return f"runs/{keys[0]}/index.html"
    if page == "question":
        return f"runs/{keys[0]}/questions/{safe_name(keys[1])}.html"
    if page == "plot":
        return f"runs/{keys[0]}/plots/{safe_name(keys[1])}"
    if page == "compare":
        return f"compare/{keys[0].replace('/', '~')}/{keys[1].replace('/', '~')}.html"
    if page == "calibration":
        return f"calibrations/{keys[0]}/index.html"
    if page == "board":
        return "board.html"
    if page == "board_plot":
        return f"board/{safe_name(keys[0])}"
    raise ValueError(page)

