"""Retrieval mode on the embedded service: ingestion logs every memory call it makes, and the summary
and report say which index ran and count only tool calls as tool calls."""

from __future__ import annotations

from benchmarker.graph.ingest import ingest
from benchmarker.graph.qa import qa
from benchmarker.graph.scoring import score_answers
from benchmarker.graph.summarise import summarise
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.summary import build_summary
from tests.graph.support import SAMPLE, cases_of, created_memory, lines, message_count, node_context, runtime, smallest


async def test_retrieval_ingestion_logs_each_write_and_the_wait(client, write_config):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    ctx = node_context(config, None, client)
    case = smallest(cases_of(config))
    state = await created_memory(ctx, case)
    memory = (await ingest(state, runtime(ctx)))["memory"]
    ctx.log.close()
    decisions = lines(ctx.log.decisions_path)
    mine = [d for d in decisions if d["caller"] == "retrieval"]
    adds = [d for d in mine if d["tool"] == "add_entry"]
    assert len(adds) == message_count(case) == memory.entries
    first = case.sessions[0]
    assert (adds[0]["session_id"], adds[0]["turn"]) == (first.session_id, 0)
    assert adds[0]["args"]["tags"]["session_id"] == first.session_id
    assert adds[0]["args"]["memory_id"] == memory.memory_id
    assert all(d["latency_ms"] > 0 and d["error"] is None for d in mine)
    assert [d["tool"] for d in mine[len(adds):]] == ["await_consistency"]
    assert ctx.progress.tool_calls == len(mine)

    speed = build_summary([], run_meta={"decisions": decisions}, suites=SUITE_LOOKUP).as_dict()["speed"]
    assert set(speed["tool_latency_by_tool_ms"]) == {"add_entry", "await_consistency"}  # no `_ingest_done`
    assert speed["tool_latency_ms"]["n"] == len(mine)


async def test_summarise_of_a_retrieval_run_names_the_index_and_keeps_tool_stats_to_tool_calls(write_config, client):
    config = write_config(SAMPLE, run='mode = "retrieval"', params="top_k = 5")
    ctx = node_context(config, None, client)
    state = await created_memory(ctx, smallest(cases_of(config)))
    state |= await ingest(state, runtime(ctx))
    state |= await qa(state, runtime(ctx))
    await score_answers(state, runtime(ctx))
    summary = (await summarise({}, runtime(ctx)))["summary"].as_dict()
    assert summary["run"]["memory"] == {"backend": "embedded", "embedder": "none", "alpha": 0.0}
    assert (summary["run"]["top_k"], summary["offline"], summary["counts"]["unjudged"]) == (5, False, 0)
    assert "_ingest_done" not in summary["speed"]["tool_latency_by_tool_ms"]
    assert summary["speed"]["tool_latency_by_tool_ms"]["search_memories"]["n"] == 1
    assert (summary["qa"]["unjudged"], summary["qa"]["not_graded"], summary["qa"]["overall"]["n"]) == (0, 1, 0)
    ctx.log.close()
    searches = [d for d in lines(ctx.log.decisions_path) if d["tool"] == "search_memories"]
    assert [d["caller"] for d in searches] == ["retrieval"]  # the measured search, not a harness lookup
    report = (config.run_dir / "report.md").read_text(encoding="utf-8")
    assert "embedder `none` (BM25 only), alpha `0.0` (the service's), top_k `5`" in report
    scores, validity = report.split("## Validity")  # the verdict lists every check; judging ones do not apply
    assert "## Worst questions by retrieval" in validity and "unjudged" not in scores
    assert "Not applicable here (retrieval mode: nothing is judged): `unjudged`, `judge_errors`" in validity
