"""Node: the subject gets ready, and the memory under test is set up (the vault, the memory prompts,
and a check that the server offers the tools the run needs)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState


async def setup(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    ctx.progress.set_phase("setup")
    if state.get("setup"):  # a later sweep point: the vault and prompts are known
        return {}
    await ctx.subject.check(ctx.phases)
    done = await ctx.memory.setup(wants_prompts=ctx.mode == "agent",
                                  agent_tools=agent_tools(ctx) if ctx.subject.has_agent else None)
    return {"setup": {"vault_id": done.vault_id, "default_prompts": done.default_prompts}}


def agent_tools(ctx: RunContext) -> tuple[str, ...]:
    """The tools the memory agent gets (the rule run.models.RunModels.build_agent applies too)."""
    return ctx.memory.agent_tool_names(tuple(ctx.agent.tools), "tools" in ctx.agent.model_fields_set)
