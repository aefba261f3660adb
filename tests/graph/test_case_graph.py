"""The whole case graph (prepare_memory -> ingest -> qa -> score) on one level case, stopped part-way
(a reader or a sink raising stands for a killed process) and run again by a new process over the same
run directory: every question answered and scored exactly once, scored on this memory's own trace."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import pytest

from benchmarker.suites.levels.data import build_level
from benchmarker.graph.build import CASE_GRAPH, run_cases
from benchmarker.suites.levels.scoring import score_level
from tests.graph.support import LEVEL_L13, cases_of, lines, node_context, setup_state


class Killed(Exception):
    """Stands for the process dying (a real KeyboardInterrupt would stop the test's event loop)."""


class KilledAfter:
    """The reader, dying (as a killed process would) once it has answered `n` questions."""

    def __init__(self, model, n: int):
        self.model, self.n, self.calls = model, n, 0

    async def ainvoke(self, *args, **kwargs):
        if self.calls >= self.n:
            raise Killed("killed mid-qa")
        self.calls += 1
        return await self.model.ainvoke(*args, **kwargs)


async def test_case_graph_killed_mid_qa_then_rerun_loses_and_repeats_nothing(write_config, client):
    config = write_config(LEVEL_L13)
    (case,) = cases_of(config)
    questions = [q.question_id for q in case.questions]
    assert len(questions) >= 2
    first = node_context(config, None, client)
    setup = (await setup_state(first))["setup"]
    first = dataclasses.replace(first, subject=dataclasses.replace(
        first.agent_subject, reader=KilledAfter(first.agent_subject.reader, 1)))
    with pytest.raises(Killed):
        await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=first)
    first.log.close()
    log = first.log
    assert [a["question_id"] for a in lines(log.answers_path)] == questions[:1]
    assert lines(log.results_path) == []
    adds = [d for d in lines(log.decisions_path) if d["caller"] == "agent" and d["tool"] == "add_entry"]
    memories = lines(log.memories_path)
    assert [m["status"] for m in memories] == ["created", "ingested"]

    second = node_context(config, None, client)  # a new process over the same run directory
    final = await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=second)
    second.log.close()
    assert [a.question_id for a in final["answers"]] == questions
    assert final["answers"][0].to_line() == lines(log.answers_path)[0]  # the first answer is kept as written
    assert [r.question_id for r in final["results"]] == questions
    assert sorted(a["question_id"] for a in lines(log.answers_path)) == sorted(questions)
    assert sorted(h["question_id"] for h in lines(log.hypotheses_path)) == sorted(questions)
    assert sorted(r["question_id"] for r in lines(log.results_path)) == sorted(questions)
    assert [lv["case_id"] for lv in lines(log.path_of("levels.jsonl"))] == [case.case_id]
    assert lines(log.memories_path) == memories  # the ingested memory was reused, not re-created
    assert [d for d in lines(log.decisions_path) if d["caller"] == "agent" and d["tool"] == "add_entry"] == adds
    stored = await client.list_all_entries(memories[-1]["vault_id"], memories[-1]["memory_id"])
    assert len(stored) == memories[-1]["entries"]  # no entry written twice

    third = node_context(config, None, client)  # once more: all done, nothing is written
    assert await run_cases([case], third, setup) == ([case.case_id], [])
    third.log.close()
    assert not log.path_of("errors.jsonl").exists()
    counts = Counter(r["question_id"] for r in lines(log.results_path))
    assert set(counts.values()) == {1} and len(lines(log.answers_path)) == len(questions)


async def test_an_eval_only_run_scores_the_answers_an_earlier_run_wrote(write_config, client):
    config = write_config(LEVEL_L13)
    (case,) = cases_of(config)
    first = node_context(config, None, client, phases=("ingest", "qa"))
    setup = (await setup_state(first))["setup"]
    answered = await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=first)
    first.log.close()
    assert len(answered["answers"]) == len(case.questions) and lines(first.log.results_path) == []

    eval_only = node_context(config, None, client, phases=("eval",))
    final = await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=eval_only)
    eval_only.log.close()
    questions = sorted(q.question_id for q in case.questions)
    assert sorted(r["question_id"] for r in lines(first.log.results_path)) == questions
    assert len(final.get("results") or []) == len(case.questions)


class DiesAfterToolCalls:
    """Progress that kills the process (raises) at the memory agent's n-th tool call."""

    def __init__(self, progress, n: int):
        self.progress, self.left = progress, n

    def __getattr__(self, name):
        return getattr(self.progress, name)

    def add_tool_calls(self, count: int = 1) -> None:
        self.left -= count
        if self.left < 0:
            raise Killed("killed mid-ingestion")


async def test_a_resumed_L13_score_uses_only_the_finished_attempts_trace(write_config, client):
    config = write_config(LEVEL_L13)
    (case,) = cases_of(config)
    first = node_context(config, None, client)
    setup = (await setup_state(first))["setup"]
    first = dataclasses.replace(first, progress=DiesAfterToolCalls(first.progress, 8))
    with pytest.raises(Killed):
        await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=first)
    first.log.close()
    second = node_context(config, None, client, phases=("ingest",))  # ingests attempt 2, then the process ends
    await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=second)
    second.log.close()
    memory = second.log.done.memories[case.case_id]
    assert (memory.attempt, memory.ingested) == (2, True)

    third = node_context(config, None, client)
    await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=third)
    third.log.close()
    (level,) = lines(third.log.path_of("levels.jsonl"))
    own_calls = [d for d in lines(third.log.decisions_path)
                 if d["caller"] == "agent" and d["args"].get("memory_id") == memory.memory_id]
    spec = build_level("L13", case.metadata["seed"], context_cadence=memory.context_cadence)
    answers = {r["question_id"]: r["hypothesis"] for r in lines(third.log.results_path)}
    expected = score_level(spec, answers, decisions=own_calls,
                           bindings={"vault_id": memory.vault_id, "memory_id": memory.memory_id})
    assert level["detail"] == json.loads(json.dumps(expected["detail"])) and level["score"] == expected["score"]
