"""`estimate` prices the [multi_agent] calls on the judge's model: the adversary's extra questions
(answered and judged) and its model proposer, the graders and the analyst's explanations, each
kept apart in `eval_parts` and summing to the eval role. Worked out by hand on a generated case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.agent.ledger import Usage
from benchmarker.agent.prompts import load_prompt
from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.verbs.estimate import (
    ANALYST_TEXT_TOKENS,
    comparison,
    cost,
    estimate_json,
    estimate_run,
    eval_parts_cost,
)
from tests.verbs.test_estimate import DATA

# Two long-horizon cases (seeds 1 and 2) of 20 questions each, judged by "j" over an OpenAI-compatible endpoint.
BASE = ('[dataset]\nkind = "long_horizon"\nturns = 300\nquestions = 20\nseeds = [1, 2]\n'
        '[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "http://127.0.0.1:9/v1"\n'
        '[models]\nagent = "m"\nqa = "m"\neval = "j"\n[eval]\njudge = "llm"\n')
PRICES = '[prices]\n"m" = { input = 1.0, output = 2.0 }\n"j" = { input = 3.0, output = 4.0 }\n'
ADVERSARY = ('[multi_agent]\nadversary = true\nrounds = 2\nadversary_questions = 5\nproposer = "model"\n'
             'graders = ["quality", "simplicity"]\n')
CASES, QUESTIONS, ROUNDS, PER_ROUND = 2, 40, 2, 5
EXTRA = CASES * ROUNDS * PER_ROUND                     # 20 adversarial questions at most
READER_IN = 350 + min(10 * 120, 16_000 / 4)            # 1,550: reader prompt + top_k entries
JUDGE_IN, JUDGE_OUT = 350, 5


def write(tmp_path: Path, multi_agent: str = "", base: str = BASE) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(base + multi_agent + PRICES, encoding="utf-8")
    return path


def estimate(tmp_path: Path, multi_agent: str = "", base: str = BASE):
    cfg = load_config(write(tmp_path, multi_agent, base))
    return estimate_run(cfg, tmp_path), cfg


def template(name: str) -> int:
    return round(len(load_prompt(name)) / 4)


def test_without_multi_agent_the_estimate_is_unchanged(tmp_path: Path) -> None:
    est, _ = estimate(tmp_path)
    assert (est.cases, est.questions, est.adversary_questions) == (CASES, QUESTIONS, 0)
    assert list(est.eval_parts) == ["judge"]
    assert est.eval == est.eval_parts["judge"] == Usage(40, 40 * JUDGE_IN, 40 * JUDGE_OUT)  # 14,000 in, 200 out
    assert est.qa == Usage(40, int(40 * READER_IN), 40 * 60)                                 # 62,000 in, 2,400 out
    data = estimate_json(est)
    assert "adversary_questions" not in data["dataset"]
    assert list(data["roles"]["eval"]["parts"]) == ["judge"]
    assert not any(a.startswith(("adversary", "graders", "analyst")) for a in data["assumptions"])


def test_adversary_proposer_and_graders_by_hand(tmp_path: Path) -> None:
    off, _ = estimate(tmp_path)
    est, _ = estimate(tmp_path, ADVERSARY)
    assert est.adversary_questions == EXTRA == 20
    assert est.questions == QUESTIONS  # the dataset's own questions are counted as before
    assert list(est.eval_parts) == ["judge", "adversary_proposer", "adversary_judge", "graders"]
    assert est.eval_parts["judge"] == off.eval_parts["judge"]
    # every extra question: one reader call (qa) and one judge call, like a dataset question
    assert est.qa == Usage(QUESTIONS + EXTRA, int((QUESTIONS + EXTRA) * READER_IN), (QUESTIONS + EXTRA) * 60)
    assert est.eval_parts["adversary_judge"] == Usage(EXTRA, EXTRA * JUDGE_IN, EXTRA * JUDGE_OUT)
    # the proposer: one call per case and round, its prompt + 80 facts x 15 tokens in, 5 x 60 out
    calls = CASES * ROUNDS
    assert calls == 4
    assert est.eval_parts["adversary_proposer"] == Usage(calls, calls * (template("adversary_propose") + 80 * 15),
                                                         calls * PER_ROUND * 60)
    # graders: one call per judged answer (40 + 20) and perspective
    judged = QUESTIONS + EXTRA
    graders = est.eval_parts["graders"]
    assert graders.calls == 2 * judged == 120
    assert graders.input_tokens == judged * (template("grader_quality") + 300 + template("grader_simplicity") + 300)
    assert graders.output_tokens == 2 * judged * 60 == 7_200
    # the eval role is the sum of its parts, and cost() and the comparison price that sum
    total = Usage()
    for usage in est.eval_parts.values():
        total.add(usage)
    assert est.eval == total and est.eval.calls == 40 + 4 + 20 + 120
    usd = cost(est, est.settings.pricing)
    assert usd["eval"] == pytest.approx((total.input_tokens * 3.0 + total.output_tokens * 4.0) / 1e6)
    assert sum(eval_parts_cost(est, est.settings.pricing).values()) == pytest.approx(usd["eval"])
    rows = comparison(est, est.settings.pricing)
    assert all(r["total_usd"] == pytest.approx(r["agent_usd"] + usd["qa"] + usd["eval"]) for r in rows)
    # the memory agent's calls do not change
    assert est.agent == off.agent


def test_analyst_explanations_assume_every_answer_wrong_up_to_explain_max(tmp_path: Path) -> None:
    analyst = "[multi_agent]\nanalyst = true\nanalyst_explain = true\nexplain_max = {}\n"
    per_call = template("analyst_explain") + ANALYST_TEXT_TOKENS   # 8 texts of at most 500 characters
    capped, _ = estimate(tmp_path, analyst.format(7))
    assert capped.eval_parts["analyst"] == Usage(7, 7 * per_call, 7 * 120)
    uncapped, _ = estimate(tmp_path, analyst.format(1000))
    assert uncapped.eval_parts["analyst"] == Usage(QUESTIONS, QUESTIONS * per_call, QUESTIONS * 120)
    assert any("every judged answer is counted as wrong" in a for a in estimate_json(uncapped)["assumptions"])


def test_other_kinds_propose_from_evidence_turns(tmp_path: Path) -> None:
    data = tmp_path / "d.json"
    data.write_text(json.dumps(DATA), encoding="utf-8")
    base = (f'dataset_file = "{data}"\n[provider]\ntype = "openai"\n[models]\nagent = "m"\nqa = "m"\neval = "j"\n'
            '[eval]\njudge = "llm"\n')
    est, _ = estimate(tmp_path, '[multi_agent]\nadversary = true\nrounds = 3\nadversary_questions = 4\n'
                                'proposer = "model"\n', base)
    prompt = template("adversary_evidence")
    assert est.adversary_questions == 1 * 3 * 4
    # the prompt lists 60 turns of at most 600 characters (150 tokens) each
    assert est.eval_parts["adversary_proposer"] == Usage(3, 3 * (prompt + 60 * 150), 3 * 4 * 60)


def test_no_llm_judge_no_judge_model_calls(tmp_path: Path) -> None:
    # the generator proposes and the judge is deterministic: the extra questions are still answered (qa),
    # but nothing runs on a judge model, graders included
    base = BASE.replace('judge = "llm"', 'judge = "deterministic"')
    est, _ = estimate(tmp_path, '[multi_agent]\nadversary = true\nadversary_questions = 3\ngraders = ["quality"]\n',
                      base.replace('eval = "j"\n', ""))
    assert est.adversary_questions == CASES * 1 * 3
    assert est.qa.calls == QUESTIONS + 6
    assert list(est.eval_parts) == ["judge"] and est.eval == Usage()


def test_the_verb_prints_and_emits_the_breakdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, ADVERSARY)
    assert main(["estimate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dataset"]["adversary_questions"] == 20
    parts = data["roles"]["eval"]["parts"]
    assert [p["calls"] for p in parts.values()] == [40, 4, 20, 120]
    assert sum(p["cost_usd"] for p in parts.values()) == pytest.approx(data["roles"]["eval"]["cost_usd"])
    assert sum(p["input_tokens"] for p in parts.values()) == data["roles"]["eval"]["input_tokens"]
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "adversary: up to 20 extra questions" in out and "eval by purpose" in out
    assert "| adversary_proposer | 4 |" in out and "| graders | 120 |" in out
    assert "adversary proposer: one call per case and round" in out
