"""Which cases a run covers, as lazy groups the graph streams through (one group per graph node).

Each suite plans its own (benchmarker/suites/<name>/ `plan`); this module holds the plan's shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.datasets.schema import Case
from benchmarker.registry import suite


@dataclass
class CaseGroup:
    """A named, re-iterable stream of cases and how many questions it holds."""

    name: str
    questions: int
    cases: Callable[[], Iterable[Case]]


@dataclass
class DatasetPlan:
    groups: list[CaseGroup]
    path: str | None          # the data file, for the manifest
    sha256: str | None
    description: str
    details: dict[str, Any] = field(default_factory=dict)   # more keys of the manifest's dataset block

    @property
    def total_questions(self) -> int:
        return sum(g.questions for g in self.groups)


def plan_dataset(config, run_dir: Path) -> DatasetPlan:
    """Resolve `[dataset]` into case groups (the kind's suite plans them); generated data is
    written into the run directory."""
    return suite(config.dataset.kind).plan(config, run_dir)
