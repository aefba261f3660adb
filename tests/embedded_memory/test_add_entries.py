"""add_entries, the embedded service's batched add_entry (issue 45), over real streamable HTTP: a batch
stores exactly what the same add_entry calls one by one store (text, summary, tags, order, search
scores), or nothing at all when any item is bad, and masks credentials as add_entry does."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarker.errors import MemoryToolError
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from tests.log.test_mask_before_cut import SECRETS, leaks
from tests.verbs.test_replay import stored_in

MAX_BATCH = 6
ITEMS = [
    {"raw_entry": "[2023/05/01] user: My hamster Peanut eats sunflower seeds", "summary": "hamster Peanut diet",
     "tags": {"session_id": "s1", "turn_index": 0, "role": "user"}},
    {"raw_entry": "[2023/05/01] assistant: Sunflower seeds are fine in moderation", "summary": "",
     "tags": {"session_id": "s1", "turn_index": 1, "role": "assistant"}},
    {"raw_entry": "[2023/05/02] user: I booked a flight to Lisbon for July 14", "summary": "flight to Lisbon"},
    {"raw_entry": "[2023/05/02] user: The flight to Lisbon leaves at 7am", "summary": "Lisbon flight time",
     "tags": {"session_id": "s2", "turn_index": 1, "nested": {"a": [1, 2]}}},
    {"raw_entry": "[2023/05/03] user: Peanut the hamster turned two", "summary": "Peanut birthday",
     "tags": {"session_id": "s3", "turn_index": 0}},
]
QUERIES = ["hamster food", "when does the Lisbon flight leave", "Peanut", "sunflower seeds moderation"]


def _settings(root: Path, **overrides: Any) -> ServiceSettings:
    """The service under test: at most MAX_BATCH entries a call, raw entries up to 90 bytes (every ITEMS
    text fits)."""
    return ServiceSettings(port=0, db_path=str(root / "memory.sqlite"), embedder="static",
                           max_batch_entries=MAX_BATCH, max_raw_entry_bytes=90, **overrides)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("add-entries")
    with EmbeddedMemoryService(_settings(root), log_path=root / "service.log") as service:
        yield service


@asynccontextmanager
async def _client(service: EmbeddedMemoryService) -> AsyncIterator[MemoryClient]:
    async with MemoryClient.connect(service.mcp_url, headers=service.auth_headers) as client:
        yield client


async def _memory(client: MemoryClient, title: str) -> tuple[str, str]:
    vault_id = await client.ensure_vault("batch-tests")
    created = await client.call_json("create_memory_in_vault", {"vault_id": vault_id, "title": title,
                                                                "memory_type": "NOTES", "description": ""})
    return vault_id, created["memoryId"]


async def _one_by_one(client: MemoryClient, vault_id: str, memory_id: str, items: list[dict[str, Any]]) -> None:
    for item in items:
        assert await client.call("add_entry", {"vault_id": vault_id, "memory_id": memory_id, **item}) == "enqueued"


def _fields(entries: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e["rawEntry"], e["summary"], e["tags"]) for e in entries]


def _hits(found: dict[str, Any]) -> list[tuple[str, str, float]]:
    return [(e["rawEntry"], e["summary"], e["score"]) for e in found["entries"]]


async def test_a_batch_stores_what_the_same_add_entry_calls_store(server) -> None:
    async with _client(server) as client:
        assert "add_entries" in client.tool_names()
        vault_id, batched = await _memory(client, "batched")
        _, single = await _memory(client, "single")
        reply = json.loads(await client.call("add_entries", {"vault_id": vault_id, "memory_id": batched,
                                                             "entries": ITEMS[:3]}))
        assert reply == {"status": "enqueued", "count": 3}
        assert json.loads(await client.call("add_entries", {"vault_id": vault_id, "memory_id": batched,
                                                            "entries": ITEMS[3:]}))["count"] == 2
        await _one_by_one(client, vault_id, single, ITEMS)
        for memory_id in (batched, single):
            assert await client.await_consistency(memory_id) == "consistent"

        stored = await client.list_all_entries(vault_id, batched)
        expected = [(i["raw_entry"], i["summary"], i.get("tags", {})) for i in ITEMS]
        assert _fields(stored) == _fields(await client.list_all_entries(vault_id, single)) == expected
        times = [e["creationTime"] for e in stored]
        assert times == sorted(times) and len(set(times)) == len(times)  # list order is creation order
        assert _rows(server, batched) == _rows(server, single) == expected  # and the write order (seq)
        for query in QUERIES:
            got, want = await client.search(batched, query, top_k=5), await client.search(single, query, top_k=5)
            assert _hits(got) == _hits(want) and got["entries"], query


@pytest.mark.parametrize(("bad", "argument", "where"), [
    ({"summary": "no raw text"}, "entries[{i}].raw_entry", 0),
    ({"raw_entry": "x", "summary": "s", "tags": "not an object"}, "entries[{i}].tags", 2),
    ({"raw_entry": "x", "summary": "s", "memo": "?"}, "entries[{i}].memo", 4),
    ({"raw_entry": "x" * 100, "summary": "s"}, "entries[{i}].raw_entry", 4),  # over max_raw_entry_bytes
    ("just text", "entries[{i}]", 3),
])
async def test_one_bad_item_anywhere_stores_nothing_and_names_it(server, bad: Any, argument: str,
                                                                  where: int) -> None:
    items: list[Any] = [dict(item) for item in ITEMS]
    items[where] = bad
    async with _client(server) as client:
        vault_id, memory_id = await _memory(client, f"refused-{uuid.uuid4().hex[:12]}")
        with pytest.raises(MemoryToolError) as refused:
            await client.call("add_entries", {"vault_id": vault_id, "memory_id": memory_id, "entries": items})
        assert refused.value.message.startswith(f"add_entries: {argument.format(i=where)}"), refused.value.message
        await client.await_consistency(memory_id)
        assert await client.list_all_entries(vault_id, memory_id) == []
    assert _stored_rows(server, memory_id) == 0


def _rows(service: EmbeddedMemoryService, memory_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(raw_entry, summary, tags) of a memory's rows in memory.sqlite, in write order."""
    return stored_in(service.settings.db_path, memory_id)


def _stored_rows(service: EmbeddedMemoryService, memory_id: str) -> int:
    """Entries of a memory in the service's SQLite file (what survives a restart)."""
    return len(_rows(service, memory_id))


async def test_more_than_max_batch_entries_is_refused_whole(server) -> None:
    items = [{"raw_entry": f"fact number {n}", "summary": ""} for n in range(MAX_BATCH + 1)]
    async with _client(server) as client:
        vault_id, memory_id = await _memory(client, "too-many")
        with pytest.raises(MemoryToolError) as refused:
            await client.call("add_entries", {"vault_id": vault_id, "memory_id": memory_id, "entries": items})
        assert refused.value.message.startswith("add_entries: entries:") and f"limit is {MAX_BATCH}" in refused.value.message
        for empty in ([], "not a list"):
            with pytest.raises(MemoryToolError, match=r"add_entries: entries:"):
                await client.call("add_entries", {"vault_id": vault_id, "memory_id": memory_id, "entries": empty})
        assert json.loads(await client.call("add_entries", {"vault_id": vault_id, "memory_id": memory_id,
                                                            "entries": items[:MAX_BATCH]}))["count"] == MAX_BATCH
    assert _stored_rows(server, memory_id) == MAX_BATCH


async def test_a_wrong_vault_or_unknown_memory_is_refused_by_name(server) -> None:
    async with _client(server) as client:
        vault_id, memory_id = await _memory(client, "owner")
        other_vault = await client.ensure_vault("batch-tests-other")
        cases = [({"vault_id": other_vault, "memory_id": memory_id}, "add_entries: memory_id"),
                 ({"vault_id": vault_id, "memory_id": "no-such-memory"}, "add_entries: memory_id"),
                 ({"vault_id": "no-such-vault", "memory_id": memory_id}, "add_entries: vault_id")]
        for where, prefix in cases:
            with pytest.raises(MemoryToolError) as refused:
                await client.call("add_entries", {**where, "entries": ITEMS[:2]})
            assert refused.value.message.startswith(prefix), refused.value.message
    assert _stored_rows(server, memory_id) == 0


async def _secret_texts(service: EmbeddedMemoryService) -> str:
    """Batch two entries holding each credential (in raw_entry, summary and tags), return what is stored."""
    items = [{"raw_entry": f"my key is {secret}, keep it safe", "summary": f"key {secret}",
              "tags": {"note": secret}} for secret in SECRETS]
    async with _client(service) as client:
        vault_id, memory_id = await _memory(client, "secrets")
        await client.call("add_entries", {"vault_id": vault_id, "memory_id": memory_id, "entries": items})
        await client.await_consistency(memory_id)
        listed = json.dumps(await client.list_all_entries(vault_id, memory_id))
    db = sqlite3.connect(f"file:{service.settings.db_path}?mode=ro", uri=True)
    try:
        rows = [json.dumps(row) for row in db.execute("SELECT raw_entry, summary, tags FROM entries")]
    finally:
        db.close()
    return listed + "\n".join(rows)


async def test_credentials_are_masked_as_add_entry_masks_them(server) -> None:
    stored = await _secret_texts(server)
    assert "keep it safe" in stored and "***" in stored
    assert not any(leaks(stored, secret) for secret in SECRETS)


async def test_store_secrets_keeps_batched_text_as_written(tmp_path: Path) -> None:
    with EmbeddedMemoryService(_settings(tmp_path, store_secrets=True), log_path=tmp_path / "service.log") as service:
        stored = await _secret_texts(service)
    assert all(stored.count(secret) >= 3 for secret in SECRETS)
