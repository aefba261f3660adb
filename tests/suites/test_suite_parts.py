"""A suite is a value of typed parts, resolved once per run: the suite the run's context carries
(`RunContext.suite`, registry.scoring_suite) is the one that scores every case its plan yields, adversary
rounds included; the graph's router reads the context's case protocol; the adversary's config rule names the
kinds whose suite has an adversary policy."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from benchmarker import registry
from benchmarker.config import load_config
from benchmarker.errors import ConfigError
from benchmarker.graph.build import after_ingest
from benchmarker.registry import plan_dataset, scoring_suite, suite_of_record
from benchmarker.suites.base import Suite
from benchmarker.suites.long_horizon.data.adversary import propose
from benchmarker.suites.parts import AdversaryPolicy, CaseProtocol, DataSource
from benchmarker.suites.sample.data import write_sample
from benchmarker.suites.settings import PlanSettings
from tests.shared_data import SHARED

LOCOMO_MINI = Path(__file__).parent / "locomo" / "fixtures" / "locomo_mini.json"
BEAM_100K = SHARED / "data" / "beam" / "chats" / "100K"


def _dataset_table(kind: str, tmp_path: Path) -> str:
    """A small [dataset] table of each built-in kind (LongMemEval reads a generated sample file)."""
    if kind == "longmemeval":
        data = write_sample(tmp_path / "lme.json", seed=3, questions_per_type=1, sessions_per_question=3)
        return f'dataset_file = "{data}"\n[dataset]\nkind = "longmemeval"\n'
    if kind == "beam":
        if not (BEAM_100K / "1" / "chat.json").is_file():
            pytest.skip(f"the shared BEAM sample is absent ({BEAM_100K})")
        return f'[dataset]\nkind = "beam"\nfile = "{BEAM_100K}"\nchats = [1]\n'
    return {"sample": '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n',
            "long_horizon": '[dataset]\nkind = "long_horizon"\nturns = 100\nquestions = 4\n',
            "levels": '[dataset]\nkind = "levels"\nlevels = ["L1", "L13", "L14"]\n',
            "fact_extraction": '[dataset]\nkind = "fact_extraction"\n',
            "locomo": f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO_MINI}"\n'}[kind]


def _config(tmp_path: Path, body: str):
    path = tmp_path / "run.toml"
    path.write_text(body + '[provider]\ntype = "offline"\n[run]\noutput_dir = "runs"\n', encoding="utf-8")
    return load_config(path)


@pytest.mark.parametrize("kind", registry.BUILTIN_ORDER)
def test_the_runs_suite_scores_every_case_its_plan_yields(kind, tmp_path):
    config = _config(tmp_path, _dataset_table(kind, tmp_path))
    resolved = scoring_suite(config.dataset.kind)
    cases = [case for group in plan_dataset(PlanSettings.of(config), tmp_path).groups for case in group.cases()]
    assert cases and all(suite_of_record(case.kind) is resolved for case in cases)
    if resolved.adversary is not None:   # an adversary round asks the same case with new questions
        harder = [dataclasses.replace(case, questions=case.questions[:1]) for case in cases]
        assert all(suite_of_record(case.kind) is resolved for case in harder)


def test_the_sample_is_scored_by_longmemevals_suite_not_its_own():
    assert scoring_suite("sample") is registry.suite("longmemeval") is not registry.suite("sample")


def test_an_adversary_round_of_long_horizon_keeps_the_runs_suite():
    config_suite = scoring_suite("long_horizon")
    from benchmarker.suites.long_horizon.data import generate_long_horizon

    case = generate_long_horizon(1000, 7, questions=40).case
    proposal = propose(case, asked={q.question for q in case.questions},
                       weak=["latest_value", "never_mentioned", "detail_recall"], n=5, round_=1)
    harder = dataclasses.replace(case, questions=tuple(proposal.questions))
    assert proposal.questions and suite_of_record(harder.kind) is config_suite


def test_the_context_carries_the_suite_resolved_from_the_config(tmp_path):
    from tests.graph.support import node_context

    config = _config(tmp_path, _dataset_table("fact_extraction", tmp_path))
    ctx = node_context(config, tmp_path, client=None)   # type: ignore[arg-type]  # no call reaches the client
    assert ctx.suite is registry.suite("fact_extraction") and ctx.suite.protocol.reads_back


@pytest.mark.parametrize(("protocol", "route"), [(CaseProtocol(reads_back=True), "read_back"), (CaseProtocol(), "qa")])
def test_the_router_reads_the_contexts_protocol_not_the_cases_kind(protocol, route):
    """A LongMemEval-kind case still reads back when the run's suite says so: the kind is not asked."""

    def not_planned(settings, run_dir):
        raise AssertionError("not planned")

    stub = Suite(name="stub", data=DataSource(not_planned), protocol=protocol)
    ctx = type("Ctx", (), {"suite": stub})()
    state = {"case": type("CaseLike", (), {"kind": "longmemeval"})()}
    assert after_ingest(state, Runtime(context=ctx)) == route   # type: ignore[arg-type]


def test_the_adversary_kinds_are_those_with_a_policy_in_todays_words():
    assert registry.adversary_kinds() == "long_horizon, longmemeval, sample and levels"
    assert [k for k in registry.DATASET_KINDS if registry.suite(k).adversary is not None] == \
        ["longmemeval", "sample", "long_horizon", "levels"]


def test_a_suite_without_an_adversary_policy_is_refused_naming_the_kinds_and_its_reason(tmp_path):
    with pytest.raises(ConfigError) as err:
        _config(tmp_path, _dataset_table("locomo", tmp_path) + "[multi_agent]\nadversary = true\n")
    assert ('writes questions for long_horizon, longmemeval, sample and levels; [dataset].kind = "locomo" is scored '
            "by its own category metrics") in str(err.value)


def test_policies_say_what_each_suite_does():
    lh, levels, lme = (registry.suite(k).adversary for k in ("long_horizon", "levels", "longmemeval"))
    assert isinstance(lh, AdversaryPolicy) and lh.proposes_from_facts and lh.own_weakest_only
    assert levels is not None and levels.rubric is not None and not levels.proposes_from_facts
    assert lme is not None and "multi-session" in lme.categories(None)   # type: ignore[arg-type]  # by type, not case
    assert registry.suite("fact_extraction").adversary is None
    assert [k for k in registry.DATASET_KINDS if registry.suite(k).protocol.replayable] == \
        ["longmemeval", "sample", "long_horizon", "locomo", "beam"]
