"""One case's own memory on a mapped server: its scope name, and (scope "process") its own server.

Servers without memories-in-a-vault keep cases apart another way: a fresh server process per
case whose data lives in `<run>/memory-servers/<title>/`, or one shared server and a namespace
argument. Either way the scope is named like a Mycelian memory title (case id, run id, attempt),
so resume works the same: a finished case reopens its folder; a cut-off one gets a new attempt
and a new, empty folder (re-writing into the old one would duplicate what it already holds).

The server is opened and closed in the task that runs the case (`run_cases`), as an MCP client
must be; the nodes see it as `ctx.client` and the memory agent built over its tools as `ctx.agent`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from benchmarker.datasets.schema import Case
from benchmarker.graph.context import RunContext
from benchmarker.graph.memory_setup import MAX_ATTEMPTS, memory_title

SERVERS_DIR = "memory-servers"


@dataclass(frozen=True)
class CaseScope:
    title: str               # the scope's name: memory_id in records, {scope} in templates
    attempt: int
    directory: Path | None   # the server's data folder ("process" scope)


def scope_for(ctx: RunContext, case: Case) -> CaseScope | None:
    """The case's scope: the finished attempt's, else a new attempt; None when the case cannot run."""
    known = ctx.log.done.memories.get(case.case_id)
    root = ctx.log.run_dir / SERVERS_DIR
    per_process = ctx.launch is not None
    if known is not None and known.ingested:
        return CaseScope(known.title, known.attempt, root / known.title if per_process else None)
    if "ingest" not in ctx.phases:
        return None  # prepare_memory says why the case is skipped
    attempt = ctx.log.next_attempt(case.case_id)
    template = ctx.config.params.memory_title_template
    while True:
        title = memory_title(template, case.case_id, ctx.run_id, attempt)
        # A folder without a logged memory is a process that died before logging it: never reuse it.
        if not per_process or not (root / title).exists() or attempt >= MAX_ATTEMPTS:
            return CaseScope(title, attempt, root / title if per_process else None)
        attempt += 1


@contextlib.asynccontextmanager
async def case_context(ctx: RunContext, case: Case) -> AsyncIterator[RunContext]:
    """The context the case graph runs with: unchanged for Mycelian; with the case's scope (and,
    per process, its own server, client and agent) for a mapped server."""
    if ctx.mapping is None:
        yield ctx
        return
    scope = scope_for(ctx, case)
    if scope is None or ctx.launch is None or scope.directory is None:
        yield dataclasses.replace(ctx, scope=scope)
        return
    scope.directory.mkdir(parents=True, exist_ok=True)
    async with ctx.launch.for_scope(scope.directory, scope.title).connect() as client:
        agent = ctx.agent_factory(client.tools) if ctx.agent_factory is not None else None
        yield dataclasses.replace(ctx, client=client, agent=agent, scope=scope)
