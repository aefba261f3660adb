"""Mycelian's MCP memory contract, checked over a real MCP client session against any server.

    MEMORY_MCP_URL=http://localhost:11546/mcp pytest -m contract tests/embedded_memory/test_contract.py

Without MEMORY_MCP_URL the module starts the embedded service (launcher, tmp database). Only the
contract is asserted (DESIGN.md section 4); checks of embedded-only behaviour are skipped when
MEMORY_MCP_URL points elsewhere. MEMORY_MCP_TOKEN overrides Mycelian's local dev bearer token.
"""

from __future__ import annotations

import os
import uuid

import pytest

from tests.embedded_memory.memsvc_support import call, err, mcp_session, ok

pytestmark = pytest.mark.contract
EXTERNAL = bool(os.environ.get("MEMORY_MCP_URL"))
embedded_only = pytest.mark.skipif(EXTERNAL, reason="embedded-service behaviour beyond Mycelian's contract")
HEADERS = {"Authorization": f"Bearer {os.environ.get('MEMORY_MCP_TOKEN') or 'LOCAL_DEV_MODE_NOT_FOR_PRODUCTION'}"}

REQUIRED = {
    "create_vault": {"title"},
    "list_vaults": set(),
    "list_memories": {"vault_id"},
    "create_memory_in_vault": {"vault_id", "title", "memory_type"},
    "get_memory": {"vault_id", "memory_id"},
    "add_entry": {"vault_id", "memory_id", "raw_entry", "summary"},
    "list_entries": {"vault_id", "memory_id"},
    "get_entry": {"vault_id", "memory_id", "entry_id"},
    "put_context": {"vault_id", "memory_id", "content"},
    "get_context": {"vault_id", "memory_id"},
    "await_consistency": {"memory_id"},
    "search_memories": {"memory_id", "query"},
    "get_default_prompts": {"memory_type"},
}
OPTIONAL = {"create_vault": {"description"}, "create_memory_in_vault": {"description"}, "add_entry": {"tags"},
            "list_entries": {"limit", "before", "after"}, "search_memories": {"top_k"}}
ENTRY_KEYS = {"entryId", "memoryId", "vaultId", "creationTime", "rawEntry", "summary", "tags"}
SEARCH_KEYS = {"entries", "count", "latestContext", "contextTimestamp", "bestContext", "bestContextTimestamp",
               "bestContextScore"}


@pytest.fixture(scope="module")
def mcp_url(tmp_path_factory):
    if EXTERNAL:
        yield os.environ["MEMORY_MCP_URL"]
        return
    from embedded_memory.launcher import EmbeddedMemoryService
    from embedded_memory.settings import ServiceSettings

    root = tmp_path_factory.mktemp("contract")
    settings = ServiceSettings(port=0, db_path=str(root / "contract.sqlite"), embedder="static")
    token = HEADERS["Authorization"].removeprefix("Bearer ")  # the key the tests send, as on Mycelian's dev stack
    with EmbeddedMemoryService(settings, log_path=root / "service.log", api_key=token) as service:
        yield service.mcp_url


def unique(prefix: str) -> str:
    """Letters, digits and hyphens only (Mycelian's title rule), unique per test run."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


async def new_memory(session) -> tuple[str, str]:
    vault = await ok(session, "create_vault", title=unique("contract"), description="contract tests")
    memory = await ok(session, "create_memory_in_vault", vault_id=vault["vaultId"], title=unique("mem"),
                      memory_type="NOTES", description="contract test memory")
    return vault["vaultId"], memory["memoryId"]


async def test_all_thirteen_tools_with_the_contract_arguments(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        tools = {t.name: t.inputSchema for t in (await s.list_tools()).tools}
    assert set(REQUIRED) <= set(tools), f"missing tools: {set(REQUIRED) - set(tools)}"
    for name, required in REQUIRED.items():
        schema = tools[name]
        assert set(schema.get("required") or []) - {"user_id"} == required, name
        assert required | OPTIONAL.get(name, set()) <= set(schema.get("properties") or {}), name


async def test_vaults_and_memories(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        title = unique("vault")
        vault = await ok(s, "create_vault", title=title, description="d")
        assert {"vaultId", "title"} <= set(vault) and vault["title"] == title
        assert {"vaultId": vault["vaultId"], "title": title} in [
            {"vaultId": v["vaultId"], "title": v["title"]} for v in await ok(s, "list_vaults")]
        memory = await ok(s, "create_memory_in_vault", vault_id=vault["vaultId"], title=unique("memory"),
                          memory_type="NOTES")
        assert {"memoryId", "vaultId", "title", "memoryType", "creationTime"} <= set(memory)
        assert memory["vaultId"] == vault["vaultId"] and memory["memoryType"] == "NOTES"
        fetched = await ok(s, "get_memory", vault_id=vault["vaultId"], memory_id=memory["memoryId"])
        assert fetched["memoryId"] == memory["memoryId"] and fetched["title"] == memory["title"]
        listed = await ok(s, "list_memories", vault_id=vault["vaultId"])
        assert [(m["memoryId"], m["title"]) for m in listed] == [(memory["memoryId"], memory["title"])]


async def test_write_await_list_search_and_context_flow(mcp_url):
    facts = ["The user adopted a cat named Luna on 2023-04-02.",
             "The user ran a charity 5K in 25:50, a personal best.",
             "The user graduated with a degree in Business Administration."]
    async with mcp_session(mcp_url, HEADERS) as s:
        vault_id, memory_id = await new_memory(s)
        for i, fact in enumerate(facts):
            result = await ok(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=f"USER: {fact}",
                              summary=fact, tags={"turn_index": str(i)})
            assert result == "enqueued"
        assert await ok(s, "await_consistency", memory_id=memory_id) == "consistent"

        listed = await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id)
        assert {"entries", "count", "applied_limit", "next_before", "next_after"} <= set(listed)
        assert listed["count"] == 3 and [e["summary"] for e in listed["entries"]] == facts[::-1]
        assert all(ENTRY_KEYS <= set(e) for e in listed["entries"])
        first = listed["entries"][-1]
        got = await ok(s, "get_entry", vault_id=vault_id, memory_id=memory_id, entry_id=first["entryId"])
        assert ENTRY_KEYS <= set(got) and got["rawEntry"] == f"USER: {facts[0]}" and got["summary"] == facts[0]

        page = await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id, limit=2)
        assert page["applied_limit"] == 2 and len(page["entries"]) == 2 and page["next_before"]
        rest = await ok(s, "list_entries", vault_id=vault_id, memory_id=memory_id, limit=2,
                        before=page["next_before"])
        assert [e["summary"] for e in rest["entries"]] == [facts[0]]

        context = "facts:\n- cat Luna adopted 2023-04-02\n- 5K personal best 25:50"
        assert await ok(s, "put_context", vault_id=vault_id, memory_id=memory_id, content=context) == "enqueued"
        assert await ok(s, "await_consistency", memory_id=memory_id) == "consistent"
        assert context in await ok(s, "get_context", vault_id=vault_id, memory_id=memory_id)

        hits = await ok(s, "search_memories", memory_id=memory_id, query="what is the name of my cat", top_k=2)
        assert SEARCH_KEYS <= set(hits) and hits["count"] == len(hits["entries"]) and 1 <= hits["count"] <= 2
        assert all({"entryId", "rawEntry", "summary", "score"} <= set(e) for e in hits["entries"])
        assert any("Luna" in e["summary"] for e in hits["entries"])
        assert context in hits["latestContext"] and hits["contextTimestamp"]


async def test_a_new_memory_has_a_placeholder_context(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        vault_id, memory_id = await new_memory(s)
        text = await ok(s, "get_context", vault_id=vault_id, memory_id=memory_id)
    assert "default context" in str(text).lower()
    if not EXTERNAL:
        from embedded_memory.settings import PLACEHOLDER_CONTEXT

        assert text == PLACEHOLDER_CONTEXT


async def test_default_prompts_for_chat(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        prompts = await ok(s, "get_default_prompts", memory_type="chat")
    assert prompts["version"] and prompts["context_summary_rules"].strip()
    assert {"context_prompt", "entry_capture_prompt", "summary_prompt"} <= set(prompts["templates"])
    assert all(prompts["templates"][k].strip() for k in ("context_prompt", "entry_capture_prompt", "summary_prompt"))


async def test_bad_calls_are_error_results_and_the_server_keeps_serving(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        vault_id, memory_id = await new_memory(s)
        missing_id = str(uuid.uuid4())
        await err(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry="no summary")
        await err(s, "get_memory", vault_id=vault_id, memory_id=missing_id)
        await err(s, "get_entry", vault_id=vault_id, memory_id=memory_id, entry_id=missing_id)
        await err(s, "get_default_prompts", memory_type="no-such-type")
        assert isinstance(await ok(s, "list_vaults"), list)


@embedded_only
async def test_embedded_extras_alpha_is_optional_and_inputs_are_checked(mcp_url):
    async with mcp_session(mcp_url, HEADERS) as s:
        schema = {t.name: t.inputSchema for t in (await s.list_tools()).tools}["search_memories"]
        assert "alpha" in schema["properties"] and "alpha" not in schema["required"]
        vault_id, memory_id = await new_memory(s)
        await ok(s, "add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry="zebra", summary="zebra")
        await ok(s, "await_consistency", memory_id=memory_id)
        assert (await ok(s, "search_memories", memory_id=memory_id, query="zebra", alpha=0))["count"] == 1
        assert "top_k" in await err(s, "search_memories", memory_id=memory_id, query="zebra", top_k=101)
        assert "alpha" in await err(s, "search_memories", memory_id=memory_id, query="zebra", alpha=-0.1)
        assert "memory_id" in await err(s, "await_consistency", memory_id=str(uuid.uuid4()))
        dup = await err(s, "create_vault", title=(await ok(s, "list_vaults"))[0]["title"])
        assert "title" in dup and "exist" in dup
        is_error, _ = await call(s, "list_vaults")
        assert not is_error
