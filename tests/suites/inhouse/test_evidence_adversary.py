"""The adversary on datasets without fact records (LongMemEval haystacks, levels): a model proposes
from the case's turns and the harness asks only what it can check against the dialogue; a full run
through the real langchain-openai client against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarker.cli import main
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.graph.evidence_adversary import TURNS_SHOWN, case_turns, check, checked_questions, shown_turns
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer, last_prompt, llm_judge_toml


def _case() -> Case:
    first = Session("s1", "2024/01/02 (Tue) 10:00", (
        Message("user", "I adopted a greyhound named Biscuit from the Riverside shelter.", has_answer=True),
        Message("assistant", "Congratulations on Biscuit!")))
    second = Session("s2", "2024/02/03 (Sat) 09:00", (
        Message("user", "My new commute is 42 minutes by tram since we moved to Oakfield."),
        Message("assistant", "That is a long ride.")))
    question = Question("q1", "single-session-user", "What is my dog's name?", "Biscuit", "2024/03/01 (Fri) 08:00")
    return Case("c1", "longmemeval", (first, second), (question,))


def test_a_proposal_is_kept_only_when_the_dialogue_states_its_answer():
    case = _case()
    turns = {t.tid: t for t in case_turns(case)}
    corpus = "\n".join(t.content for t in turns.values()).lower()
    good = {"question": "How long is my commute?", "answer": "42 minutes", "turns": ["T2"],
            "quote": "commute is 42  minutes by tram"}
    assert check(good, turns, corpus) is None
    assert check(good | {"turns": ["T9"]}, turns, corpus) == "cites a turn that does not exist"
    assert check(good | {"quote": "commute is an hour"}, turns, corpus) == "the quote is not in the cited turns"
    assert check(good | {"answer": "55 minutes"}, turns, corpus) == "the answer is not stated in the cited turns"
    assert check(good | {"turns": ["T0"], "quote": "Biscuit"}, turns, corpus) == "the answer is not stated in the cited turns"
    assert check(good | {"question": "Is my commute 42 minutes?"}, turns, corpus) == "the question gives its answer away"
    never = {"question": "What breed is my cat Whiskers?", "answer": "not mentioned", "absent": "Whiskers"}
    assert check(never, turns, corpus) is None
    assert "does appear" in check(never | {"question": "What breed is Biscuit?", "absent": "Biscuit"}, turns, corpus)
    assert "not in the question" in check(never | {"absent": "parrot"}, turns, corpus)


def test_checked_questions_are_questions_of_the_case_with_their_evidence_turns():
    case = _case()
    items = [{"question": "How long is my commute?", "answer": "42 minutes", "turns": ["T2"],
              "quote": "42 minutes by tram", "category": "knowledge-update"},
             {"question": "Which shelter did my dog come from?", "answer": "Riverside", "turns": [0],
              "quote": "from the Riverside shelter", "category": "not-a-type"},
             {"question": "What breed is my cat Whiskers?", "answer": "not mentioned", "absent": "Whiskers"},
             {"question": "What is my dog's name?", "answer": "Biscuit", "turns": ["T0"], "quote": "Biscuit"}]
    proposal = checked_questions(case, items, asked={"What is my dog's name?"}, weak=["multi-session"],
                                 categories=["single-session-user", "multi-session", "knowledge-update"], round_=2)
    assert (proposal.proposed, proposal.verified) == (4, 3) and proposal.dropped[0][1] == "empty, or asked before"
    commute, shelter, never = proposal.questions
    assert commute.question_id == "c1-r2-m1" and commute.evidence["turns"] == [["s2", 0]]
    assert commute.answer_session_ids == ("s2",) and commute.question_type == "knowledge-update"
    assert shelter.question_type == "multi-session"   # an unknown category falls back to the weakest
    assert never.question_id == "c1-r2-m3_abs" and never.is_abstention and never.evidence["turns"] == []
    assert all(q.question_date == "2024/03/01 (Fri) 08:00" and q.evidence["round"] == 2 for q in proposal.questions)


def test_the_proposer_sees_every_evidence_turn_and_the_same_sample_on_a_resume():
    sessions = tuple(Session(f"s{i}", "2024/01/01 (Mon) 10:00", (
        Message("user", f"Filler fact number {i} about something unrelated to anything.", has_answer=(i == 77)),
        Message("assistant", "ok"))) for i in range(200))
    case = Case("big", "longmemeval", sessions, ())
    shown = shown_turns(case, 1)
    assert len(shown) == TURNS_SHOWN and any(t.session_id == "s77" for t in shown)
    assert all(t.role == "user" for t in shown) and [t.index for t in shown] == sorted(t.index for t in shown)
    assert shown == shown_turns(case, 1) and shown != shown_turns(case, 2)


# --- a full run: the judge's model proposes, the harness checks, the same memories answer ----------

PROPOSER_CALLS: list[str] = []
RUN = ('[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
       '[run]\nlimit = 2\nprogress = false\noutput_dir = "runs"\n')


def _proposals(prompt: str) -> str:
    """A model's reply to the adversary prompt: one checkable question (from the first shown user
    turn), one citing a turn that does not exist, one about a name never mentioned."""
    tid, text = next((m.group(1), m.group(2)) for m in re.finditer(r"^\[(T\d+)\] .*? user: (.+)$", prompt, re.M)
                     if len(m.group(2).split()) >= 6)
    words = text.split()
    quote = " ".join(words[:6])
    answer = next(w.strip(".,!?") for w in reversed(words[:6]) if len(w.strip(".,!?")) > 3)
    return json.dumps({"questions": [
        {"question": "ADVERSARIAL: what did I say first in that chat?", "answer": answer, "turns": [tid], "quote": quote,
         "category": "single-session-user"},
        {"question": "ADVERSARIAL: what about the other thing?", "answer": "x", "turns": ["T999999"], "quote": "x"},
        {"question": "ADVERSARIAL: when did I visit Quokkaville Fair?", "answer": "not mentioned",
         "absent": "Quokkaville Fair", "category": "temporal-reasoning"}]})


def script(request: dict) -> dict:
    prompt = last_prompt(request)
    if prompt.startswith("You write hard test questions"):
        PROPOSER_CALLS.append(prompt)
        return {"text": "Here you go:\n```json\n" + _proposals(prompt) + "\n```", "usage": {
            "prompt_tokens": 3000, "completion_tokens": 200}}
    return {"text": "no" if "ADVERSARIAL" in prompt else "yes"}   # the main LongMemEval judge


def test_a_model_proposer_writes_a_checked_round_for_longmemeval_cases(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-adversary-test")
    with ScriptedOpenAIServer(script) as server:
        config = tmp_path / "adv.toml"
        config.write_text(RUN + llm_judge_toml(server.base_url) +
                          '[prices.gpt-judge]\ninput = 1.0\noutput = 2.0\n'
                          '[multi_agent]\nadversary = true\nproposer = "model"\nadversary_questions = 3\nanalyst = true\n',
                          encoding="utf-8")
        assert main(["run", str(config)]) == 0
        (run_dir,) = (tmp_path / "runs").glob("adv-*")
        assert len(PROPOSER_CALLS) == 2   # one per case and round
        logged = read_lines(run_dir / "adversary.jsonl")
        assert [(line["proposed"], line["verified"]) for line in logged] == [(3, 2), (3, 2)]
        assert all(line["dropped"] == [{"question": "ADVERSARIAL: what about the other thing?",
                                        "reason": "cites a turn that does not exist"}] for line in logged)
        results = read_lines(run_dir / "results.jsonl")
        harder = [r for r in results if r.get("round") == 1]
        assert len(results) == 2 + 4 and len(harder) == 4
        assert sorted(r["question_id"].split("-r1-")[1] for r in harder) == ["m1", "m1", "m2_abs", "m2_abs"]
        for r in harder:   # answered from the same memory, judged by the same judge
            assert r["label"] is False and (r["evidence_turns"] == [] if r["is_abstention"] else len(r["evidence_turns"]) == 1)
        assert [m["status"] for m in read_lines(run_dir / "memories.jsonl")].count("ingested") == 2  # no re-ingestion
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["qa"]["overall"]["n"] == 2 and summary["qa"]["overall"]["accuracy"] == 1.0  # round 0 only
        assert summary["rounds"]["rounds"]["1"]["accuracy"] == 0.0
        assert summary["rounds"]["adversary"]["1"] == {"cases": 2, "proposed": 6, "verified": 4, "dropped": 2, "asked": 4,
                                                       "drop_reasons": {"cites a turn that does not exist": 2},
                                                       "note": "Round 1 asked 4 question(s): 6 proposed, 2 dropped "
                                                               "(cites a turn that does not exist: 2)"}
        assert summary["analyst"]["wrong"] == 4
        ledger = json.loads((run_dir / "manifest.json").read_text())["tokens"]["roles"]["eval"]
        # 2 proposer calls (3,000 in / 200 out) + 6 judge calls (100 / 20), at $1 / $2 per million
        assert (ledger["calls"], ledger["input_tokens"], ledger["output_tokens"]) == (8, 6600, 520)
        assert abs(ledger["cost_usd"] - 0.00764) < 1e-9
        before = (run_dir / "results.jsonl").read_bytes()
        assert main(["run", str(config)]) == 0   # resumed: the logged questions, no new proposal, nothing twice
        assert len(PROPOSER_CALLS) == 2 and (run_dir / "results.jsonl").read_bytes() == before
        assert len(read_lines(run_dir / "adversary.jsonl")) == 2


LEVEL_PROPOSALS: list[str] = []


def level_script(request: dict) -> dict:
    prompt = last_prompt(request)
    if prompt.startswith("You write hard test questions"):
        LEVEL_PROPOSALS.append(prompt)
        return {"text": _proposals(prompt)}
    return {"text": '{"score": 1, "reason": "fine"}'}   # the rubric's LLM dimensions


def test_levels_take_checked_questions_and_keep_their_own_level_score(tmp_path: Path, monkeypatch):
    """A rubric-scored level (L1) gets a round; L13 (scored on its tool trace) gets none; the level
    lines are the levels' own, written once from round 0."""
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-adversary-test")
    with ScriptedOpenAIServer(level_script) as server:
        config = tmp_path / "lv.toml"
        config.write_text('[dataset]\nkind = "levels"\nlevels = ["L1", "L13"]\n[run]\nprogress = false\n'
                          'output_dir = "runs"\n' + llm_judge_toml(server.base_url) +
                          '[multi_agent]\nadversary = true\nproposer = "model"\nadversary_questions = 3\n', encoding="utf-8")
        assert main(["run", str(config)]) == 0
        (run_dir,) = (tmp_path / "runs").glob("lv-*")
        assert len(LEVEL_PROPOSALS) == 1   # L1 only
        (line,) = read_lines(run_dir / "adversary.jsonl")
        assert line["case_id"] == "level-L1-42" and (line["proposed"], line["verified"]) == (3, 2)
        harder = [r for r in read_lines(run_dir / "results.jsonl") if r.get("round") == 1]
        assert len(harder) == 2 and all(r["kind"] == "level" and r["label"] is not None for r in harder)
        asked = next(r for r in harder if not r["is_abstention"])
        assert len(asked["evidence_turns"]) == 1 and asked["rubric"]   # graded on its rubric, traced to its turn
        levels = read_lines(run_dir / "levels.jsonl")
        assert sorted(line["level"] for line in levels) == ["L1", "L13"]   # one line each, from round 0


def test_on_real_longmemeval_cases_the_evidence_turns_are_shown_and_checkable():
    import pytest

    from tests.shared_data import REAL_5Q

    if not REAL_5Q.is_file():
        pytest.skip(f"{REAL_5Q} is absent")
    from benchmarker.suites.longmemeval.data import iter_longmemeval

    for case in iter_longmemeval(REAL_5Q):
        shown = shown_turns(case, 1)
        flagged = [t for t in case_turns(case) if [m for s in case.sessions for m in s.messages][t.index].has_answer]
        assert len(shown) <= TURNS_SHOWN and all(t in shown for t in flagged[:TURNS_SHOWN])
        turn = next((t for t in flagged if t.role == "user" and len(t.content.split()) > 8), None)
        if turn is None:
            continue
        words = turn.content.split()
        answer = max((w.strip(".,!?\"'()") for w in words[3:8]), key=len)   # a content word of the quote
        item = {"question": "What did I say?", "answer": answer, "turns": [turn.tid],
                "quote": " ".join(words[3:8])}
        corpus = "\n".join(t.content for t in case_turns(case)).lower()
        assert check(item, {t.tid: t for t in case_turns(case)}, corpus) is None, (case.case_id, item)
