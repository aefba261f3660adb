"""Node: the vault, the memory prompts, and a check that the server speaks the contract we need."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from benchmarker.errors import UserError
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState

REQUIRED_TOOLS = ("create_vault", "list_vaults", "create_memory_in_vault", "list_memories", "add_entry",
                  "list_entries", "put_context", "get_context", "await_consistency", "search_memories",
                  "get_default_prompts")


async def setup(state: RunState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    ctx.progress.set_phase("setup")
    names = {tool.name for tool in ctx.client.tools}
    missing = [name for name in REQUIRED_TOOLS if name not in names]
    if missing:
        raise UserError(f"the memory server at {ctx.config.memory.mcp_url or 'embedded'} lacks MCP tools "
                        f"{missing}; is it a Mycelian MCP server?")
    unknown = [name for name in ctx.config.agent.tools if name not in names]
    if unknown and ctx.agent is not None:
        raise UserError(f"{ctx.config.config_path}: [agent].tools names {unknown}, which the memory server does not "
                        f"offer; it has: {', '.join(sorted(names))}")
    if state.get("setup"):  # a later sweep point: the vault and prompts are known
        return {}
    vault_id = ctx.config.vault_id or await ctx.client.ensure_vault(ctx.config.vault_title)
    default_prompts = await ctx.client.get_default_prompts("chat") if ctx.mode == "agent" else {}
    return {"setup": {"vault_id": vault_id, "default_prompts": default_prompts}}
