"""The suite registry: every kind loads, record kinds map back, and a suite registered at run time
is scored and summarised without any other file changing."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from benchmarker import registry
from benchmarker.config_schema import DatasetConfig, RunConfig
from benchmarker.datasets.schema import Case, Question, Session
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.registry import SUITE_LOOKUP, plan_dataset
from benchmarker.reporting.section_spec import Lines, Section
from benchmarker.reporting.sections import extra_sections, suite_summaries
from benchmarker.reporting.suite_parts import SuiteReporting
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.score import score
from benchmarker.scoring.judges import DeterministicGrader
from benchmarker.suites.base import Suite
from benchmarker.suites.parts import DataSource
from benchmarker.suites.scorer import Scorer
from benchmarker.suites.settings import PlanSettings


@pytest.mark.parametrize("kind", registry.DATASET_KINDS)
def test_every_dataset_kind_loads_its_suite(kind):
    suite = registry.suite(kind)
    assert isinstance(suite, Suite) and suite.name == kind and suite.record_kinds
    assert all(registry.RECORD_KINDS.get(r) for r in suite.record_kinds)


@pytest.mark.parametrize("record_kind", registry.RECORD_KINDS)
def test_record_kinds_map_back_to_their_suite(record_kind):
    suite = registry.suite_of_record(record_kind)
    assert record_kind in suite.record_kinds and suite.name == registry.RECORD_KINDS[record_kind]


def test_lines_without_a_kind_are_longmemeval_and_unknown_kinds_are_named():
    assert registry.suite_of_record(None).name == "longmemeval"
    with pytest.raises(ValueError, match="unknown dataset kind 'nope'"):
        registry.suite("nope")
    assert registry.suites_of(["nope", "level", None]) == [registry.suite("longmemeval"), registry.suite("levels")]


def _toy_plan(settings, run_dir: Path) -> DatasetPlan:
    case = Case("toy-1", "toy_case", (Session("s1", "2024/01/01 (Mon) 10:00", ()),),
                (Question("q1", "recall", "what?", "toy"),))
    return DatasetPlan([CaseGroup("cases", 1, lambda: [case])], None, None, "toy")


async def _toy_score(record, case, judge):
    label = "toy" in str(record.get("hypothesis"))
    return {"label": label, "autoeval_label": {"model": "toy", "label": label},
            "grade": {"judge": "toy", "reason": "contains toy", "unjudged": False}}


def _toy_summarise(results, *, level_scores):
    return {"toy": {"right": sum(1 for r in results if r.get("label"))}}


def _toy_sections(summary):
    return [Section("Toy", (Lines((f"{summary['toy']['right']} right",)),))]


# A suite the harness has never heard of: every answer containing "toy" is right.
TOY = Suite(name="toy", record_kinds=("toy_case",), data=DataSource(_toy_plan), scorer=Scorer(score=_toy_score),
            reporting=SuiteReporting(summarise=_toy_summarise, report_sections=_toy_sections))


@pytest.fixture
def toy(monkeypatch):
    module = types.ModuleType("toy_suite")
    module.SUITE = TOY
    monkeypatch.setitem(sys.modules, "toy_suite", module)
    monkeypatch.setitem(registry.SUITES, "toy", "toy_suite")
    monkeypatch.setitem(registry.RECORD_KINDS, "toy_case", "toy")
    return module.SUITE


async def test_a_suite_registered_at_run_time_is_planned_scored_and_summarised(toy, tmp_path):
    config = RunConfig(dataset=DatasetConfig(kind="toy"))
    (case,) = plan_dataset(PlanSettings.of(config), tmp_path).groups[0].cases()
    answer = {"case_id": case.case_id, "question_id": "q1", "kind": case.kind, "question": "what?",
              "answer": "toy", "hypothesis": "a toy"}
    result = (await score(answer, case, DeterministicGrader())).to_line()
    assert result["label"] is True and result["grade"]["judge"] == "toy"
    summary = build_summary([result], run_meta={}, suites=SUITE_LOOKUP).as_dict() | suite_summaries([result], suites=SUITE_LOOKUP)
    assert summary["toy"] == {"right": 1} and summary["counts"]["by_kind"] == {"toy_case": 1}
    assert ("Toy", "1 right") in extra_sections(RunSummary.model_validate(summary), suites=SUITE_LOOKUP)
