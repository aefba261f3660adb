"""What reporting asks of a suite, and how it finds the suites of a run: handed in by the caller.

Reporting sits below the suites (docs/internals.md, the floors: no module imports from a later stage), so it never looks a
suite up itself: `graph/summarise`, the `report`, `score`, `oracle` and `compare` verbs pass
`benchmarker.registry.SUITE_LOOKUP` (or a test its own), and each function here takes it as `suites`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from benchmarker.reporting.section_spec import MeanScoreChart, Section
from benchmarker.reporting.summary_model import RunSummary

Record = dict[str, Any]


class SuiteReporting(Protocol):
    """The reporting half of `benchmarker.suites.base.Suite`."""

    name: str
    record_kinds: tuple[str, ...]
    multi_seed: bool

    def write_official_outputs(self, answers_dir: Path, results: list[Record]) -> None: ...
    def summary_blocks(self, results: list[Record], notes: list[str]) -> Record: ...
    def summarise(self, results: list[Record], *, level_scores: list[Record]) -> Record: ...
    def qa_sections(self, summary: Record) -> list[Section]: ...
    def report_charts(self, summary: Record) -> list[MeanScoreChart]: ...
    def report_sections(self, summary: Record) -> list[Section]: ...
    def compare_blocks(self, results: list[Record]) -> Record: ...
    def compare_sections(self, runs: list[Record]) -> list[Section]: ...


class SuiteLookup(Protocol):
    """The suites a run's lines belong to (by their `kind`), and a suite by its name."""

    def of_kinds(self, record_kinds: Iterable[str | None]) -> Sequence[SuiteReporting]: ...
    def named(self, name: str) -> SuiteReporting: ...


def suites_of_results(suites: SuiteLookup, results: Iterable[Mapping[str, Any]]) -> Sequence[SuiteReporting]:
    """The suites whose lines these results are, in registry order."""
    return suites.of_kinds(r.get("kind") for r in results)


def suites_of_summary(suites: SuiteLookup, summary: RunSummary) -> Sequence[SuiteReporting]:
    """The suites a summary counted lines of (counts.by_kind)."""
    return suites.of_kinds((summary.counts.by_kind or {}) if summary.counts is not None else ())
