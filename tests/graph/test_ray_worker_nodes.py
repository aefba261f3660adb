"""The case graph as a Ray worker runs it, without Ray: nodes over a `CollectingLog`, on the real
embedded service. Which memory a case may reuse is decided by who holds it (`held_by`)."""

from __future__ import annotations

import dataclasses

from benchmarker.graph.build import CASE_GRAPH
from benchmarker.graph.memory_setup import prepare_memory
from benchmarker.log.collect import CaseSlice, CollectingLog
from benchmarker.log.records import AnswerRecord, MemoryRecord, ResultRecord
from benchmarker.log.store import RunLog
from tests.graph.support import SAMPLE, cases_of, lines, node_context, runtime, setup_state, with_memory


async def _held_elsewhere(write_config, client, *, answered: bool):
    """A case whose finished memory a gone Ray worker held; `answered`: every question has an answer."""
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = cases_of(config)[0]
    state = {"case": case, **await setup_state(ctx)}
    gone = MemoryRecord(case_id=case.case_id, memory_id="m-on-a-dead-worker", vault_id="v", title="t", attempt=1,
                        status="ingested", ingested=True, held_by="ray:w0-dead")
    ctx.log.append(gone)
    if answered:
        for q in case.questions:
            ctx.log.append(AnswerRecord(case_id=case.case_id, question_id=q.question_id, question=q.question,
                                        answer=q.answer, hypothesis="x"))
    return ctx, state


async def test_a_memory_held_by_a_gone_worker_is_ingested_again_when_questions_remain(write_config, client):
    ctx, state = await _held_elsewhere(write_config, client, answered=False)
    memory = (await prepare_memory(state, runtime(ctx)))["memory"]
    assert (memory.attempt, memory.status, memory.held_by) == (2, "created", None)  # this run's own server
    assert memory.memory_id != "m-on-a-dead-worker"


async def test_a_finished_case_whose_memory_is_gone_is_scored_from_its_logs(write_config, client):
    ctx, state = await _held_elsewhere(write_config, client, answered=True)
    memory = (await prepare_memory(state, runtime(ctx)))["memory"]
    assert memory.memory_id == "m-on-a-dead-worker" and memory.attempt == 1  # nothing to ask: no new ingestion
    assert len(lines(ctx.log.memories_path)) == 1


async def test_the_worker_that_holds_a_memory_reuses_it(write_config, client):
    ctx, state = await _held_elsewhere(write_config, client, answered=False)
    mine = with_memory(ctx, holder="ray:w0-dead")
    assert (await prepare_memory(state, runtime(mine)))["memory"].memory_id == "m-on-a-dead-worker"


async def test_a_case_on_a_collecting_log_writes_nothing_and_hands_back_every_record(write_config, client, tmp_path):
    """Two sweep points on one worker: one ingestion, answers per point, all records in order;
    the driver's RunLog, appending them, ends with what a local run writes."""
    config = write_config(SAMPLE, run='mode = "retrieval"')
    base = node_context(config, None, client)
    setup = (await setup_state(base))["setup"]
    case = cases_of(config)[0]
    driver_logs = [RunLog(config.run_dir), RunLog(config.run_dir, answers_dir=config.run_dir / "points" / "k3")]
    slice_ = CaseSlice.from_logs(case, driver_logs, reads_trace=False)
    collected, logs = CollectingLog.for_points(slice_, run_dir=tmp_path / "worker")
    for point_log, top_k in zip(logs, (10, 3)):
        point = dataclasses.replace(base.point, search=dataclasses.replace(base.search, top_k=top_k))
        ctx = dataclasses.replace(with_memory(base, holder="ray:w1"), log=point_log, point=point)
        final = await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=ctx)
        assert {r.question_id for r in final["results"]} == {q.question_id for q in case.questions}
    assert not (config.run_dir / "memories.jsonl").exists() and not (tmp_path / "worker").exists()
    points = [p for p, _ in collected.records]
    memories = [r for _, r in collected.records if isinstance(r, MemoryRecord)]
    assert [m.status for m in memories] == ["created", "ingested"] and {m.held_by for m in memories} == {"ray:w1"}
    results = [(p, r) for p, r in collected.records if isinstance(r, ResultRecord)]
    assert sorted(p for p, _ in results) == [0] * len(case.questions) + [1] * len(case.questions)
    assert points == sorted(points)  # point 1 only after point 0 finished
    top3 = [r for p, r in results if p == 1]
    assert all(len(r.retrieved) <= 3 for r in top3)


async def test_a_level_scored_on_a_worker_equals_the_local_score_and_a_lost_attempt_leaves_no_trace(
        write_config, client, tmp_path):
    """L13 scores the agent's tool calls: on a worker they come from the collecting log. A worker
    that dies mid-case returns nothing, so the driver's log stays empty and the re-run (from the
    same slice) writes exactly what one local run writes."""
    from benchmarker.log.records import LevelRecord
    from tests.graph.support import LEVEL_L13

    config = write_config(LEVEL_L13)
    (case,) = cases_of(config)
    local = node_context(config, tmp_path / "local-run", client)
    setup = (await setup_state(local))["setup"]
    await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=local)
    local.log.close()
    local_level = lines(local.log.path_of("levels.jsonl"))

    driver = RunLog(config.run_dir)
    slice_ = CaseSlice.from_logs(case, [driver], reads_trace=True)
    lost, _ = CollectingLog.for_points(slice_, run_dir=tmp_path / "w0")   # the attempt whose worker died:
    del lost                                                              # its records never reach the driver
    collected, (worker_log,) = CollectingLog.for_points(slice_, run_dir=tmp_path / "w1")
    worker = dataclasses.replace(with_memory(local, holder="ray:w1"), log=worker_log)
    await CASE_GRAPH.ainvoke({"case": case, "setup": setup}, context=worker)
    for _, record in collected.records:   # what RayExecutor._write does
        driver.append(record)
    driver.close()
    (level,) = [r for _, r in collected.records if isinstance(r, LevelRecord)]
    written = lines(driver.path_of("levels.jsonl"))
    assert written[0]["score"] == local_level[0]["score"] and written[0]["detail"] == local_level[0]["detail"]
    assert level.score == written[0]["score"]
    assert [m["status"] for m in lines(driver.memories_path)] == ["created", "ingested"]
    assert len(lines(driver.results_path)) == len(case.questions) == len(lines(driver.hypotheses_path))
    agent_calls = [d for d in lines(driver.decisions_path) if d["caller"] == "agent"]
    assert agent_calls and len(agent_calls) == len([d for d in lines(local.log.decisions_path) if d["caller"] == "agent"])
