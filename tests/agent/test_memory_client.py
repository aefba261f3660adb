"""MemoryClient against a real MCP streamable-HTTP server (the in-test fake)."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage
from mcp.types import CallToolResult, TextContent

from benchmarker.errors import MemoryToolError
from benchmarker.memory.client import MemoryClient, auth_headers, tool_result_text
from tests.agent.support import memory_session
from tests.fakes.mcp_memory import FakeMemoryServer

MYCELIAN_TOOLS = {"create_vault", "list_vaults", "list_memories", "create_memory_in_vault", "get_memory",
                  "add_entry", "list_entries", "get_entry", "put_context", "get_context", "await_consistency",
                  "search_memories", "get_default_prompts"}


async def test_tools_are_loaded_once_with_the_server_schemas(memory_server):
    async with MemoryClient.connect(memory_server.url) as client:
        assert set(client.tool_names()) == MYCELIAN_TOOLS
        schemas = memory_server.tool_schemas()
        for tool in client.tools:
            assert tool.args_schema == schemas[tool.name]


async def test_ensure_vault_is_idempotent(memory_server):
    async with MemoryClient.connect(memory_server.url) as client:
        first = await client.ensure_vault("lme")
        second = await client.ensure_vault("lme")
    assert first == second
    assert [c[0] for c in memory_server.calls].count("create_vault") == 1


async def test_create_find_and_duplicate_memory(memory_server):
    async with MemoryClient.connect(memory_server.url) as client:
        vault_id = await client.ensure_vault("lme")
        memory = await client.create_memory(vault_id, "q1__run", description="case q1")
        assert memory["memoryId"] and memory["memoryType"] == "NOTES"
        assert (await client.find_memory(vault_id, "q1__run"))["memoryId"] == memory["memoryId"]
        assert await client.find_memory(vault_id, "nope") is None
        with pytest.raises(MemoryToolError) as err:
            await client.create_memory(vault_id, "q1__run")
    assert err.value.tool == "create_memory_in_vault" and "exists" in err.value.message


async def test_list_all_entries_walks_pages_with_before(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, _):
        for i in range(120):
            await client.add_entry(vault_id, memory_id, f"raw {i}", f"summary {i}", {"i": i})
        entries = await client.list_all_entries(vault_id, memory_id)
    assert [e["rawEntry"] for e in entries] == [f"raw {i}" for i in range(120)]
    pages = [args for tool, args in memory_server.calls if tool == "list_entries"]
    assert len(pages) == 3 and all(p["limit"] == 50 for p in pages)
    assert "before" not in pages[0] and pages[1]["before"] > pages[2]["before"]


async def test_errors_raise_memory_tool_error_and_reach_the_observer(memory_server):
    seen = []
    async with MemoryClient.connect(memory_server.url, on_call=lambda *a: seen.append(a)) as client:
        vault_id = await client.ensure_vault("lme")
        with pytest.raises(MemoryToolError) as err:
            await client.get_context(vault_id, "no-such-memory")
    assert err.value.tool == "get_context" and "not found" in err.value.message
    tool, args, _text, latency_ms, error = seen[-1]
    assert tool == "get_context" and args["memory_id"] == "no-such-memory"
    assert latency_ms > 0 and "not found" in error
    assert seen[0][0] == "list_vaults" and seen[0][4] is None


async def test_with_observer_shares_the_session(memory_server):
    mine, theirs = [], []
    async with MemoryClient.connect(memory_server.url, on_call=lambda *a: mine.append(a[0])) as client:
        view = client.with_observer(lambda *a: theirs.append(a[0]))
        assert view.session is client.session and view.tools is client.tools
        await view.ensure_vault("x")
    assert mine == [] and theirs[0] == "list_vaults"


async def test_search_sends_alpha_only_when_set(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, _):
        await client.add_entry(vault_id, memory_id, "I own 3 bikes", "the user owns 3 bikes")
        await client.await_consistency(memory_id)
        plain = await client.search(memory_id, "bikes", top_k=5)
        await client.search(memory_id, "bikes", top_k=5, alpha=0.25)
    assert plain["entries"][0]["rawEntry"] == "I own 3 bikes"
    searches = [args for tool, args in memory_server.calls if tool == "search_memories"]
    assert "alpha" not in searches[0] and searches[1]["alpha"] == 0.25


async def test_context_round_trip(memory_server):
    async with memory_session(memory_server) as (client, vault_id, memory_id, _):
        assert await client.put_context(vault_id, memory_id, "## facts\n- x") == "enqueued"
        assert await client.get_context(vault_id, memory_id) == "## facts\n- x"


async def test_empty_default_prompts_fail_loudly():
    with FakeMemoryServer(empty_prompts=True) as server:
        async with MemoryClient.connect(server.url) as client:
            with pytest.raises(MemoryToolError, match="empty or missing prompt texts"):
                await client.get_default_prompts("chat")


async def test_unreachable_server_is_a_clear_connection_error():
    with pytest.raises(ConnectionError, match="cannot reach the memory MCP server"):
        async with MemoryClient.connect("http://127.0.0.1:9/mcp", timeout_s=5):
            pass


def test_tool_result_text_handles_every_shape():
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert tool_result_text("plain") == "plain"
    assert tool_result_text(blocks) == "a\nb"
    assert tool_result_text((blocks, None)) == "a\nb"
    assert tool_result_text(ToolMessage(content=blocks, tool_call_id="1")) == "a\nb"
    assert tool_result_text(CallToolResult(content=[TextContent(type="text", text="t")])) == "t"
    assert tool_result_text(None) == ""


def test_auth_headers_default_to_the_local_dev_token():
    assert auth_headers() == {"Authorization": "Bearer LOCAL_DEV_MODE_NOT_FOR_PRODUCTION"}
    assert auth_headers("k") == {"Authorization": "Bearer k"}


async def test_errors_escaping_the_session_keep_their_type(memory_server):
    # the MCP transport's task group would wrap them in an ExceptionGroup; callers get their own error
    with pytest.raises(MemoryToolError):
        async with MemoryClient.connect(memory_server.url) as client:
            await client.get_context("no-vault", "no-memory")
    with pytest.raises(KeyError):
        async with MemoryClient.connect(memory_server.url):
            raise KeyError("caller bug")
