"""The benchmark suites by name: the one place the harness spells a dataset kind.

A suite (benchmarker/suites/<name>/) owns everything one benchmark does differently: its config
rules, how it plans cases, how it scores an answer, its summary block and report section. Every
other module asks this registry for the suite, by the config's `[dataset].kind` (`suite`) or by
the `kind` a case, answer or result line carries (`suite_of_record`), and never tests a kind.

Suites are loaded by module path on first use (like lm-eval's task registry), so this module
imports none of them and every stage may call it. Adding a benchmark: one package under
benchmarker/suites/ exposing `SUITE`, and one line in each table below.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchmarker.suites.base import Suite

# [dataset].kind -> the suite's module (which exposes SUITE), in the order the docs list them.
SUITES: dict[str, str] = {
    "longmemeval": "benchmarker.suites.longmemeval",
    "sample": "benchmarker.suites.sample",
    "long_horizon": "benchmarker.suites.long_horizon",
    "levels": "benchmarker.suites.levels",
    "fact_extraction": "benchmarker.suites.fact_extraction",
    "locomo": "benchmarker.suites.locomo",
}
# The `kind` a case / answer / result line carries (the data modules stamp their cases with these)
LONGMEMEVAL, LONG_HORIZON, LEVEL, FACT_EXTRACTION, LOCOMO = (
    "longmemeval", "long_horizon", "level", "fact_extraction", "locomo")
# ... -> the dataset kind whose suite scores it (the generated sample writes LongMemEval-format
# cases, so its lines say "longmemeval").
RECORD_KINDS: dict[str, str] = {
    LONGMEMEVAL: "longmemeval",
    LONG_HORIZON: "long_horizon",
    LEVEL: "levels",
    FACT_EXTRACTION: "fact_extraction",
    LOCOMO: "locomo",
}
DEFAULT_RECORD_KIND = LONGMEMEVAL   # a line written before lines carried their kind
DATASET_KINDS: tuple[str, ...] = tuple(SUITES)
DEFAULT_DATASET_KIND = "sample"       # a config naming no data runs the generated sample
DATA_FILE_KIND = "longmemeval"        # a config naming a data file (or a clone) without a kind

_loaded: dict[str, Suite] = {}


def suite(kind: str) -> Suite:
    """The suite of a `[dataset].kind`; ValueError naming the known kinds for any other."""
    module = SUITES.get(kind)
    if module is None:
        raise ValueError(f"unknown dataset kind {kind!r}: expected one of {', '.join(SUITES)}")
    if module not in _loaded:
        _loaded[module] = importlib.import_module(module).SUITE
    return _loaded[module]


def suite_of_record(record_kind: str | None) -> Suite:
    """The suite that scores a case / answer / result line of this `kind` (none: LongMemEval)."""
    kind = record_kind or DEFAULT_RECORD_KIND
    if kind not in RECORD_KINDS:
        raise ValueError(f"unknown record kind {kind!r}: expected one of {', '.join(RECORD_KINDS)}")
    return suite(RECORD_KINDS[kind])


def suites_of(record_kinds: Iterable[str | None]) -> list[Suite]:
    """The distinct suites of these record kinds, in registry order; unknown kinds are skipped."""
    wanted = {RECORD_KINDS[k or DEFAULT_RECORD_KIND] for k in record_kinds if (k or DEFAULT_RECORD_KIND) in RECORD_KINDS}
    return [suite(kind) for kind in SUITES if kind in wanted]


def suites_of_results(results: Iterable[dict]) -> list[Suite]:
    """The suites whose lines these results are."""
    return suites_of(r.get("kind") for r in results)


def dataset_kinds_where(attribute: str) -> list[str]:
    """The dataset kinds whose suite has `attribute` set (loads every suite: for messages only)."""
    return [kind for kind in SUITES if getattr(suite(kind), attribute)]
