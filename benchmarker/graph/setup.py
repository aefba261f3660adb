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
    if ctx.mapping is not None:
        return _mapped_setup(ctx, names) if not state.get("setup") else {}
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


def _mapped_setup(ctx: RunContext, names: set[str]) -> dict[str, Any]:
    """A mapped server: the tools its mapping names must exist (there is no vault and no prompts)."""
    mapping = ctx.mapping
    assert mapping is not None
    where = f"the memory server ({mapping.source})"
    missing = [name for name in mapping.required_tools() if name not in names]
    if missing:
        raise UserError(f"{where} lacks MCP tools {missing} that its mapping uses; it has: {', '.join(sorted(names))}")
    if ctx.agent is not None or ctx.agent_factory is not None:
        unknown = [name for name in agent_tools(ctx) if name not in names]
        if unknown:
            raise UserError(f"{ctx.config.config_path}: the memory agent's tools {unknown} are not offered by {where}; "
                            f"it has: {', '.join(sorted(names))}")
    return {"setup": {"vault_id": "", "default_prompts": {}}}


def agent_tools(ctx: RunContext) -> tuple[str, ...]:
    """The tools the memory agent gets (the rule run.models.RunModels.build_agent applies too)."""
    from benchmarker.tool_mapping import agent_tool_names

    return agent_tool_names(tuple(ctx.config.agent.tools), "tools" in ctx.config.agent.model_fields_set, ctx.mapping)
