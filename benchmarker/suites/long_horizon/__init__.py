"""Long-horizon dialogue: one generated dialogue per seed, its questions graded on their rubric;
the adversary proposes from the generator's own fact records."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from benchmarker.datasets.schema import Case, Question
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.log.lines import Json, ResultLine
from benchmarker.reporting.section_spec import Section
from benchmarker.reporting.suite_parts import Record, SuiteReporting
from benchmarker.suites.base import Suite
from benchmarker.suites.long_horizon.data import generate_long_horizon
from benchmarker.suites.long_horizon.options import LongHorizonOptions
from benchmarker.suites.parts import AdversaryPolicy, CaseProtocol, DataSource
from benchmarker.suites.rubric import categories_block, score_on_rubric, score_table
from benchmarker.suites.scorer import Scorer
from benchmarker.suites.settings import PlanSettings

NAME = "long_horizon"


def plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    """One generated dialogue per seed."""
    d = LongHorizonOptions.of(settings.dataset)
    seeds = list(settings.dataset.seeds) or [settings.dataset.seed]

    def cases() -> Iterator[Case]:
        for seed in seeds:
            yield generate_long_horizon(d.turns, seed, questions=d.questions, holdout=d.holdout).case

    return DatasetPlan([CaseGroup("cases", d.questions * len(seeds), cases)], None, None,
                       f"long-horizon dialogue: {d.turns} turns, seeds {seeds}")


def summarise(results: Sequence[ResultLine], *, level_scores: Sequence[Mapping[str, Json]]) -> Record:
    return {NAME: categories_block([r for r in results if r.get("kind") == NAME])}


def report_sections(summary: Record) -> list[Section]:
    block = summary.get(NAME)
    return [Section("Long-horizon dialogue", (score_table(block["by_category"], "category"),))] if block else []


def answer_fields(case: Case, question: Question) -> ResultLine:
    """Its evidence as [session_id, message index] (for the analyst; not scored as retrieval evidence)."""
    return {"evidence_messages": _session_turns(case, question.evidence.get("turns") or [])}


def _session_turns(case: Case, global_turns: list[int]) -> list[list[str | int]]:
    """Global message indices (the long-horizon generator's) as [session_id, index in the session]."""
    wanted, start = set(global_turns), 0
    out: list[list[str | int]] = []
    for session in case.sessions:
        out += [[session.session_id, t - start] for t in sorted(wanted) if start <= t < start + len(session.messages)]
        start += len(session.messages)
    return out


SUITE = Suite(
    name=NAME,
    record_kinds=(NAME,),
    data=DataSource(plan, options=LongHorizonOptions),
    scorer=Scorer(score=score_on_rubric, answer_fields=answer_fields),
    reporting=SuiteReporting(multi_seed=True, summarise=summarise, report_sections=report_sections),
    protocol=CaseProtocol(replay_refusal=""),
    adversary=AdversaryPolicy(proposes_from_facts=True, own_weakest_only=True),   # every case, its own weak categories
)
