"""Batched writes (issue 45) at node level: a server without add_entries keeps one write call per
message, unchanged; a batch the embedded service refuses is sent again one add_entry at a time, so the
case meets the same fate, and leaves the same decision lines, as with `write_batch = 0`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from benchmarker.datasets.schema import Case
from benchmarker.errors import MemoryToolError
from benchmarker.graph.ingest import ingest
from benchmarker.graph.replay import replay_into_memory
from benchmarker.log.jsonl import read_jsonl
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from benchmarker.run.replay_source import RecordedWrite
from tests.fakes.mcp_memory import FakeMemoryServer
from tests.graph.support import SAMPLE, cases_of, created_memory, message_count, node_context, runtime, smallest

RAW_LIMIT = 2000  # the service's --max-raw-entry-bytes here: one message of the case goes over it
BATCH = 7
RUN_OWN = {"memory_id", "vault_id", "latency_ms", "ts", "batch", "run_id"}


@pytest.fixture(scope="module")
def strict_service(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("strict-service")
    settings = ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="none", alpha=0.0,
                               max_raw_entry_bytes=RAW_LIMIT)
    with EmbeddedMemoryService(settings, log_path=root / "service.log") as service:
        yield service


def _batched(config, size: int):
    return config.model_copy(update={"memory": config.memory.model_copy(update={"write_batch": size})})


def _with_long_message(case: Case, at: int) -> Case:
    """The case with its `at`-th message (counted across sessions) made longer than RAW_LIMIT bytes."""
    sessions, seen = [], 0
    for session in case.sessions:
        messages = list(session.messages)
        if seen <= at < seen + len(messages):
            messages[at - seen] = dataclasses.replace(messages[at - seen], content="far too long " * 200)
        seen += len(messages)
        sessions.append(dataclasses.replace(session, messages=tuple(messages)))
    return dataclasses.replace(case, sessions=tuple(sessions))


def _without(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without(v) for k, v in value.items() if k not in RUN_OWN}
    return value


def _writes(ctx, caller: str) -> list[dict[str, Any]]:
    ctx.log.close()
    return [d for d in read_jsonl(ctx.log.decisions_path) if d["caller"] == caller and d["tool"] == "add_entry"]


async def _entries(client: MemoryClient, memory) -> list[tuple[str, str, dict[str, Any]]]:
    await client.await_consistency(memory.memory_id)
    return [(e["rawEntry"], e["summary"], _without(e["tags"]))
            for e in await client.list_all_entries(memory.vault_id, memory.memory_id)]


async def test_a_server_without_add_entries_gets_one_write_call_per_message(write_config):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    assert config.memory.write_batch > 1  # the default batches where the server can take it
    with FakeMemoryServer() as server:
        async with MemoryClient.connect(server.url) as connected:
            assert "add_entries" not in connected.tool_names()
            tried: list[str] = []  # every tool the harness sent, refused ones included
            client = connected.with_observer(lambda tool, *_: tried.append(tool))
            ctx = node_context(config, None, client)
            case = smallest(cases_of(config))
            memory = (await ingest(await created_memory(ctx, case), runtime(ctx)))["memory"]
        sent = [args for tool, args in server.calls if tool == "add_entry"]
    lines = _writes(ctx, "retrieval")
    assert "add_entries" not in tried and tried.count("add_entry") == len(sent)
    assert len(sent) == len(lines) == message_count(case) == memory.entries == memory.stored
    assert [line["args"] for line in lines] == sent  # one call per message, in order, as logged
    assert all("batch" not in line and line["error"] is None for line in lines)


@pytest.mark.parametrize("bad", [0, 5, 8])  # first of a batch, inside the first one, inside the second one
async def test_a_refused_batch_fails_the_retrieval_case_as_one_by_one_does(strict_service, write_config, tmp_path: Path,
                                                                          bad: int):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    case = _with_long_message(smallest(cases_of(config)), bad)
    outcomes, sizes = [], []
    async with MemoryClient.connect(strict_service.mcp_url, headers=strict_service.auth_headers) as client:
        for size in (0, BATCH):
            ctx = node_context(_batched(config, size), tmp_path / f"batch-{size}", client)
            state = await created_memory(ctx, case)
            with pytest.raises(MemoryToolError) as refused:
                await ingest(state, runtime(ctx))
            written = _writes(ctx, "retrieval")
            sizes.append([line.get("batch") for line in written])
            outcomes.append((str(refused.value), await _entries(client, state["memory"]),
                             [_without(line) for line in written]))
    (error, stored, lines), batched = outcomes
    assert batched == outcomes[0]
    whole = bad // BATCH * BATCH  # the batches before the refused one went out whole
    assert sizes == [[None] * (bad + 1), [BATCH] * whole + [None] * (bad + 1 - whole)]
    assert error.startswith("add_entry: add_entry: raw_entry") and len(stored) == bad  # up to the refused one
    assert len(lines) == bad + 1 and lines[-1]["error"] and not any(line["error"] for line in lines[:-1])


async def test_a_refused_batch_in_a_replay_counts_one_failed_write_and_goes_on(strict_service, write_config,
                                                                              tmp_path: Path):
    config = write_config(SAMPLE)
    bad = 3
    case = _with_long_message(smallest(cases_of(config)), bad)
    recorded = [RecordedWrite("add_entry", {"vault_id": "v", "memory_id": "m", "raw_entry": f"[{s.date}] {m.role}: {m.content}",
                                            "summary": m.content[:80], "tags": {"session_id": s.session_id, "turn_index": i}},
                              case.questions[0].question_id, s.session_id, i)
                for s in case.sessions for i, m in enumerate(s.messages)]

    class Recorded:
        def writes_for(self, case_id: str) -> list[RecordedWrite]:
            return recorded

    outcomes = []
    async with MemoryClient.connect(strict_service.mcp_url, headers=strict_service.auth_headers) as client:
        for size in (0, BATCH):
            ctx = node_context(_batched(config, size), tmp_path / f"batch-{size}", client)
            memory = (await created_memory(ctx, case))["memory"]
            counts = await replay_into_memory(ctx, Recorded(), case, memory)  # type: ignore[arg-type]
            outcomes.append((counts, await _entries(client, memory), [_without(line) for line in _writes(ctx, "replay")]))
    (counts, stored, lines), batched = outcomes
    assert batched == outcomes[0]
    assert counts == (len(recorded) - 1, 1) and len(stored) == len(recorded) - 1
    assert [line["error"] is not None for line in lines] == [i == bad for i in range(len(recorded))]
