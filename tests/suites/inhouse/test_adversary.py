"""The adversary: verified harder questions for the weakest long-horizon categories, asked against
the same memories as a new round, reported beside round 0; and the checks that drop a question."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.cli import main
from benchmarker.suites.long_horizon.data import generate_long_horizon
from benchmarker.suites.long_horizon.data.adversary import propose, verify, weakest_categories
from benchmarker.suites.long_horizon.data.dialogue import build_world, layout
from benchmarker.suites.long_horizon.data.questions import Candidate
from tests.e2e.cli import read_lines


def test_weakest_categories_are_those_with_wrong_answers_lowest_first():
    labels = {"a": [True, True], "b": [False, True], "c": [False, False, False], "d": [False]}
    assert weakest_categories(labels, k=2) == ["c", "d"] and "a" not in weakest_categories(labels, k=5)


def test_every_proposed_question_checks_out_against_the_dialogue():
    ds = generate_long_horizon(1000, 7, questions=40)
    asked = {q.question for q in ds.case.questions}
    proposal = propose(ds.case, asked=asked, weak=["latest_value", "never_mentioned", "detail_recall"], n=20, round_=1)
    assert proposal.proposed == proposal.verified + len(proposal.dropped) and proposal.verified == 20
    messages = [m.content for s in ds.case.sessions for m in s.messages]
    for q in proposal.questions:
        assert q.question not in asked and q.evidence["round"] == 1 and q.question_id.startswith("lh-7-1000-r1-")
        if q.rubric.get("abstain"):   # an invented entity: named nowhere in the dialogue
            assert all(name.lower() not in "\n".join(messages).lower() for name in q.question.split() if name.startswith("INC-"))
        else:
            assert q.evidence["turns"] and all(0 <= t < len(messages) for t in q.evidence["turns"])
    assert {r.split(":")[0] for _, r in proposal.dropped} <= {
        "never-mentioned attribute"} | {r for _, r in proposal.dropped if "does appear" in r}
    again = propose(ds.case, asked=asked, weak=["latest_value", "never_mentioned", "detail_recall"], n=20, round_=1)
    assert [q.question_id for q in again.questions] == [q.question_id for q in proposal.questions]  # deterministic


def test_a_gold_answer_the_dialogue_does_not_support_is_dropped():
    world = build_world(300, 7)
    layout(world, 7)
    messages = ["nothing relevant"] * 300
    fact_id = next(iter(world.facts))
    wrong = Candidate("detail_recall", "t", "Q?", "some answer", {}, [fact_id], 0)
    assert "is not stated at turn" in verify(wrong, world.facts, messages) or "never delivered" in verify(
        wrong, world.facts, messages)
    ghost = Candidate("never_mentioned", "ghost_incident", "What was the root cause of INC-1234?", "Not mentioned",
                      {"abstain": True}, [], 0)
    assert verify(ghost, world.facts, messages) is None
    assert "does appear" in verify(ghost, world.facts, ["we fixed INC-1234 yesterday"])


def test_an_adversarial_round_reuses_the_memory_and_is_reported_beside_round_0(tmp_path: Path):
    config = tmp_path / "adv.toml"
    config.write_text('[dataset]\nkind = "long_horizon"\nturns = 300\nquestions = 20\n'
                      '[multi_agent]\nadversary = true\nanalyst = true\nadversary_questions = 8\n'
                      '[run]\nprogress = false\noutput_dir = "runs"\n', encoding="utf-8")
    assert main(["run", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("adv-*")
    results = read_lines(run_dir / "results.jsonl")
    harder = [r for r in results if r.get("round") == 1]
    assert harder and len(results) == 20 + len(harder) and all("-r1-" in r["question_id"] for r in harder)
    assert [m["status"] for m in read_lines(run_dir / "memories.jsonl")] == ["created", "ingested"]  # no re-ingestion
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["qa"]["overall"]["n"] == 20  # the main metrics stay round 0
    rounds = summary["rounds"]
    assert rounds["rounds"]["1"]["questions"] == len(harder) == rounds["adversary"]["1"]["verified"]
    logged = read_lines(run_dir / "adversary.jsonl")
    assert len(logged) == 1 and logged[0]["weak_categories"]
    assert "## Adversarial rounds" in (run_dir / "report.md").read_text()
    assert sum(summary["analyst"]["counts"].values()) == sum(1 for r in results if r["label"] is False)
    before = (run_dir / "results.jsonl").read_bytes()
    assert main(["run", str(config)]) == 0   # resumed: the same questions, nothing asked twice
    assert (run_dir / "results.jsonl").read_bytes() == before and len(read_lines(run_dir / "adversary.jsonl")) == 1
    assert main(["score", str(run_dir), str(config)]) == 0   # re-scoring finds the round's questions in the log
    rescored = {r["question_id"]: r["label"] for r in read_lines(run_dir / "scores" / "deterministic" / "results.jsonl")}
    assert rescored == {r["question_id"]: r["label"] for r in results}


def test_the_adversary_is_refused_where_it_has_no_ground_truth(tmp_path: Path):
    import pytest

    from benchmarker.config import load_config
    from benchmarker.errors import ConfigError

    path = tmp_path / "bad.toml"
    path.write_text('[dataset]\nkind = "sample"\n[multi_agent]\nadversary = true\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[multi_agent\]\.proposer: \"generator\" .* use proposer = \"model\""):
        load_config(path)   # no fact records: only a model proposer, checked against the turns
    path.write_text('[dataset]\nkind = "fact_extraction"\n[multi_agent]\nadversary = true\nproposer = "model"\n',
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[multi_agent\]\.adversary: .*no questions to aim at"):
        load_config(path)


def test_a_models_proposals_are_asked_only_when_the_dialogue_backs_them():
    """proposer = "model": the prompt lists the case's facts; each proposal is verified like the
    generator's (its facts stated at their turns, its answer stating a value) before it is asked."""
    from benchmarker.agent.prompts import load_prompt
    from benchmarker.suites.long_horizon.data.adversary import proposer_prompt, verified_from_model
    from benchmarker.graph.adversary import parse_proposals

    ds = generate_long_horizon(300, 7, questions=20)
    asked = {q.question for q in ds.case.questions}
    prompt, facts = proposer_prompt(ds.case, asked=asked, weak=["latest_value"], failures=[("Q?", "A")], n=5,
                                    template=load_prompt("adversary_propose"))
    shown = [line.split(" | ")[0] for line in prompt.splitlines() if line.count(" | ") == 3]
    assert shown and "latest_value" in prompt and "Q? (gold: A)" in prompt
    messages = [m.content for s in ds.case.sessions for m in s.messages]
    good = next(f for f in facts.values() if f.fact_id in shown and str(f.value).lower() in messages[f.turn].lower())
    reply = json.dumps({"questions": [
        {"question": f"What is the {good.attribute} of {good.subject}?", "answer": str(good.value),
         "facts": [good.fact_id], "category": "detail_recall"},
        {"question": "Which color is the sky?", "answer": "blue", "facts": ["no-such-fact"], "category": "detail_recall"},
        {"question": f"What about {good.subject}?", "answer": "something else", "facts": [good.fact_id]},
        {"question": next(iter(asked)), "answer": "x", "facts": [good.fact_id]}]})
    proposal = verified_from_model(ds.case, parse_proposals(f"Sure:\n```json\n{reply}\n```"), facts, asked=set(asked),
                                   weak=["latest_value"], round_=1)
    assert proposal.proposed == 4 and proposal.verified == 1
    (kept,) = proposal.questions
    assert kept.answer == str(good.value) and kept.evidence["facts"] == [good.fact_id] and kept.evidence["round"] == 1
    reasons = [r for _, r in proposal.dropped]
    assert any("never delivered" in r for r in reasons) and any("states none" in r for r in reasons)
    assert any("asked before" in r for r in reasons)


def test_a_model_proposer_needs_a_judge_model(tmp_path: Path):
    import pytest

    from benchmarker.config import load_config
    from benchmarker.errors import ConfigError

    path = tmp_path / "bad.toml"
    path.write_text('[dataset]\nkind = "long_horizon"\n[multi_agent]\nadversary = true\nproposer = "model"\n',
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[multi_agent\]\.proposer"):
        load_config(path)
