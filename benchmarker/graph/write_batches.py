"""Many add_entry writes in one `add_entries` call, for ingestion that involves no model.

Retrieval-mode ingestion and `replay` send every message as its own add_entry: one MCP round trip
(~5 ms) per message, awaited one after the other, kept the embedded service at ~170-300 messages/s.
A server that lists `add_entries` (the embedded service) takes up to `[memory] write_batch` of them
in one request and one transaction, stored in list order, so the memory holds the same entries,
tags and order as the one-by-one path (tests/graph/test_batched_ingest_equivalence.py). Any other
server, and a batch of 0, keep one call per message.

The decision log keeps one line per write, as before: the same tool ("add_entry"), the same
arguments, written together once the call has answered, with `batch` (the call's size) and its
share of the call's latency. A batch the server refuses (isError) is sent again one write at a
time, so each write meets the same fate, and leaves the same line, as on the one-by-one path.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarker.errors import MemoryToolError
from benchmarker.graph.context import RunContext
from benchmarker.log.lines import Json
from benchmarker.log.records import DecisionRecord
from benchmarker.log.tool_call_log import RESULT_PREVIEW_CHARS, CallSite, logged_tool_call
from benchmarker.redact import masked_preview

BATCH_TOOL = "add_entries"
ENTRY_TOOL = "add_entry"
BATCH_BYTES = 1024 * 1024  # the most JSON one batch carries (the embedded service takes 4 MB per request)
YIELD_EVERY = 32  # writes queued between two turns of the event loop


@dataclass(frozen=True)
class Write:
    """One add_entry as the log records it: its arguments and where in the case it comes from."""

    args: dict[str, Json]
    case_id: str
    question_id: str | None = None
    session_id: str | None = None
    turn: int | None = None


def batch_size(ctx: RunContext, tool: str) -> int:
    """Entries per add_entries call for writes of `tool`: 0 unless the tool is add_entry, the server lists
    add_entries and `[memory] write_batch` is set."""
    size = ctx.memory_table.write_batch
    if size <= 1 or tool != ENTRY_TOOL or BATCH_TOOL not in ctx.memory.client.tool_names():
        return 0
    return size


@dataclass
class EntryBatcher:
    """Collects add_entry writes and sends them in order, `size` (and ~1 MB) at a time, per memory.

    `written` counts the writes the server acknowledged, `failed` those it refused. A refused write is
    logged as its own failed line; it then raises MemoryToolError as a lone add_entry would, unless
    `keep_going` (replay: the agent would have gone on too)."""

    ctx: RunContext
    caller: str
    size: int
    keep_going: bool = False
    written: int = 0
    failed: int = 0
    pending: list[Write] = field(default_factory=list)
    _bytes: int = 0

    async def add(self, write: Write) -> None:
        """Queue one write; send the queue first when the write goes elsewhere or would overfill it."""
        weight = len(json.dumps(write.args, ensure_ascii=False).encode("utf-8"))
        if self.pending and (self._bytes + weight > min(BATCH_BYTES, self._body_limit())
                             or _target(self.pending[0]) != _target(write)):
            await self.flush()
        self.pending.append(write)
        self._bytes += weight
        if len(self.pending) >= self.size:
            await self.flush()
        elif len(self.pending) % YIELD_EVERY == 0:
            await asyncio.sleep(0)  # another case's search answer is read while this batch is built

    async def flush(self) -> None:
        """Send what is queued (one add_entry when it is a single write)."""
        batch, self.pending, self._bytes = self.pending, [], 0
        if len(batch) == 1:
            await self._one(batch[0])
        elif batch:
            await self._many(batch)

    async def _many(self, batch: list[Write]) -> None:
        first = batch[0].args
        args: dict[str, Json] = {"vault_id": first["vault_id"], "memory_id": first["memory_id"],
                "entries": [_entry(w.args) for w in batch]}
        started = time.perf_counter()
        try:
            text = await self.ctx.memory.client.call(BATCH_TOOL, args)
        except MemoryToolError:
            for write in batch:  # every write again alone: each gets the outcome and line it would have had
                await self._one(write)
            return
        except Exception as err:
            self._log(batch, "", f"{type(err).__name__}: {err}", started)
            raise
        self._log(batch, _enqueued(text), None, started)
        self.written += len(batch)

    def _body_limit(self) -> int:
        limit = self.ctx.memory.client.max_request_bytes
        return limit // 2 if limit else BATCH_BYTES

    async def _one(self, write: Write) -> None:
        """One add_entry, logged as each path's one-by-one calls are (log/tool_call_log.py)."""
        site = CallSite(write.case_id, self.caller, ENTRY_TOOL, write.args, write.question_id, write.session_id,
                        write.turn)
        try:
            outcome = await logged_tool_call(self.ctx.log, self.ctx.progress, site,
                                             self.ctx.memory.client.call(ENTRY_TOOL, write.args),
                                             keep_going=self.keep_going)
        except MemoryToolError:
            self.failed += 1  # refused, and the caller stops there (ingestion)
            raise
        if outcome.error is None:
            self.written += 1
        else:
            self.failed += 1

    def _log(self, batch: list[Write], preview: str, error: str | None, started: float) -> None:
        share = (time.perf_counter() - started) * 1000.0 / len(batch)
        self.ctx.log.append_many([self._record(w, preview, error, share, len(batch)) for w in batch])
        self.ctx.progress.add_tool_calls(len(batch))

    def _record(self, write: Write, preview: str, error: str | None, latency_ms: float,
                batch: int | None) -> DecisionRecord:
        return DecisionRecord(case_id=write.case_id, question_id=write.question_id, session_id=write.session_id,
                              turn=write.turn, caller=self.caller, tool=ENTRY_TOOL, args=write.args,
                              result_preview=preview, error=error, latency_ms=round(latency_ms, 3), batch=batch)


def _target(write: Write) -> tuple[Any, Any]:
    return write.args.get("vault_id"), write.args.get("memory_id")


def _entry(args: dict[str, Json]) -> dict[str, Json]:
    """add_entry's arguments as one item of add_entries (the memory is named once for the batch)."""
    return {key: value for key, value in args.items() if key not in ("vault_id", "memory_id")}


def _enqueued(text: str) -> str:
    """What each write's line shows as its result: add_entry's own answer when the batch was taken whole."""
    try:
        reply = json.loads(text)
    except ValueError:
        return masked_preview(text, RESULT_PREVIEW_CHARS)
    return str(reply.get("status", text)) if isinstance(reply, dict) else masked_preview(text, RESULT_PREVIEW_CHARS)
