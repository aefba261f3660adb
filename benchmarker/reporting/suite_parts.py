"""What reporting asks of a suite (its `SuiteReporting` part), and how it finds the suites of a run: handed in.

The part is defined here, not in suites/, so that reporting reads a type it owns: a suite package builds one
(`SuiteReporting(summary_blocks=..., qa_sections=...)`) as the `reporting` field of its `Suite` value.

Reporting sits below the suites (docs/internals.md, the floors: no module imports from a later stage), so it never looks a
suite up itself: `graph/summarise`, the `report`, `score`, `oracle` and `compare` verbs pass
`benchmarker.registry.SUITE_LOOKUP` (or a test its own), and each function here takes it as `suites`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from benchmarker.log.lines import Json, ResultLine
from benchmarker.reporting.section_spec import MeanScoreChart, Section
from benchmarker.reporting.summary_block import Block
from benchmarker.reporting.summary_model import RunSummary

# A summary.json dict as written (its suite blocks by key), which the summary and report hooks still take and give.
Record = dict[str, Any]


class Summarise(Protocol):
    """Keys the run's outputs add to summary.json, from its results lines and its levels.jsonl lines."""

    def __call__(self, results: Sequence[ResultLine], *, level_scores: Sequence[Mapping[str, Json]]) -> Record: ...


def no_blocks(results: Sequence[ResultLine], notes: list[str]) -> Record:
    """No keys of its own in summary.json."""
    return {}


def no_summary(results: Sequence[ResultLine], *, level_scores: Sequence[Mapping[str, Json]]) -> Record:
    """No keys of its own in summary.json."""
    return {}


def no_sections(summary: Record) -> list[Section]:
    """No report sections of its own."""
    return []


def no_charts(summary: Record) -> list[MeanScoreChart]:
    """No charts of its own."""
    return []


def no_rows(summary: Record) -> list[tuple[str, str]]:
    """No rows of its own in the end-of-run table."""
    return []


def no_compare_blocks(results: Sequence[ResultLine]) -> Record:
    """No keys of its own beside compare's QA and retrieval metrics."""
    return {}


def no_compare_sections(runs: list[Record]) -> list[Section]:
    """No sections of its own in compare's report."""
    return []


def no_official_outputs(answers_dir: Path, results: Sequence[ResultLine]) -> None:
    """The benchmark has no evaluation files of its own."""
    return None


@dataclass(frozen=True)
class SuiteReporting:
    """The reporting part of a `Suite` value: data reporting renders (sections, charts, rows), never markdown.

    Every field has a default that adds nothing, so a suite names only what it adds."""

    multi_seed: bool = False   # results of several seeds get the multi-seed statistics
    # The models of the summary.json blocks it adds ({key: summary_block.Block subclass}): a summary it builds
    # carries them typed and fails naming the key when one is off; a key without a model stays as written.
    summary_models: Mapping[str, type[Block]] = field(default_factory=dict)
    summary_blocks: Callable[[Sequence[ResultLine], list[str]], Record] = no_blocks  # from the results lines alone
    summarise: Summarise = no_summary                                         # from results and levels lines
    qa_sections: Callable[[Record], list[Section]] = no_sections              # right after the QA section
    report_charts: Callable[[Record], list[MeanScoreChart]] = no_charts       # drawn into plots/, after those
    report_sections: Callable[[Record], list[Section]] = no_sections          # from its summary keys
    console_rows: Callable[[Record], list[tuple[str, str]]] = no_rows         # (name, value) of the end-of-run table
    compare_blocks: Callable[[Sequence[ResultLine]], Record] = no_compare_blocks     # per-run keys `compare` adds
    compare_sections: Callable[[list[Record]], list[Section]] = no_compare_sections   # those keys across runs
    # the benchmark's own evaluation files, from this suite's results lines
    write_official_outputs: Callable[[Path, Sequence[ResultLine]], None] = no_official_outputs


class ReportedSuite(Protocol):
    """What reporting reads of a `benchmarker.suites.base.Suite`: its names and its reporting part."""

    @property
    def name(self) -> str: ...
    @property
    def record_kinds(self) -> tuple[str, ...]: ...
    @property
    def reporting(self) -> SuiteReporting: ...


class SuiteLookup(Protocol):
    """The suites a run's lines belong to (by their `kind`), and a suite by its name."""

    def of_kinds(self, record_kinds: Iterable[str | None]) -> Sequence[ReportedSuite]: ...
    def named(self, name: str) -> ReportedSuite: ...


def suites_of_results(suites: SuiteLookup, results: Iterable[Mapping[str, Any]]) -> Sequence[ReportedSuite]:
    """The suites whose lines these results are, in registry order."""
    return suites.of_kinds(r.get("kind") for r in results)


def suites_of_summary(suites: SuiteLookup, summary: RunSummary) -> Sequence[ReportedSuite]:
    """The suites a summary counted lines of (counts.by_kind)."""
    return suites.of_kinds((summary.counts.by_kind or {}) if summary.counts is not None else ())
