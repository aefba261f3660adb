"""setup, prepare_memory, ingest and qa, each called as a plain async function on a real embedded
service with the offline models."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchmarker.errors import UserError
from benchmarker.graph.ingest import ingest
from benchmarker.graph.memory_setup import prepare_memory
from benchmarker.graph.qa import qa
from benchmarker.graph.setup import setup
from benchmarker.memory.titles import memory_title
from tests.graph.support import (
    LEVEL_L13,
    SAMPLE,
    cases_of,
    created_memory,
    ingested,
    lines,
    message_count,
    node_context,
    runtime,
    setup_state,
    smallest,
    with_memory,
)

# --- setup ---------------------------------------------------------------------------------------

async def test_setup_returns_the_vault_and_mycelians_default_prompts(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    update = await setup({}, runtime(ctx))
    vault_id = update["setup"]["vault_id"]
    assert vault_id and vault_id == await client.ensure_vault(config.vault_title)  # the config's vault
    prompts = update["setup"]["default_prompts"]
    assert prompts == await client.get_default_prompts("chat") and prompts.get("templates")


async def test_setup_in_retrieval_mode_needs_no_prompts(write_config, client):
    ctx = node_context(write_config(SAMPLE, run='mode = "retrieval"'), None, client)
    update = await setup({}, runtime(ctx))
    assert update["setup"]["vault_id"] and update["setup"]["default_prompts"] == {}


async def test_setup_once_per_run_a_sweep_point_reuses_it(write_config, client):
    ctx = node_context(write_config(SAMPLE), None, client)
    known = {"vault_id": "v-known", "default_prompts": {"version": "x"}}
    assert await setup({"setup": known}, runtime(ctx)) == {}


async def test_setup_names_a_required_tool_the_server_lacks(write_config, client):
    ctx = node_context(write_config(SAMPLE), None, client)
    without_search = SimpleNamespace(tools=[t for t in client.tools if t.name != "search_memories"])
    with pytest.raises(UserError, match="search_memories"):
        await setup({}, runtime(with_memory(ctx, client=without_search)))


# --- prepare_memory ------------------------------------------------------------------------------

async def test_prepare_memory_creates_one_memory_with_the_configured_cadence(write_config, client):
    config = write_config(SAMPLE, params="context_cadence = 4")
    ctx = node_context(config, None, client)
    case = cases_of(config)[0]
    update = await prepare_memory({"case": case, **await setup_state(ctx)}, runtime(ctx))
    memory = update["memory"]
    assert (memory.case_id, memory.status, memory.ingested, memory.attempt, memory.context_cadence) == \
        (case.case_id, "created", False, 1, 4)
    assert memory.memory_id and memory.title == memory_title(config.params.memory_title_template, case.case_id,
                                                             config.run_id, 1)
    written = lines(ctx.log.memories_path)
    assert [(m["case_id"], m["memory_id"], m["status"]) for m in written] == \
        [(case.case_id, memory.memory_id, "created")]


async def test_prepare_memory_reuses_a_finished_ingestion(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = cases_of(config)[0]
    state = {"case": case, **await setup_state(ctx)}
    created = (await prepare_memory(state, runtime(ctx)))["memory"]
    ctx.log.append(created.model_copy(update={"status": "ingested", "ingested": True, "entries": 7}))
    ctx.log.close()
    resumed = node_context(config, None, client)  # a new process reading the run directory back
    update = await prepare_memory(state, runtime(resumed))
    assert update["memory"].memory_id == created.memory_id and update["memory"].ingested
    assert len(lines(ctx.log.memories_path)) == 2  # nothing new written
    listed = await client.call_json("list_memories", {"vault_id": state["setup"]["vault_id"]})
    assert len(listed) == 1  # nothing new created


async def test_prepare_memory_after_a_cut_off_ingestion_starts_a_new_attempt(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = cases_of(config)[0]
    state = {"case": case, **await setup_state(ctx)}
    cut_off = (await prepare_memory(state, runtime(ctx)))["memory"]  # created, never ingested
    ctx.log.close()
    retry = (await prepare_memory(state, runtime(node_context(config, None, client))))["memory"]
    assert (retry.attempt, retry.status) == (2, "created") and retry.memory_id != cut_off.memory_id
    assert retry.title == memory_title(config.params.memory_title_template, case.case_id, config.run_id, 2)
    assert [(m["attempt"], m["memory_id"]) for m in lines(ctx.log.memories_path)] == \
        [(1, cut_off.memory_id), (2, retry.memory_id)]


async def test_prepare_memory_without_ingest_phase_skips_the_case_and_says_why(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client, phases=("qa", "eval"))
    case = cases_of(config)[0]
    update = await prepare_memory({"case": case, **await setup_state(ctx)}, runtime(ctx))
    assert set(update) == {"skipped"} and case.case_id in update["skipped"] and "ingest" in update["skipped"]
    assert lines(ctx.log.memories_path) == []


# --- ingest --------------------------------------------------------------------------------------

async def test_ingest_with_the_offline_agent_writes_every_message_with_its_trace_tags(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = smallest(cases_of(config))
    messages = message_count(case)
    memory = (await ingest(await created_memory(ctx, case), runtime(ctx)))["memory"]
    assert (memory.status, memory.ingested, memory.entries, memory.failed_turns) == ("ingested", True, messages, 0)
    assert [m["status"] for m in lines(ctx.log.memories_path)] == ["created", "ingested"]
    assert lines(ctx.log.memories_path)[-1]["entries"] == messages
    adds = [d for d in lines(ctx.log.decisions_path) if d["caller"] == "agent" and d["tool"] == "add_entry"]
    assert len(adds) == messages
    expected = {(s.session_id, i) for s in case.sessions for i in range(len(s.messages))}
    tags = [d["args"]["tags"] for d in adds]
    assert {(t["session_id"], int(t["turn_index"])) for t in tags} == expected
    assert {t["case_id"] for t in tags} == {case.case_id}
    traced = ctx.log.agent_tool_calls(case.case_id)
    assert [d.args for d in traced if d.tool == "add_entry"] == [d["args"] for d in adds]
    ctx.log.close()
    from_disk = node_context(config, None, client).log.agent_tool_calls(case.case_id)  # a resumed process
    assert [d.to_line() for d in from_disk] == [d.to_line() for d in traced]
    stored = await client.list_all_entries(memory.vault_id, memory.memory_id)
    assert len(stored) == messages


async def test_ingest_in_retrieval_mode_writes_one_entry_per_message_without_an_agent(write_config, client):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    ctx = node_context(config, None, client)
    assert not ctx.agent_subject.has_agent and ctx.agent_subject.reader is None
    case = smallest(cases_of(config))
    messages = message_count(case)
    memory = (await ingest(await created_memory(ctx, case), runtime(ctx)))["memory"]
    assert (memory.status, memory.entries, memory.agent_usage) == ("ingested", messages, None)
    assert not [d for d in lines(ctx.log.decisions_path) if d["caller"] == "agent"]
    stored = await client.list_all_entries(memory.vault_id, memory.memory_id)
    assert sorted((e["tags"]["session_id"], int(e["tags"]["turn_index"])) for e in stored) == \
        sorted((s.session_id, i) for s in case.sessions for i in range(len(s.messages)))


async def test_ingest_leaves_an_ingested_memory_alone(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = smallest(cases_of(config))
    state = await created_memory(ctx, case)
    done = state["memory"].model_copy(update={"status": "ingested", "ingested": True})
    assert await ingest(state | {"memory": done}, runtime(ctx)) == {}
    assert await client.list_all_entries(done.vault_id, done.memory_id) == []


# --- qa ------------------------------------------------------------------------------------------

async def test_qa_answers_every_question_once_and_a_resumed_qa_writes_nothing(write_config, client):
    config = write_config(LEVEL_L13)
    ctx = node_context(config, None, client)
    case = cases_of(config)[0]
    state = await ingested(ctx, case)
    answers = (await qa(state, runtime(ctx)))["answers"]
    assert [a.question_id for a in answers] == [q.question_id for q in case.questions]
    assert all(a.case_id == case.case_id and a.mode == "agent" and a.offline for a in answers)
    assert all(a.hypothesis and a.get("retrieved") for a in answers)  # the reader answered from hits
    on_disk = lines(ctx.log.answers_path)
    hypotheses = lines(ctx.log.hypotheses_path)
    assert [a["question_id"] for a in on_disk] == [h["question_id"] for h in hypotheses] == \
        [a.question_id for a in answers]
    assert [h["hypothesis"] for h in hypotheses] == [a.hypothesis for a in answers]

    again = (await qa(state, runtime(ctx)))["answers"]  # the same process, after a retry
    ctx.log.close()
    resumed = node_context(config, None, client)  # a new process over the same run directory
    after_resume = (await qa(state, runtime(resumed)))["answers"]
    assert [a.to_line() for a in again] == [a.to_line() for a in after_resume] == [a.to_line() for a in answers]
    assert lines(ctx.log.answers_path) == on_disk and lines(ctx.log.hypotheses_path) == hypotheses


async def test_qa_in_retrieval_mode_returns_ranked_hits_with_their_sessions(write_config, client):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    ctx = node_context(config, None, client)
    case = smallest(cases_of(config))
    state = await ingested(ctx, case)
    (answer,) = (await qa(state, runtime(ctx)))["answers"]
    assert answer.hypothesis == "" and answer.mode == "retrieval"
    hits = answer.get("retrieved")
    assert hits and [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    sessions = {s.session_id for s in case.sessions}
    assert all(h["session_id"] in sessions and h["turn_index"] is not None for h in hits)
    assert lines(ctx.log.hypotheses_path) == [{"question_id": answer.question_id, "hypothesis": ""}]


async def test_qa_without_qa_phase_or_after_a_skip_does_nothing(write_config, client):
    config = write_config(SAMPLE)
    case = smallest(cases_of(config))
    ctx = node_context(config, None, client, phases=("ingest", "eval"))
    assert await qa({"case": case, "skipped": "no memory"}, runtime(ctx)) == {}
    assert await qa({"case": case}, runtime(ctx)) == {}
    assert lines(ctx.log.answers_path) == []
