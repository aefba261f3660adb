"""The offline memory agent and MemoryClient against the project's embedded memory service.

The fake server in tests/fakes keeps the other agent tests fast; this one checks the same flow
against the reference backend (real subprocess, SQLite, Mycelian's prompts and placeholder).
"""

from __future__ import annotations

from benchmarker.memory.client import MemoryClient
from tests.agent.support import SESSION_DATE, agent_context, offline_setup, run_session

SESSION = [
    ("user", "I moved to Denver in March 2021 and I run 3 times a week."),
    ("assistant", "Denver is great for running at altitude."),
    ("user", "My favourite trail is Chautauqua with my friend Priya."),
]


async def test_offline_session_against_the_embedded_service(embedded):
    decisions = []
    async with MemoryClient.connect(embedded.mcp_url, headers=embedded.auth_headers) as client:
        vault_id = await client.ensure_vault("agent-tests")
        assert await client.ensure_vault("agent-tests") == vault_id
        memory_id = (await client.create_memory(vault_id, "offline-agent-session"))["memoryId"]
        prompts = await client.get_default_prompts("chat")
        agent = offline_setup(client, decisions=decisions)
        outcomes = await run_session(agent, agent_context(vault_id, memory_id, prompts, cadence=6), SESSION)
        await client.await_consistency(memory_id)
        entries = await client.list_all_entries(vault_id, memory_id)
        context = await client.get_context(vault_id, memory_id)
        hits = await client.search(memory_id, "Which trail do I like?", top_k=3)
    assert all(o.ok for o in outcomes), [o.failed_reason for o in outcomes]
    assert [o.tool_calls for o in outcomes] == [3, 1, 4]
    assert all(r["error"] is None for _, r in decisions), [r for _, r in decisions if r["error"]]
    assert [e["rawEntry"] for e in entries] == [f"[{SESSION_DATE}] {role}: {text}" for role, text in SESSION]
    assert entries[0]["tags"]["session_id"] == "s1" and entries[0]["tags"]["turn_index"] == "0"  # Mycelian tags are strings
    assert "On 2023-05-20 the user said:" in entries[0]["summary"] and "March 2021" in entries[0]["summary"]
    assert "## facts" in context and "Chautauqua" in context
    assert any("Chautauqua" in h["rawEntry"] for h in hits["entries"])
