"""The service layer in-process: flow, consistency, lag, alpha, bad inputs, restart and re-indexing."""

from __future__ import annotations

import asyncio
import time

import pytest

from embedded_memory import indexer as indexer_mod
from embedded_memory.errors import NotFoundError, ServiceError
from embedded_memory.settings import PLACEHOLDER_CONTEXT, ServiceSettings
from tests.embedded_memory.memsvc_support import FakeEmbedder, new_memory, open_service

FACTS = ["I graduated with a degree in Business Administration in 2019.",
         "My hamster is called Peanut and he loves sunflower seeds.",
         "I ran the charity 5K in 25:50, my personal best.",
         "We visited MoMA on 2023-03-04 and the Met a week later."]


async def test_write_await_list_search_context_flow(svc):
    vault_id, memory_id = await new_memory(svc)
    assert svc.get_context(vault_id, memory_id) == PLACEHOLDER_CONTEXT
    for i, fact in enumerate(FACTS):
        assert svc.add_entry(vault_id, memory_id, f"USER: {fact}", fact, {"turn_index": i}) == "enqueued"
    assert svc.put_context(vault_id, memory_id, "facts:\n- hamster Peanut\n- degree Business Administration") == "enqueued"
    assert await svc.await_consistency(memory_id) == "consistent"

    listed = svc.list_entries(vault_id, memory_id, limit=3)
    assert [e["summary"] for e in listed["entries"]] == FACTS[::-1][:3]
    assert listed["count"] == 3 and listed["applied_limit"] == 3 and listed["next_after"] is None
    rest = svc.list_entries(vault_id, memory_id, before=listed["next_before"])
    assert [e["summary"] for e in rest["entries"]] == [FACTS[0]] and rest["next_before"] is None
    entry = listed["entries"][0]
    assert set(entry) == {"entryId", "memoryId", "vaultId", "creationTime", "rawEntry", "summary", "tags"}
    assert svc.get_entry(vault_id, memory_id, entry["entryId"]) == entry and entry["tags"] == {"turn_index": 3}

    result = await svc.search(memory_id, "what is my hamster called", top_k=2)
    assert result["count"] == len(result["entries"]) == 2
    assert "Peanut" in result["entries"][0]["summary"]
    assert result["latestContext"].startswith("facts:") and result["bestContext"].startswith("facts:")
    assert result["bestContextScore"] is not None and result["contextTimestamp"].endswith("Z")
    assert svc.get_context(vault_id, memory_id).startswith("facts:")


async def test_best_context_is_the_matching_version_not_the_latest(svc):
    vault_id, memory_id = await new_memory(svc)
    svc.put_context(vault_id, memory_id, "timeline: marathon training in Boston with coach Rivera")
    svc.put_context(vault_id, memory_id, "preferences: vegetarian cooking, Italian recipes")
    await svc.await_consistency(memory_id)
    result = await svc.search(memory_id, "marathon coach Rivera Boston")
    assert result["latestContext"].startswith("preferences:")
    assert result["bestContext"].startswith("timeline:")


async def test_index_lag_makes_writes_searchable_only_after_the_lag(tmp_path):
    """Like Mycelian's outbox-fed index: consistent at once, searchable only after the lag."""
    svc = open_service(tmp_path / "lag.sqlite", index_lag_ms=600)
    await svc.start()
    try:
        vault_id, memory_id = await new_memory(svc)
        svc.add_entry(vault_id, memory_id, "the zebra escaped", "zebra escaped")
        assert svc.list_entries(vault_id, memory_id)["count"] == 1  # stored at once, just not indexed
        assert svc.health()["pendingIndexJobs"] >= 1
        started = time.monotonic()
        assert await svc.await_consistency(memory_id) == "consistent"
        assert time.monotonic() - started < 0.5  # await_consistency does not wait for the index
        assert (await svc.search(memory_id, "zebra", alpha=0.0))["entries"] == []
        await asyncio.sleep(0.8)
        assert [e["summary"] for e in (await svc.search(memory_id, "zebra", alpha=0.0))["entries"]] == ["zebra escaped"]
    finally:
        await svc.close()


async def test_await_consistency_only_waits_for_its_own_memory(tmp_path):
    svc = open_service(tmp_path / "two.sqlite", index_lag_ms=800)
    await svc.start()
    try:
        vault_id, slow = await new_memory(svc, "slow")
        _, idle = await new_memory(svc, "idle")
        await asyncio.sleep(0.9)  # let the placeholder contexts index
        svc.add_entry(vault_id, slow, "queued", "queued")
        started = time.monotonic()
        assert await svc.await_consistency(idle) == "consistent"
        assert time.monotonic() - started < 0.5
    finally:
        await svc.close()


async def test_per_request_alpha_changes_the_ranking(svc):
    vault_id, memory_id = await new_memory(svc)
    svc.add_entry(vault_id, memory_id, "a", "apple apple banana")
    svc.add_entry(vault_id, memory_id, "b", "cherry date elderberry fig grape")
    await svc.await_consistency(memory_id)
    keyword = await svc.search(memory_id, "banana", alpha=0.0)
    assert [e["summary"] for e in keyword["entries"]] == ["apple apple banana"] and keyword["alpha"] == 0.0
    vector = await svc.search(memory_id, "banana", alpha=1.0)
    assert len(vector["entries"]) == 2 and vector["alpha"] == 1.0  # dense ranks every entry
    assert (await svc.search(memory_id, "banana"))["alpha"] == 0.6  # the service setting
    with pytest.raises(ServiceError, match="^alpha: "):
        await svc.search(memory_id, "banana", alpha=1.5)


async def test_none_embedder_is_bm25_only_and_rejects_alpha(tmp_path):
    with pytest.raises(ValueError, match="alpha"):
        ServiceSettings(embedder="none", alpha=0.6).validate()
    svc = open_service(tmp_path / "none.sqlite", embedder=None)
    await svc.start()
    try:
        vault_id, memory_id = await new_memory(svc)
        svc.add_entry(vault_id, memory_id, "the zebra escaped", "zebra")
        await svc.await_consistency(memory_id)
        assert (await svc.search(memory_id, "zebra"))["count"] == 1
        with pytest.raises(ServiceError, match="^alpha: .*embedder none"):
            await svc.search(memory_id, "zebra", alpha=0.5)
    finally:
        await svc.close()


async def test_bad_inputs_name_the_argument_and_keep_data_intact(svc):
    vault_id, memory_id = await new_memory(svc)
    svc.add_entry(vault_id, memory_id, "kept", "kept")
    other_vault = svc.create_vault("other")["vaultId"]
    cases = [
        ("vault_id", lambda: svc.add_entry("nope", memory_id, "r", "s")),
        ("memory_id", lambda: svc.add_entry(other_vault, memory_id, "r", "s")),
        ("raw_entry", lambda: svc.add_entry(vault_id, memory_id, "x" * (64 * 1024 + 1), "s")),
        ("raw_entry", lambda: svc.add_entry(vault_id, memory_id, "   ", "s")),
        ("raw_entry", lambda: svc.add_entry(vault_id, memory_id, "bad \ud800 text", "s")),
        ("summary", lambda: svc.add_entry(vault_id, memory_id, "r", "\udfff")),
        ("tags", lambda: svc.add_entry(vault_id, memory_id, "r", "s", ["not", "an", "object"])),
        ("content", lambda: svc.put_context(vault_id, memory_id, "")),
        ("limit", lambda: svc.list_entries(vault_id, memory_id, limit=0)),
        ("limit", lambda: svc.list_entries(vault_id, memory_id, limit=51)),
        ("before", lambda: svc.list_entries(vault_id, memory_id, before="yesterday")),
        ("before", lambda: svc.list_entries(vault_id, memory_id, before="2024-01-01T00:00:00Z",
                                            after="2023-01-01T00:00:00Z")),
        ("entry_id", lambda: svc.get_entry(vault_id, memory_id, "missing")),
        ("title", lambda: svc.create_vault("tests")),
        ("title", lambda: svc.create_vault("has_underscore")),
        ("title", lambda: svc.create_memory(vault_id, "x" * 51, "NOTES")),
        ("memory_type", lambda: svc.default_prompts("code-review")),
    ]
    for argument, thunk in cases:
        with pytest.raises(ServiceError) as info:
            thunk()
        assert info.value.argument == argument, (argument, str(info.value))
    for bad_k in (0, 101, 2.5, float("nan"), True):
        with pytest.raises(ServiceError, match="^top_k: "):
            await svc.search(memory_id, "kept", top_k=bad_k)
    with pytest.raises(NotFoundError, match="^memory_id: "):
        await svc.await_consistency("no-such-memory")
    with pytest.raises(ServiceError, match="^query: "):
        await svc.search(memory_id, "")
    await svc.await_consistency(memory_id)
    assert [e["rawEntry"] for e in svc.list_entries(vault_id, memory_id)["entries"]] == ["kept"]
    assert (await svc.search(memory_id, "kept"))["count"] == 1


async def test_lenient_titles_and_no_placeholder_settings(tmp_path):
    svc = open_service(tmp_path / "lenient.sqlite", strict_titles=False, placeholder_context=False)
    await svc.start()
    try:
        vault_id = svc.create_vault("q_1__run")["vaultId"]
        memory_id = svc.create_memory(vault_id, "gpt4_59149c77__a2", "NOTES")["memoryId"]
        with pytest.raises(NotFoundError, match="context not found"):
            svc.get_context(vault_id, memory_id)
        result = await svc.search(memory_id, "anything")
        assert result["latestContext"] == "" and result["contextTimestamp"] is None and result["bestContext"] == ""
    finally:
        await svc.close()


async def test_restart_resumes_pending_indexing(tmp_path):
    db = tmp_path / "resume.sqlite"
    svc = open_service(db, index_lag_ms=60_000)  # nothing gets indexed before we stop
    await svc.start()
    vault_id, memory_id = await new_memory(svc)
    for fact in FACTS:
        svc.add_entry(vault_id, memory_id, fact, fact)
    await svc.close()

    svc = open_service(db)
    assert await svc.start() == len(FACTS) + 1  # the entries and the placeholder context
    try:
        await svc.await_consistency(memory_id)
        hits = await svc.search(memory_id, "hamster Peanut", top_k=1)
        assert "Peanut" in hits["entries"][0]["summary"]
    finally:
        await svc.close()


async def test_a_new_embedder_rebuilds_the_vectors(tmp_path):
    db = tmp_path / "rebuild.sqlite"
    svc = open_service(db)
    await svc.start()
    vault_id, memory_id = await new_memory(svc)
    for fact in FACTS:
        svc.add_entry(vault_id, memory_id, fact, fact)
    await svc.await_consistency(memory_id)
    await svc.close()

    svc = open_service(db, embedder=FakeEmbedder("fake-v2"))
    try:
        assert await svc.start() == len(FACTS) + 1
        await svc.await_consistency(memory_id)
        seqs, matrix = svc.store.load_vectors("entry", svc.store.get_memory(memory_id).mkey, "fake-v2")
        assert len(seqs) == len(FACTS) and matrix is not None
        assert "Peanut" in (await svc.search(memory_id, "hamster Peanut", alpha=1.0))["entries"][0]["summary"]
    finally:
        await svc.close()


async def test_embedder_failure_keeps_entries_keyword_searchable(tmp_path, monkeypatch):
    monkeypatch.setattr(indexer_mod, "RETRY_DELAYS_S", (0.01,))
    embedder = FakeEmbedder()
    svc = open_service(tmp_path / "fail.sqlite", embedder=embedder)
    await svc.start()
    try:
        vault_id, memory_id = await new_memory(svc)
        await svc.await_consistency(memory_id)
        embedder.fail = True
        svc.add_entry(vault_id, memory_id, "the zebra escaped", "zebra escaped")
        assert await svc.await_consistency(memory_id) == "consistent"
        assert "fake embedder is down" in svc.health()["lastIndexError"]
        assert (await svc.search(memory_id, "zebra", alpha=0.0))["count"] == 1
    finally:
        await svc.close()


def test_default_prompts_carry_mycelians_rules(tmp_path):
    from embedded_memory import limits as L
    from embedded_memory.prompts import default_prompts

    prompts = default_prompts("Chat")
    assert prompts["version"] == "v1"
    assert set(prompts["templates"]) == {"context_prompt", "entry_capture_prompt", "summary_prompt"}
    everything = prompts["context_summary_rules"] + "".join(prompts["templates"].values())
    for phrase in (f"at most {L.SUMMARY_CHARS} characters", f"at most {L.CONTEXT_CHARS} characters",
                   f"every {L.MYCELIAN_CONTEXT_CADENCE} messages", "await_consistency", "get_context",
                   f"limit={L.BOOTSTRAP_ENTRIES}", f"`top_k` is {L.SEARCH_TOP_K}", "facts", "preferences",
                   "decisions", "topics", "entities", "timeline", "Never on assistant", "ISO"):
        assert phrase in everything, phrase
    assert "_chars}" not in everything and "{context_cadence}" not in everything  # every placeholder filled
