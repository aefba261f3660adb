"""A LoCoMo conversation is one case: ingested once into one memory, then all its questions asked.
Killed mid-QA and run again, it re-asks only the unanswered questions and never re-ingests."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from benchmarker.graph.build import CASE_GRAPH, run_cases
from tests.graph.support import cases_of, lines, node_context, setup_state
from tests.graph.test_case_graph import Killed, KilledAfter

FIXTURE = Path(__file__).parents[1] / "locomo" / "fixtures" / "locomo_mini.json"
LOCOMO = f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"'


async def test_a_conversation_is_ingested_once_and_a_rerun_asks_only_what_is_left(write_config, client):
    config = write_config(LOCOMO, run='question_ids = ["conv-26-q001", "conv-26-q003", "conv-26-q007", '
                                      '"conv-26-q009_abs", "conv-26-q010_abs", "conv-30-q001"]')
    cases = cases_of(config)
    assert [(c.case_id, len(c.questions)) for c in cases] == [("conv-26", 5), ("conv-30", 1)]
    case = cases[0]
    first = node_context(config, None, client)
    setup = (await setup_state(first))["setup"]
    first = dataclasses.replace(first, subject=dataclasses.replace(
        first.agent_subject, reader=KilledAfter(first.agent_subject.reader, 2)))
    with pytest.raises(Killed):
        await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=first)
    first.log.close()
    log = first.log
    asked = [a["question_id"] for a in lines(log.answers_path)]
    assert asked == ["conv-26-q001", "conv-26-q003"]
    memories = lines(log.memories_path)
    assert [m["status"] for m in memories] == ["created", "ingested"]
    assert memories[-1]["entries"] == sum(len(s.messages) for s in case.sessions)  # every turn, once

    second = node_context(config, None, client)  # a new process over the same run directory
    assert await run_cases(cases, second, setup) == (["conv-26", "conv-30"], [])
    second.log.close()
    answers = lines(log.answers_path)
    assert Counter(a["question_id"] for a in answers) == Counter({q: 1 for q in
                                                                 [q.question_id for c in cases for q in c.questions]})
    assert [m for m in lines(log.memories_path) if m["case_id"] == "conv-26"] == memories  # not re-ingested
    assert [m["status"] for m in lines(log.memories_path) if m["case_id"] == "conv-30"] == ["created", "ingested"]
    by_id = {a["question_id"]: a for a in answers}
    # evidence per question, from its own dia ids (turn i-1 of session N), not the case's
    assert by_id["conv-26-q007"]["evidence_turns"] == [["session_2", 3]]  # D9:99 names no turn: dropped
    assert by_id["conv-26-q007"]["answer_session_ids"] == ["session_2"]
    assert by_id["conv-26-q009_abs"]["is_abstention"] and by_id["conv-26-q009_abs"]["question_type"] == "adversarial"
    assert by_id["conv-26-q003"]["answer"] == "3" and by_id["conv-26-q003"]["category"] == "4"
    assert all(h["session_id"] for a in answers for h in a["retrieved"])  # every hit maps to a session
    tags = {(h["session_id"], h["role"]) for a in answers for h in a["retrieved"]}
    assert {role for _, role in tags} <= {"Caroline", "Melanie", "Jon", "Gina"}  # speakers, not user/assistant


def test_progress_moves_per_question_inside_a_many_question_case(capsys):
    from benchmarker.graph.progress import RunProgress

    with RunProgress(5, enabled=True, stats=lambda: {"tokens": 0, "cost_usd": 0.0}) as progress:
        progress.question_answered("conv-26", "conv-26 q1 answered")
        progress.question_answered("conv-26", "conv-26 q2 answered")
        assert progress.done == 2
        progress.question_done("conv-26: done", 3, case_id="conv-26")  # the case's 3 questions, 2 counted already
        assert progress.done == 3
        progress.question_done("conv-30: done", 2, case_id="conv-30")
        assert progress.done == 5
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == ["[1/5", "[2/5", "[3/5", "[5/5"]
