"""docs/suites.md's smallest suite runs as written: its `SUITE` value registers, plans, scores and summarises."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from benchmarker import registry
from benchmarker.config_schema import DatasetConfig, RunConfig
from benchmarker.registry import SUITE_LOOKUP, plan_dataset
from benchmarker.reporting.sections import suite_summaries
from benchmarker.score import score
from benchmarker.scoring.judges import DeterministicGrader
from benchmarker.suites.base import Suite
from benchmarker.suites.settings import PlanSettings

DOC = Path(__file__).resolve().parents[2] / "docs" / "suites.md"


def _snippet() -> str:
    (code,) = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    return code


@pytest.fixture
def documented(monkeypatch: pytest.MonkeyPatch) -> Suite:
    module = types.ModuleType("documented_toy_suite")
    exec(compile(_snippet(), str(DOC), "exec"), module.__dict__)   # our own docs page
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.SUITES, module.SUITE.name, module.__name__)
    for kind in module.SUITE.record_kinds:
        monkeypatch.setitem(registry.RECORD_KINDS, kind, module.SUITE.name)
    return module.SUITE


async def test_the_documented_suite_is_a_value_that_plans_scores_and_summarises(documented: Suite,
                                                                                  tmp_path: Path) -> None:
    assert isinstance(documented, Suite) and registry.suite("toy") is documented
    (case,) = plan_dataset(PlanSettings.of(RunConfig(dataset=DatasetConfig(kind="toy"))), tmp_path).groups[0].cases()
    answers = [{"case_id": case.case_id, "question_id": "q1", "kind": case.kind, "question": "what?",
                "answer": "toy", "hypothesis": hypothesis} for hypothesis in ("a toy", "a ball")]
    results = [(await score(answer, case, DeterministicGrader())).to_line() for answer in answers]
    assert [r["label"] for r in results] == [True, False] and results[0]["grade"]["judge"] == "toy"
    assert suite_summaries(results, suites=SUITE_LOOKUP)["toy"] == {"right": 1}
