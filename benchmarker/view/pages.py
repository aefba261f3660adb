"""Every page of the run browser rendered to HTML, for the server and the bundle alike (`links` decides
where links point). Jinja2 escapes every value; `finalize` masks credentials in every value shown."""

from __future__ import annotations

from itertools import islice, pairwise
from typing import TYPE_CHECKING, Any

from jinja2 import ChainableUndefined, Environment, PackageLoader, Undefined

from benchmarker.log.lines import Json
from benchmarker.redact import redact_text
from benchmarker.view import lines
from benchmarker.view.baselines_chart import baselines_chart
from benchmarker.view.catalog import Catalog, Folder
from benchmarker.view.charts import attribution_chart
from benchmarker.view.decisions import Decisions
from benchmarker.view.flips import compare
from benchmarker.view.lines import Indexes, Row, iter_objects
from benchmarker.view.links import ServerLinks
from benchmarker.view.listing import ListQuery, facets, paginate, select, verdict
from benchmarker.view.question import question_view, show
from benchmarker.view.run_results import RunResults, read_run_results
from benchmarker.view.runinfo import JsonFiles, RunInfo, run_info

if TYPE_CHECKING:
    from benchmarker.reporting.compare_shapes import BrowserPair
    from benchmarker.reporting.like_for_like import Check

SHOWN_LINES = 1000  # disagreements and errors listed on a page
SHOWN_CHARS = 100_000  # of one value on a page (a whole LongMemEval-S reader context is ~500,000)


def _masked(value: Any) -> Any:
    return redact_text(value) if type(value) is str else value


def _shown(value: Any) -> Any:
    """A value as a page shows it: masked, then cut (masking first, so a cut never leaves part of a key)."""
    value = _masked(value)
    if type(value) is str and len(value) > SHOWN_CHARS:
        return f"{value[:SHOWN_CHARS]} … ({len(value) - SHOWN_CHARS:,} more characters not shown)"
    return value


def _show(value: Any) -> str:
    return "" if isinstance(value, Undefined) else show(value)


def _pct(value: Any) -> str:
    return f"{100 * value:.1f}%" if isinstance(value, int | float) else "–"


def _num(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if isinstance(value, int | float) else "–"


def _usd(value: Any) -> str:
    return f"${value:,.4f}" if isinstance(value, int | float) else "–"


def environment() -> Environment:
    env = Environment(loader=PackageLoader("benchmarker.view", "templates"), autoescape=True, finalize=_shown,
                      trim_blocks=True, lstrip_blocks=True, undefined=ChainableUndefined)
    env.filters.update(pct=_pct, num=_num, usd=_usd, show=_show, verdict=verdict)
    return env


class Site:
    """The served folders and what has been read of them (indexes, JSON files, case calls)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.indexes = Indexes()
        self.files = JsonFiles()
        self.decisions = Decisions(self.indexes)
        self.env = environment()

    def render(self, template: str, links: ServerLinks, **context: Any) -> str:
        return self.env.get_template(template).render(links=links, **context)

    def info(self, ref: Folder) -> RunInfo:
        return run_info(self.catalog, ref, self.files)

    def rows(self, ref: Folder) -> dict[str, Row]:
        path = ref.file("results.jsonl")
        return self.indexes.results(path).rows() if path else {}

    def infos(self) -> list[RunInfo]:
        self.catalog.refresh()
        return [self.info(ref) for ref in self.catalog.runs.values()]

    def pairs(self) -> list[tuple[str, str]]:
        """Consecutive runs of the same suite by start time, and consecutive points of one sweep: the
        comparisons a bundle carries."""
        infos = sorted((i for i in self.infos() if i.ref.file("results.jsonl")),
                       key=lambda i: (i.suite, i.ref.parent or "", i.started, i.ref.id))
        return [(a.ref.id, b.ref.id) for a, b in pairwise(infos) if (a.suite, a.ref.parent) == (b.suite, b.ref.parent)]

    def index_page(self, links: ServerLinks) -> str:
        infos = self.infos()
        calibrations = [(ref, self.files.read(ref.file("calibration.json"))) for ref in self.catalog.calibrations.values()]
        return self.render("index.html", links, title="Runs", infos=infos, calibrations=calibrations,
                           refresh=not links.bundle and any(i.in_progress for i in infos))

    def run_page(self, ref: Folder, query: ListQuery, links: ServerLinks) -> str:
        info = self.info(ref)
        rows = list(self.rows(ref).values())
        results = ref.file("results.jsonl")
        oversized = self.indexes.results(results).oversized if results else 0
        types, stages = facets(rows)
        matched = rows if links.bundle else select(rows, query)  # the bundle's script filters all rows
        page = paginate(matched, query.page, size=len(matched) or 1) if links.bundle else paginate(matched, query.page)
        pairs = [p for p in self.pairs() if ref.id in p]
        others = [] if links.bundle else sorted(i for i in self.catalog.runs if i != ref.id)
        summary = info.summary
        retrieval = (summary.retrieval.metrics if summary.retrieval else None) or {}
        metrics = {k: v for k, v in retrieval.items() if isinstance(v, int | float)}
        attribution = summary.attribution.as_dict() if summary.attribution is not None else None
        return self.render("run.html", links, title=ref.id, info=info, summary=summary.as_dict(), metrics=metrics,
                           chart=attribution_chart(attribution), plots=ref.names("plots", ".png"),
                           baselines_chart=baselines_chart(summary.as_dict().get("baselines")),
                           points=self.catalog.children(ref, "points"), scores=self.catalog.children(ref, "scores"),
                           query=query, page=page, total=len(rows), oversized=oversized,
                           max_line=lines.MAX_LINE_BYTES, types=types, stages=stages, pairs=pairs,
                           others=others, errors=self._lines(ref, "errors.jsonl"), refresh=not links.bundle and info.in_progress)

    def question_page(self, ref: Folder, qid: str, links: ServerLinks) -> str | None:
        view = question_view(self.catalog, ref, qid, self.indexes, self.decisions)
        if view is None:
            return None
        return self.render("question.html", links, title=f"{qid} · {ref.id}", run=ref, qid=qid, view=view)

    def compare_page(self, a: Folder, b: Folder, links: ServerLinks) -> str:
        runs = [(ref, _read_results(ref)) for ref in (a, b)]  # each results.jsonl read once for the whole page
        rows_a, rows_b = (read.rows if read is not None else {} for _, read in runs)
        return self.render("compare.html", links, title=f"{a.id} vs {b.id}", a=a, b=b,
                           result=compare(rows_a, rows_b), like=self._like_for_like(runs),
                           invalid=self._invalid(a, b), paired=self._paired(runs))

    def _paired(self, runs: list[tuple[Folder, RunResults | None]]) -> BrowserPair | None:
        """`compare`'s verdict, per-type table and speed and cost for B against A (None without results)."""
        from benchmarker.reporting.compare import browser_pair

        read = [(ref.id, results.lines, self.info(ref).summary) for ref, results in runs if results is not None]
        return browser_pair(read[0], read[1]) if len(read) == 2 else None

    def _invalid(self, a: Folder, b: Folder) -> dict[str, str]:
        """{"A"|"B": its INVALID line} for the runs whose verdict is false: `compare` refuses them; the page labels them."""
        from benchmarker.scoring.validity import headline

        out = {}
        for name, ref in (("A", a), ("B", b)):
            validity = self.info(ref).summary.validity
            if (line := headline(validity.as_dict() if validity is not None else None)) is not None:
                out[name] = line
        return out

    def _like_for_like(self, runs: list[tuple[Folder, RunResults | None]]) -> Check | None:
        """reporting/like_for_like.py's check of B against A, as `compare` opens with it (None without results)."""
        from benchmarker.reporting.like_for_like import like_for_like, run_facts

        facts = [run_facts(ref.id, ref.path, results.lines, self.info(ref).summary.run.top_k)
                 for ref, results in runs if results is not None]
        return like_for_like(*facts) if len(facts) == 2 else None

    def calibration_page(self, ref: Folder, links: ServerLinks) -> str:
        summary = self.files.read(ref.file("calibration.json"))
        return self.render("calibration.html", links, title=f"calibration {ref.id}", ref=ref, summary=summary,
                           disagreements=self._lines(ref, "calibration.jsonl"))

    def _lines(self, ref: Folder, name: str) -> list[dict[str, Json]]:
        path = ref.file(name)
        if path is None:
            return []
        return list(islice(iter_objects(path), SHOWN_LINES))


def _read_results(ref: Folder) -> RunResults | None:
    path = ref.file("results.jsonl")
    return read_run_results(path) if path is not None else None
