"""Ingestion by replay: re-send a finished run's recorded memory writes into this run's fresh memory.

Called by the ingest node when the memory-agent subject carries a `benchmarker.run.replay_source.ReplaySource`.
No model is involved: each recorded add_entry / put_context goes out with the same arguments,
except vault_id / memory_id (the new memory's) and the `run_id` trace tag (this run's), so
retrieval metrics map hits to sessions and turns through the same tags as in the source run.
"""

from __future__ import annotations

from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext
from benchmarker.graph.write_batches import ENTRY_TOOL, EntryBatcher, Write, batch_size
from benchmarker.log.lines import Json
from benchmarker.log.records import MemoryRecord
from benchmarker.log.tool_call_log import CallSite, logged_tool_call
from benchmarker.subjects import ReplayWrites


def rebind(args: dict[str, Json], *, vault_id: str, memory_id: str, run_id: str) -> dict[str, Json]:
    """The recorded arguments aimed at another memory, tagged with another run id."""
    sent: dict[str, Json] = {**args, "vault_id": vault_id, "memory_id": memory_id}
    if isinstance(tags := sent.get("tags"), dict):
        sent["tags"] = {**tags, "run_id": run_id}
    return sent


async def replay_into_memory(ctx: RunContext, replay: ReplayWrites, case: Case,
                             record: MemoryRecord) -> tuple[int, int]:
    """Re-apply the case's recorded writes in order; return (entries written, failed writes).

    A write the server refuses (isError) is logged and counted as failed, and the replay goes on,
    as the agent would have; anything else (a dead connection) fails the case, whose memory is
    then abandoned: re-running the command replays it into a new one (attempt + 1).
    """
    written = failed = 0
    batcher: EntryBatcher | None = None
    for write in replay.writes_for(case.case_id):
        args = rebind(write.args, vault_id=record.vault_id, memory_id=record.memory_id, run_id=ctx.run_id)
        if batcher is None and (size := batch_size(ctx, write.tool)):
            batcher = EntryBatcher(ctx, "replay", size, keep_going=True)
        if batcher is not None and write.tool == ENTRY_TOOL:
            await batcher.add(Write(args, case.case_id, write.question_id, write.session_id, write.turn))
            continue
        if batcher is not None:
            await batcher.flush()  # a put_context goes out after the entries recorded before it
        site = CallSite(case.case_id, "replay", write.tool, args, write.question_id, write.session_id, write.turn)
        outcome = await logged_tool_call(ctx.log, ctx.progress, site, ctx.memory.client.call(write.tool, args),
                                         keep_going=True)
        if outcome.error is not None:
            failed += 1
        elif write.tool == ENTRY_TOOL:
            written += 1
    if batcher is not None:
        await batcher.flush()
        written, failed = written + batcher.written, failed + batcher.failed
    return written, failed
