"""A Ray actor that runs cases: its own memory service (or the shared Mycelian server), models and agent.

The actor runs the same case graph as a local run (graph/build.py's CASE_GRAPH) with a
`CollectingLog`: nothing is written on the worker; the case's records go back to the driver in
its `CaseOutcome`. A case carries every sweep point: it is ingested once, then asked and scored
at each point, so the worker's memory is never needed after the case returns.

The MCP client is opened and closed by one long-lived task (`_hold`), as an MCP session must be;
cases use it from their own tasks, as the local runner's do. A worker that is restarted by Ray
(its process died) starts again from nothing: a new name, a new empty memory service.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import tempfile
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, cast

from benchmarker.agent.ledger import UsageTotals
from benchmarker.agent.tracing import disabled
from benchmarker.config_schema import RunConfig
from benchmarker.errors import RunAbortedError
from benchmarker.graph.build import CASE_GRAPH, LocalExecutor
from benchmarker.graph.context import RunContext, SearchSettings
from benchmarker.graph.progress import RunProgress
from benchmarker.graph.state import CaseState, Setup
from benchmarker.log.collect import CaseSlice, CollectingLog
from benchmarker.log.lines import Json
from benchmarker.log.records import LogRecord
from benchmarker.log.store import RunLog
from benchmarker.memory.settings import MemorySettings
from benchmarker.redact import redact, redact_text
from benchmarker.run.context import RunParts, build_context, memory_agent

log = logging.getLogger(__name__)


@dataclass
class CaseTask:
    """What the driver sends with a case: what is already done, and every sweep point to run."""

    slice: CaseSlice
    points: list[SearchSettings]


@dataclass
class RemoteFailure:
    """A case that failed on a worker, as the driver re-raises it (the worker's traceback kept)."""

    type: str
    message: str
    traceback: str
    aborted: bool          # RunAbortedError: the whole run must stop
    point: int             # the sweep point it failed at (earlier points finished)


class WorkerInfo(TypedDict):
    """Where a worker started (the manifest's executor.started lists them)."""

    name: str
    node: str
    pid: int
    memory: dict[str, Json]   # its memory service's launch description, redacted, and whether it is shared


class WorkerClosed(TypedDict):
    """What a worker says when it stops."""

    name: str
    cases: int


@dataclass
class CaseOutcome:
    case_id: str
    worker: str
    records: list[tuple[int, LogRecord]] = field(default_factory=list)   # (sweep point, record), in order
    finals: list[CaseState] = field(default_factory=list)                # per finished point: skipped, results
    usage: list[tuple[str, str, UsageTotals]] = field(default_factory=list)   # TokenLedger.drain()
    tool_calls: int = 0
    failure: RemoteFailure | None = None


class CaseWorker:
    """Decorated with `ray.remote` by the executor (importing this module never needs Ray)."""

    def __init__(self, config: RunConfig, index: int, gate: Any | None = None):
        self.config = config
        self.tracing: Any | None = None
        self.index = index
        self.name = f"w{index}-{uuid.uuid4().hex[:8]}"   # new on every (re)start: its memories are new too
        self._gate = gate
        self._started: asyncio.Future | None = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task | None = None
        self._info: WorkerInfo | None = None
        self.cases_run = 0

    # lifetime --------------------------------------------------------------------------------
    async def start(self) -> WorkerInfo:
        """Start the memory service, connect, build the models and run setup; idempotent. Returns
        where the worker runs (for the manifest)."""
        if self._started is None:
            self._started = asyncio.get_running_loop().create_future()
            self._stop = asyncio.Event()
            self._holder = asyncio.create_task(self._hold())
        return await asyncio.shield(self._started)

    async def close(self) -> WorkerClosed:
        if (tracing := getattr(self, "tracing", None)) is not None:
            tracing.flush()
        if self._stop is not None:
            self._stop.set()
        if self._holder is not None:
            try:
                await self._holder
            except Exception:  # already reported through start()
                pass
        return {"name": self.name, "cases": self.cases_run}

    def pid(self) -> int:
        return os.getpid()

    async def _hold(self) -> None:
        """Own the service and the MCP session from open to close, in this one task."""
        from langgraph.runtime import Runtime

        from benchmarker.agent.retry import use_call_gate
        from benchmarker.graph.setup import setup
        from benchmarker.memory.drivers.open import open_memory
        from benchmarker.run.cost_floor import run_floor
        from benchmarker.run.models import build_models

        assert self._started is not None and self._stop is not None
        config = self.config
        self.dir = Path(tempfile.mkdtemp(prefix=f"mlme-ray-{self.name}-"))
        try:
            if self._gate is not None and config.provider.type != "offline":
                from benchmarker.run.ray_limiter import RayCallGate

                use_call_gate(RayCallGate(self._gate))
            self.models = build_models(config)
            self.judge = self.models.judge_for(config.eval, config.run.max_failures_in_a_row)
            from benchmarker.agent.tracing import RunTracing

            self.tracing = RunTracing.from_settings(config.tracing, config.run_id)  # each worker traces its own cases
            # The memories live in this worker's own embedded service, or on the one shared server.
            shared = config.memory.backend == "mcp" and config.memory.transport != "stdio"
            settings = MemorySettings(config.memory, vault_title=config.vault_title, vault_id=config.vault_id,
                                      config_path=config.config_path)
            async with open_memory(settings, self.dir, holder=None if shared else f"ray:{self.name}") as opened:
                subject = memory_agent(config.run, self.models, builds_agent=True,
                                       cost_floor=functools.partial(run_floor, config))
                self.parts = RunParts(opened.driver, subject, LocalExecutor(CASE_GRAPH, tuple))
                self.setup = await self._setup(setup, Runtime)
                self._info = {"name": self.name, "node": _node_ip(), "pid": os.getpid(),
                              "memory": redact({**opened.launch.describe(), "shared": shared})}
                self._started.set_result(self._info)
                await self._stop.wait()
        except BaseException as err:
            if not self._started.done():
                self._started.set_exception(err)
            else:
                log.exception("worker %s: its memory service or MCP session failed", self.name)
            if not isinstance(err, Exception):
                raise
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    async def _setup(self, setup_node, runtime_cls) -> Setup:
        """The run graph's setup node, on this worker's server: the vault, the prompts, the tool check.
        On a shared server two workers may race to create the vault; the loser finds it on retry."""
        ctx = self._context(CollectingLog.for_points(_empty_slice(), run_dir=self.dir)[1][0],
                            SearchSettings(top_k=self.config.params.top_k, alpha=None), RunProgress(0, enabled=False,
                                                                                                    stats=dict))
        for attempt in (1, 2):
            try:
                return (await setup_node({}, runtime_cls(context=ctx)))["setup"]
            except Exception:
                if attempt == 2 or self.config.memory.backend != "mcp":
                    raise
                await asyncio.sleep(0.5)
        raise AssertionError("unreachable")

    def _context(self, case_log: CollectingLog, search: SearchSettings, progress: RunProgress) -> RunContext:
        # CollectingLog serves the RunLog interface a case uses; what it appends goes to the driver.
        return build_context(self.config, log=cast(RunLog, case_log), parts=self.parts, judge=self.judge, models=self.models,
                             progress=progress, search=search, tracing=self.tracing)

    # work ------------------------------------------------------------------------------------
    async def run_case(self, case: Any, task: CaseTask) -> CaseOutcome:
        """The case graph at every sweep point; what it appended comes back, written nowhere here."""
        await self.start()
        collected, logs = CollectingLog.for_points(task.slice, run_dir=self.dir)
        progress = RunProgress(0, enabled=False, stats=dict)   # counts this case's tool calls
        outcome = CaseOutcome(case_id=case.case_id, worker=self.name)
        for index, (point_log, point) in enumerate(zip(logs, task.points, strict=True)):
            try:
                with contextlib.nullcontext() if self.tracing is not None else disabled():
                    final = await self.parts.executor.run_case(case, self._context(point_log, point, progress),
                                                               self.setup)
            except Exception as err:  # the driver logs it and goes on, as a local run does
                outcome.failure = RemoteFailure(type=type(err).__name__, message=redact_text(str(err)),
                                                traceback=redact_text("".join(traceback.format_exception(err))),
                                                aborted=isinstance(err, RunAbortedError), point=index)
                break
            kept: CaseState = {"results": list(final.get("results") or [])}
            if (skipped := final.get("skipped")) is not None:
                kept["skipped"] = skipped
            outcome.finals.append(kept)
        self.cases_run += 1
        outcome.records = collected.records
        outcome.usage = self.models.ledger.drain()
        outcome.tool_calls = progress.tool_calls
        return outcome


def _empty_slice() -> CaseSlice:
    return CaseSlice(case_id="", memory=None, max_attempt=0, agent_calls=[], answered=[{}], judged=[{}],
                     levels=[False])


def _node_ip() -> str:
    try:
        import ray

        return ray.util.get_node_ip_address()
    except Exception:  # pragma: no cover - outside Ray
        return "unknown"
