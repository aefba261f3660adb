"""Node: give the case a memory — the finished one from an earlier attempt, or a fresh one.

A case whose ingestion was cut off gets a NEW memory (next attempt, suffixed title), because
Mycelian has no idempotency key: re-sending the same entries into the old memory would
duplicate them.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.errors import MemoryToolError
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import CaseState
from benchmarker.log.records import MemoryRecord

MAX_ATTEMPTS = 50


TITLE_MAX = 50
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9-]+")


def memory_title(template: str, case_id: str, run_id: str, attempt: int) -> str:
    """The rendered template, made valid for Mycelian (letters, digits, hyphens; at most 50 chars).

    Underscores and dots become hyphens; a title that is still too long keeps its start and gets
    a short hash of the full title, so two long titles never collide.
    """
    base = template.format(question_id=case_id, case_id=case_id, run_id=run_id)
    if attempt > 1:
        base = f"{base}--a{attempt}"
    title = _NOT_ALLOWED.sub("-", base).strip("-") or "memory"
    if len(title) > TITLE_MAX:
        digest = hashlib.sha256(base.encode("utf-8")).hexdigest()[:8]
        title = f"{title[:TITLE_MAX - 9].rstrip('-')}-{digest}"
    return title


async def prepare_memory(state: CaseState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    ctx = runtime.context
    case = state["case"]
    known = ctx.log.done.memories.get(case.case_id)
    if known is not None and known.ingested and (known.held_by == ctx.memory_holder or not _asks_memory(ctx, case)):
        return {"memory": known}
    if ctx.replay is not None and (reason := ctx.replay.missing_reason(case.case_id)):
        return {"skipped": reason}  # nothing recorded to replay: no memory is created
    if "ingest" not in ctx.phases:
        reason = f"case {case.case_id} has no finished ingestion in this run; add 'ingest' to [run].phases"
        return {"skipped": reason}
    if ctx.mapping is not None:
        return {"memory": await _scoped_memory(ctx, case)}
    vault_id = state["setup"]["vault_id"]
    attempt = ctx.log.next_attempt(case.case_id)
    template = ctx.config.params.memory_title_template
    while True:
        title = memory_title(template, case.case_id, ctx.run_id, attempt)
        try:
            memory = await ctx.client.create_memory(vault_id, title, memory_type="NOTES",
                                                    description=f"{case.kind} case {case.case_id}")
            break
        except MemoryToolError as err:
            # A memory with this title exists: the process died between creating it and
            # logging it. Never reuse it (it may hold half an ingestion); take the next attempt.
            if attempt >= MAX_ATTEMPTS or ("exist" not in err.message.lower() and "duplicate" not in err.message.lower()):
                raise
            attempt += 1
    record = MemoryRecord(case_id=case.case_id, memory_id=memory["memoryId"], vault_id=vault_id,
                          title=title, attempt=attempt, status="created", context_cadence=ctx.cadence,
                          held_by=ctx.memory_holder)
    ctx.log.append(record)
    return {"memory": record}


def _asks_memory(ctx: RunContext, case) -> bool:
    """Whether this case still searches its memory here: a question (or a fact-extraction read-back)
    not answered yet. A finished case whose memory a gone Ray worker held is scored from its logs."""
    answered = ctx.log.done.answered
    if case.kind == "fact_extraction":
        return case.case_id not in answered
    return any(q.question_id not in answered for q in case.questions)


async def _scoped_memory(ctx: RunContext, case) -> MemoryRecord:
    """On a mapped server the case's scope (graph/case_scope.py) is its memory, named like one:
    memory_id is the scope's title, or (scope "container") the id of the container created for it."""
    from benchmarker.memory.mapped import create_container

    scope = ctx.scope
    assert scope is not None, "run_cases opens the case's scope before the case graph runs"
    assert ctx.mapping is not None, "a case has a scope only on a mapped server"
    memory_id = scope.title
    if ctx.mapping.scope.kind == "container":
        memory_id = await create_container(ctx.client, ctx.mapping, title=scope.title, case_id=case.case_id,
                                           description=f"{case.kind} case {case.case_id}")
    record = MemoryRecord(case_id=case.case_id, memory_id=memory_id, vault_id="", title=scope.title,
                          attempt=scope.attempt, status="created", context_cadence=ctx.cadence)
    ctx.log.append(record)
    return record
