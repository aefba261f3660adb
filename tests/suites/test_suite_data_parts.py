"""The parts a suite's data and judge come from (suites/parts.py): which keys name its data (`DataSource`), what
one judge call costs (`JudgeCost`), where its official judge prompts and its calibration gold are read from
(`OfficialJudgeSource`, `CalibrationGold`, None when it has none), and the `PlanSettings` its plan gets in place
of the whole config. Each is read by the one place that needs it: config.py, estimate, run/models.py, calibrate."""

from __future__ import annotations

import dataclasses
import sys
import types
from pathlib import Path

import pytest

from benchmarker import registry
from benchmarker.config import load_config
from benchmarker.config_schema import DatasetConfig, RunConfig, RunSection
from benchmarker.datasets.schema import Case, Question, Session
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.errors import ConfigError, UserError
from benchmarker.registry import plan_dataset
from benchmarker.run.models import official_prompt_for
from benchmarker.suites.base import Suite
from benchmarker.suites.parts import CalibrationGold, DataSource, JudgeCost, OfficialJudgeSource
from benchmarker.suites.settings import PlanSettings, QuestionSelection
from benchmarker.verbs.calibrate import calibration_gold
from benchmarker.verbs.estimate import JUDGE_INPUT, JUDGE_OUTPUT, judge_call

PLANNED: list[PlanSettings] = []   # the settings the filed suite planned on


def _plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    PLANNED.append(settings)
    case = Case("c1", "filed_case", (Session("s1", "2024/01/01 (Mon) 10:00", ()),),
                (Question("q1", "recall", "what?", "it"),))
    return DatasetPlan([CaseGroup("cases", 1, lambda: [case])], None, None, "filed")


# A suite reading `[dataset].file`, with its own fix for a missing one.
FILED = Suite(name="filed", record_kinds=("filed_case",),
              data=DataSource(_plan, reads_file=True, missing_file_hint=lambda path: f"write one at {path}"))
# No data keys, no official judge, no calibration gold, the usual judge's cost.
BARE = dataclasses.replace(FILED, name="bare", data=DataSource(_plan))


@pytest.fixture
def filed(monkeypatch: pytest.MonkeyPatch) -> Suite:
    for suite in (FILED, BARE):
        module = types.ModuleType(f"{suite.name}_suite")
        module.SUITE = suite   # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
        monkeypatch.setitem(registry.SUITES, suite.name, module.__name__)
    monkeypatch.setitem(registry.RECORD_KINDS, "filed_case", "filed")
    got = registry.suite("filed")
    assert got is FILED
    return got


def _with(monkeypatch: pytest.MonkeyPatch, **parts: object) -> Suite:
    """The filed suite with these parts, registered in its place for the test (a suite is a frozen value)."""
    changed = dataclasses.replace(FILED, **parts)   # type: ignore[arg-type]
    monkeypatch.setitem(registry._loaded, "filed_suite", changed)
    return changed


def _load(tmp_path: Path, dataset: str, extra: str = "") -> RunConfig:
    path = tmp_path / "run.toml"
    path.write_text(f"[dataset]\n{dataset}\n[run]\noutput_dir = \"runs\"\nprogress = false\n{extra}", encoding="utf-8")
    return load_config(path)


def test_a_missing_file_gets_the_hint_of_the_suites_data_source(filed: Suite, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "filed"\nfile = "nope.json"')
    assert f"file not found: {tmp_path / 'nope.json'}" in str(info.value)
    assert f"write one at {tmp_path / 'nope.json'}" in str(info.value)


def test_a_file_key_is_refused_for_a_suite_whose_data_source_does_not_read_one(filed: Suite, tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text("{}", encoding="utf-8")
    assert _load(tmp_path, 'kind = "filed"\nfile = "data.json"').dataset.file == str(tmp_path / "data.json")
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "bare"\nfile = "data.json"')
    assert '"beam" and "filed" (kind is "bare"); remove it' in str(info.value)   # the kinds whose part reads it


def test_official_is_refused_for_a_kind_without_the_part_and_the_kinds_with_one_are_named(
        filed: Suite, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "bare"', '[eval]\njudge = "official"\n')
    assert '"official" is the judge of kinds "longmemeval", "sample", "beam", which ship' in str(info.value)
    config = PlanSettings.of(RunConfig(dataset=DatasetConfig(kind="bare")))
    assert official_prompt_for("official", config) == (None, '[dataset].kind = "bare" has no official judge')


def test_the_official_judge_source_reads_the_clone_the_settings_name(filed: Suite, monkeypatch: pytest.MonkeyPatch) -> None:
    _with(monkeypatch, official_judge=OfficialJudgeSource(lambda s: ("PROMPTS", f"from {s.repo_path}")))
    config = PlanSettings.of(RunConfig(dataset=DatasetConfig(kind="filed"), dataset_repo_path="/clone"))
    assert official_prompt_for("official", config) == ("PROMPTS", "from /clone")
    assert official_prompt_for("llm", config) == (None, "")   # only the official judge reads a clone


def test_calibrate_reads_the_suites_gold_part_and_says_when_there_is_none(filed: Suite,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match='kind "bare" has none'):
        calibration_gold(PlanSettings.of(RunConfig(dataset=DatasetConfig(kind="bare"))), None)
    _with(monkeypatch, calibration_gold=CalibrationGold(lambda s: ({"q1": s.dataset.file}, {})))
    assert calibration_gold(PlanSettings.of(RunConfig(dataset=DatasetConfig(kind="filed", file="gold.json"))),
                            None) == ({"q1": "gold.json"}, {})


def test_estimate_counts_the_suites_judge_cost_else_the_usual_judge(filed: Suite, monkeypatch: pytest.MonkeyPatch) -> None:
    assert judge_call(filed) == (JUDGE_INPUT, JUDGE_OUTPUT)
    costly = _with(monkeypatch, judge_cost=JudgeCost(lambda chars_per_token: (round(700 / chars_per_token), 9)))
    assert judge_call(costly) == (round(700 / 4), 9) != (JUDGE_INPUT, JUDGE_OUTPUT)
    assert judge_call(registry.suite("locomo"))[1] > JUDGE_OUTPUT   # LoCoMo's part: a JSON reply with a reason


def test_a_plan_gets_the_dataset_table_question_selection_and_clone_not_the_config(filed: Suite) -> None:
    PLANNED.clear()
    dataset = DatasetConfig(kind="filed", file="/data/x.json", seed=3)
    run = RunSection(question_ids=("q1", "q2"), question_types=("recall",), limit=2, sample=1, sample_seed=7,
                     concurrency=4)
    settings = PlanSettings.of(RunConfig(dataset=dataset, run=run, dataset_repo_path="/clone"))
    (case,) = plan_dataset(settings, Path("unused")).groups[0].cases()
    (got,) = PLANNED
    assert got == PlanSettings(dataset, QuestionSelection(("q1", "q2"), ("recall",), 2, 1, 7), "/clone")
    assert got.dataset_path == Path("/data/x.json") and case.case_id == "c1"
    assert PlanSettings(DatasetConfig(kind="filed")).dataset_path is None   # generated data: no file
