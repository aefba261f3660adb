"""Which cases a run covers, as lazy groups the graph streams through (one group per graph node).

Each suite plans its own (benchmarker/suites/<name>/ `plan`); this module holds the plan's shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.datasets.schema import Case


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


def dataset_sha256(path: str | Path, chunk_size: int = 1 << 20) -> str:
    """sha256 of the file's bytes, read in chunks (the manifest pins the exact data)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()
