"""The run graph's `self_improve` node: run (or resume) the loop, then summarise its log.

The loop's state is checkpointed in `<run_dir>/self_improve/checkpoints.sqlite` (thread id =
run id). Re-running the command finds the checkpoint: pending phases resume where they
stopped, a finished loop is not run again (unless `iterations` grew: then it carries on), and
only a run without a checkpoint starts afresh.
"""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime

from benchmarker.errors import UserError
from benchmarker.graph.context import RunContext
from benchmarker.graph.self_improve.graph import build_loop_graph, loop_root
from benchmarker.graph.self_improve.state import LoopState
from benchmarker.graph.state import RunState, Setup

log = logging.getLogger(__name__)
STEPS_PER_ITERATION = 8


async def self_improve(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    if ctx.self_improve.iterations <= 0:
        return {}
    ctx.progress.set_phase("self-improve")
    try:
        await run_loop(ctx, state["setup"])
    except UserError as err:  # e.g. too few questions to split: keep the run and its report
        log.warning("the self-improve loop did not run: %s", err)
        return {"self_improve": {"error": str(err)}}
    from benchmarker.reporting.sections import self_improve_summary

    return {"self_improve": self_improve_summary(ctx.log.run_dir) or {}}


async def run_loop(ctx: RunContext, setup: Setup) -> LoopState:
    """The loop's final state: resumed from the checkpoint when one is pending, else started."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    root = loop_root(ctx)
    root.mkdir(parents=True, exist_ok=True)
    iterations = ctx.self_improve.iterations
    config = {"configurable": {"thread_id": ctx.run_id},
              "recursion_limit": STEPS_PER_ITERATION * (iterations + 1) + 10}
    async with AsyncSqliteSaver.from_conn_string(str(root / "checkpoints.sqlite")) as saver:
        graph = build_loop_graph(checkpointer=saver, setup=setup)
        snapshot = await graph.aget_state(config)
        if snapshot.next:
            return await graph.ainvoke(None, config, context=ctx, durability="sync")
        done = snapshot.values
        if done.get("finished") and done.get("iterations", 0) < iterations and not _stopped(done):
            # the same run with more iterations: carry on from the last DECIDE
            await graph.aupdate_state(config, {"iterations": iterations, "finished": False}, as_node="decide")
            return await graph.ainvoke(None, config, context=ctx, durability="sync")
        if done.get("finished"):
            finished: LoopState = done  # the checkpoint's values: a LoopState
            return finished
        return await graph.ainvoke({}, config, context=ctx, durability="sync")


def _stopped(values: LoopState) -> bool:
    history = values.get("history") or []
    return bool(history) and history[-1].get("decision") == "stopped"
