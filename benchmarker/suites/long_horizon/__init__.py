"""Long-horizon dialogue: one generated dialogue per seed, its questions graded on their rubric;
the adversary proposes from the generator's own fact records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarker.datasets.schema import Case, Question
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.reporting.section_spec import Section
from benchmarker.suites.base import Record
from benchmarker.suites.long_horizon.data import generate_long_horizon
from benchmarker.suites.long_horizon.options import LongHorizonOptions
from benchmarker.suites.parts import AdversaryPolicy, CaseProtocol
from benchmarker.suites.rubric import RubricSuite, categories_block, score_table
from benchmarker.suites.settings import PlanSettings


class LongHorizon(RubricSuite):
    name = "long_horizon"
    dataset_options = LongHorizonOptions
    record_kinds = ("long_horizon",)
    protocol = CaseProtocol(replay_refusal="")
    adversary = AdversaryPolicy(proposes_from_facts=True, own_weakest_only=True)   # every case, its own weak categories

    def plan(self, settings: PlanSettings, run_dir: Path) -> DatasetPlan:
        d = LongHorizonOptions.of(settings.dataset)
        seeds = list(settings.dataset.seeds) or [settings.dataset.seed]

        def cases() -> Iterator[Case]:
            for seed in seeds:
                yield generate_long_horizon(d.turns, seed, questions=d.questions, holdout=d.holdout).case

        return DatasetPlan([CaseGroup("cases", d.questions * len(seeds), cases)], None, None,
                           f"long-horizon dialogue: {d.turns} turns, seeds {seeds}")

    def summarise(self, results: list[Record], *, level_scores: list[Record]) -> Record:
        return {self.name: categories_block([r for r in results if r.get("kind") in self.record_kinds])}

    def report_sections(self, summary: Record) -> list[Section]:
        block = summary.get(self.name)
        return [Section("Long-horizon dialogue", (score_table(block["by_category"], "category"),))] if block else []

    def answer_fields(self, case: Case, question: Question) -> Record:
        """Its evidence as [session_id, message index] (for the analyst; not scored as retrieval evidence)."""
        return {"evidence_messages": _session_turns(case, question.evidence.get("turns") or [])}


def _session_turns(case: Case, global_turns: list[int]) -> list[list[Any]]:
    """Global message indices (the long-horizon generator's) as [session_id, index in the session]."""
    wanted, out, start = set(global_turns), [], 0
    for session in case.sessions:
        out += [[session.session_id, t - start] for t in sorted(wanted) if start <= t < start + len(session.messages)]
        start += len(session.messages)
    return out


SUITE = LongHorizon()
