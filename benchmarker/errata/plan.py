"""A run's plan with its errata: each case carries its questions' checked corrections (`case.metadata["errata"]`),
so scoring judges a corrected answer a second time wherever the case is scored (a local run, a Ray worker, `score`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

from benchmarker.datasets.schema import Case
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.errata.check import check_errata, read_errata_bytes
from benchmarker.errata.gold import GoldReader
from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Erratum

METADATA_KEY = "errata"


def errata_plan(plan: DatasetPlan, errata_path: Path, reader: GoldReader | None, kind: str) -> DatasetPlan:
    """`plan` with its cases marked by the checked corrections of `errata_path` (UserError FILE:LINE on a bad one)."""
    if reader is None or plan.path is None:
        raise UserError(f'{errata_path}: [dataset].kind = "{kind}" has no published gold errata can correct')
    gold = reader(Path(plan.path), _named_questions(errata_path))
    errata = check_errata(errata_path, gold)
    groups = [CaseGroup(g.name, g.questions, partial(_marked, g.cases, errata.corrections)) for g in plan.groups]
    return dataclasses.replace(plan, groups=groups, details=plan.details | {"errata": errata.describe()})


def corrections_of(case: Case | None, question_id: str | None) -> list[Erratum]:
    """The checked corrections of one question of a marked case (none for an unmarked one)."""
    return list(((case.metadata.get(METADATA_KEY) or {}) if case is not None else {}).get(question_id) or [])


def _marked(cases: Callable[[], Iterable[Case]], corrections: dict[str, list[Erratum]]) -> Iterator[Case]:
    for case in cases():
        mine = {q.question_id: corrections[q.question_id] for q in case.questions if q.question_id in corrections}
        yield dataclasses.replace(case, metadata=case.metadata | {METADATA_KEY: mine}) if mine else case


def _named_questions(path: Path) -> set[str]:
    """The question ids the file's lines name (read leniently: the check then names any bad line)."""
    named = set()
    for line in read_errata_bytes(path).decode("utf-8", errors="replace").splitlines():
        try:
            raw = load_json(line)
        except ValueError:
            continue
        if isinstance(raw, dict) and isinstance(raw.get("question_id"), str):
            named.add(raw["question_id"])
    return named
