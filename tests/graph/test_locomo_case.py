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

FIXTURE = Path(__file__).parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"
LOCOMO = f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"'


async def test_a_conversation_is_ingested_once_and_a_rerun_asks_only_what_is_left(write_config, client, capsys):
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

    from benchmarker.graph.progress import RunProgress

    shown = RunProgress(6, enabled=True, stats=lambda: {"tokens": 0, "cost_usd": 0.0})  # not a terminal: lines
    second = node_context(config, None, client, progress=shown)  # a new process over the same run directory
    assert await run_cases(cases, second, setup) == (["conv-26", "conv-30"], [])
    conv30 = [line for line in capsys.readouterr().err.splitlines() if "conv-30" in line]
    # a conversation with a single question still gets its "answered" line before the case's own line
    assert len(conv30) == 2 and "conv-30-q001 answered" in conv30[0] and "answered" not in conv30[1]
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


def test_off_a_terminal_a_long_case_logs_a_status_line_at_the_interval_and_names_the_sweep_point(capsys, monkeypatch):
    from benchmarker.graph import progress as progress_module

    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    with progress_module.RunProgress(3, enabled=True, stats=lambda: {"tokens": 7, "cost_usd": 0.0},
                                     title="point 2/4 alpha=0.5_topk=10", interval_s=30) as progress:
        progress.set_phase("ingest")
        for _ in range(100):              # 100 tool calls over 99 s of a conversation that has no answer yet
            clock[0] += 1.0
            progress.add_tool_calls()
        progress.question_done("conv-26: done", 3)
    lines = capsys.readouterr().err.splitlines()
    status = [line for line in lines if "ingest: working" in line]
    assert len(status) == 3               # at 30 s, 60 s and 90 s: never silent for longer than the interval
    assert all(line.startswith("[0/3] point 2/4 alpha=0.5_topk=10  ingest: working") for line in status)
    assert "tools 30" in status[0] and "tok 7" in status[0]
    assert lines[-1].startswith("[3/3] point 2/4 alpha=0.5_topk=10  conv-26: done")
