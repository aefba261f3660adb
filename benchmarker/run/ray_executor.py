"""The driver's side of a Ray run: workers, dispatch, and the one writer of the run directory.

`run_cases` (graph/build.py) hands each case to the context's executor: here `RayExecutor.run_case`
sends it to a worker instead of running the case graph in this process; everything around it (the
semaphore of `[run].concurrency` cases in flight over all workers, failures in a row, progress) is
the local runner's own code. The executor:

- sends the case, with what the run directory already holds for it, to the least busy worker;
- appends the records the worker sends back through the driver's `RunLog`s (one per sweep
  point), merges the worker's token counts into the run's ledger and counts its tool calls;
- re-runs a case whose worker died under it on another worker, up to `[run].case_retries`
  times. Nothing of the lost attempt was written, and the new attempt writes into a new
  memory, so the run directory has no duplicate and no gap.

A case runs every sweep point in one go on its worker (ingested once, asked at each point).
When the run graph reaches the next sweep point, the outcomes are already known and the
executor only replays them to `run_cases`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarker.datasets.schema import Case
from benchmarker.errors import RunAbortedError, UserError
from benchmarker.graph.context import RunContext, SearchSettings
from benchmarker.graph.state import CaseState
from benchmarker.log.collect import CaseSlice
from benchmarker.log.lines import Json
from benchmarker.log.records import LogRecord
from benchmarker.log.store import ANSWERS_DIR_FILES, RunLog
from benchmarker.redact import redact_url
from benchmarker.run.ray_worker import CaseOutcome, CaseTask, CaseWorker, RemoteFailure, WorkerInfo

log = logging.getLogger(__name__)

INSTALL_HINT = 'pip install "mycelian-longmemeval[ray]" (Ray >= 2.50)'


class RemoteCaseError(Exception):
    """A case that failed on a worker; `remote_traceback` is where it failed there."""

    def __init__(self, failure: RemoteFailure):
        super().__init__(f"{failure.type}: {failure.message}")
        self.remote_traceback = failure.traceback


class RemoteRunAborted(RunAbortedError):
    """A worker decided the run must stop (e.g. the judge failed N answers in a row)."""

    def __init__(self, failure: RemoteFailure):
        super().__init__(failure.message)
        self.remote_traceback = failure.traceback


class WorkerLostError(Exception):
    """A case whose worker died under it more often than `[run].case_retries` allows."""


def import_ray():
    try:
        import ray
    except ModuleNotFoundError:
        raise UserError(f'[run].executor = "ray" needs Ray on this machine: {INSTALL_HINT}') from None
    return ray


@dataclass
class _Slot:
    handle: Any
    index: int
    in_flight: int = 0
    lost: int = 0          # cases lost with this worker's process (Ray restarts it)
    healthy: bool = True   # False from a loss until the (restarted) worker answers start() again


@dataclass
class RayExecutor:
    config: Any
    points: list[SearchSettings]
    logs: Sequence[RunLog]             # one per sweep point; logs[0] also writes the run-level files
    ledger: Any
    case_source: Callable[[], Iterable[Case]] = tuple
    slots: list[_Slot] = field(default_factory=list)
    workers: list[WorkerInfo] = field(default_factory=list)       # where each worker started
    outcomes: dict[str, CaseOutcome] = field(default_factory=dict)
    cases_lost: int = 0
    started_s: float = 0.0
    _owns_ray: bool = False
    _gate: Any = None

    # lifetime --------------------------------------------------------------------------------
    async def start(self) -> None:
        """Connect to (or start) Ray, start `[run].workers` actors and wait until each has its
        memory service and models (a worker that cannot start fails the run before any case)."""
        ray = import_ray()
        run = self.config.run
        begun = time.monotonic()
        if not ray.is_initialized():
            address = run.ray_address or "local"
            try:
                ray.init(address=address, namespace=f"mlme-{self.config.run_id}", configure_logging=False,
                         include_dashboard=False if address == "local" else None, log_to_driver=True)
            except (ConnectionError, RuntimeError, ValueError) as err:
                raise UserError(f"cannot reach the Ray cluster at [run].ray_address = {run.ray_address!r} "
                                f"in {self.config.config_path}: {err}") from err
            self._owns_ray = True
        self._check_resources(ray)
        from benchmarker.run.ray_limiter import BackoffClock

        self._gate = ray.remote(num_cpus=0)(BackoffClock).remote()
        worker_cls = ray.remote(CaseWorker)
        options: dict[str, Any] = {"num_cpus": run.worker_cpus, "num_gpus": run.worker_gpus,
                                   "max_restarts": max(1, run.case_retries), "max_task_retries": 0,
                                   "max_concurrency": max(1, run.concurrency)}
        if run.worker_memory_mb:
            options["memory"] = run.worker_memory_mb * 1024 * 1024
        if run.worker_resources:
            options["resources"] = dict(run.worker_resources)
        self.slots = [_Slot(worker_cls.options(**options).remote(self.config, i, self._gate), i)
                      for i in range(run.workers)]
        try:
            self.workers = list(await asyncio.gather(*(slot.handle.start.remote() for slot in self.slots)))
        except Exception as err:
            raise _unwrap(err) from None
        self.started_s = time.monotonic() - begun

    def _check_resources(self, ray) -> None:
        run = self.config.run
        total = ray.cluster_resources()
        wanted = {"CPU": run.workers * run.worker_cpus, "GPU": run.workers * run.worker_gpus,
                  **{name: run.workers * amount for name, amount in run.worker_resources.items()}}
        short = {name: (need, total.get(name, 0.0)) for name, need in wanted.items() if need > total.get(name, 0.0)}
        if short:
            detail = ", ".join(f"{name} {need:g} wanted, {have:g} in the cluster" for name, (need, have) in short.items())
            raise UserError(f"{self.config.config_path}: [run].workers = {run.workers} with worker_cpus / worker_gpus "
                            f"/ worker_resources do not fit the Ray cluster ({detail}); lower them or add nodes")

    async def close(self) -> None:
        """Stop every worker's memory service and, when this run started Ray, Ray itself."""
        ray = import_ray()
        if self.slots:
            results = await asyncio.gather(*(slot.handle.close.remote() for slot in self.slots),
                                           return_exceptions=True)
            for slot, result in zip(self.slots, results, strict=True):
                if isinstance(result, Exception):
                    log.warning("Ray worker %d did not close cleanly: %s", slot.index, result)
                ray.kill(slot.handle)
            self.slots = []
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def describe(self) -> dict[str, Json]:
        """The manifest's executor block: where the run's cases ran."""
        run = self.config.run
        nodes = []
        try:
            ray = import_ray()
            nodes = [{"node_id": n["NodeID"], "address": n["NodeManagerAddress"], "alive": n["Alive"],
                      "cpus": n.get("Resources", {}).get("CPU", 0.0)} for n in ray.nodes()]
            version = ray.__version__
        except Exception:  # pragma: no cover - describe never fails a run
            version = None
        return {"executor": "ray", "ray_version": version,
                "ray_address": redact_url(run.ray_address) if run.ray_address else "local (started by the run)",
                "workers": run.workers, "worker_cpus": run.worker_cpus, "worker_gpus": run.worker_gpus,
                "worker_memory_mb": run.worker_memory_mb, "worker_resources": dict(run.worker_resources),
                "started": self.workers, "nodes": nodes, "start_s": round(self.started_s, 3),
                "cases_lost_with_a_worker": self.cases_lost, "driver_pid": os.getpid()}

    # work ------------------------------------------------------------------------------------
    def point_of(self, search: SearchSettings) -> int:
        return self.points.index(search)

    def cases(self) -> Iterable[Case]:
        return self.case_source()

    async def run_case(self, case: Any, ctx: RunContext, setup: Any = None) -> CaseState:
        """The case graph's final state at the context's sweep point (what `run_cases` reads); the
        worker runs it with its own setup (its server's vault and prompts)."""
        point = self.point_of(ctx.search)
        outcome = self.outcomes.get(case.case_id) if point else None
        if outcome is None:
            outcome = await self._dispatch(case, reads_trace=ctx.suite.protocol.reads_agent_trace)
            ctx.progress.add_tool_calls(outcome.tool_calls)
            if len(self.points) > 1:
                self.outcomes[case.case_id] = outcome
        failure = outcome.failure
        if failure is not None and (point >= failure.point or failure.aborted):
            raise RemoteRunAborted(failure) if failure.aborted else RemoteCaseError(failure)
        return outcome.finals[point]

    async def _dispatch(self, case: Any, *, reads_trace: bool) -> CaseOutcome:
        """The case run on a worker, with the logs it reads (the agent's trace too when the run's suite scores it)."""
        task = CaseTask(slice=CaseSlice.from_logs(case, self.logs, reads_trace=reads_trace), points=list(self.points))
        last: BaseException | None = None
        for attempt in range(self.config.run.case_retries + 1):
            if attempt:
                await asyncio.sleep(min(10.0, 0.5 * 2 ** (attempt - 1)))  # let Ray restart the lost worker
            # A healthy worker first; a worker that lost a case is asked to start again (Ray restarts
            # its process; start() waits for its new memory service) before it gets another case.
            slot = min(self.slots, key=lambda s: (not s.healthy, s.in_flight, s.index))
            slot.in_flight += 1
            try:
                if not slot.healthy:
                    await slot.handle.start.remote()
                    slot.healthy = True
                outcome = await slot.handle.run_case.remote(case, task)
            except Exception as err:
                # A worker returns a case's own failure inside its outcome, so whatever Ray raises here
                # is the worker's: its process died (ActorDiedError), it was restarting, or the restarted
                # worker could not start its service. Nothing of this attempt was written: run it again.
                slot.lost += 1
                slot.healthy = False
                self.cases_lost += 1
                last = err
                log.warning("Ray worker %d was lost during case %s (%s: %s); running the case again on a worker",
                            slot.index, case.case_id, type(err).__name__, str(err).splitlines()[0][:200] if str(err) else "")
                continue
            finally:
                slot.in_flight -= 1
            self._write(outcome)
            return outcome
        assert last is not None  # every pass of the loop returned or recorded its error
        raise WorkerLostError(f"case {case.case_id}: its Ray worker was lost {self.config.run.case_retries + 1} times "
                              f"(raise [run].case_retries or check the workers' logs); last: {_unwrap(last)}")

    def _write(self, outcome: CaseOutcome) -> None:
        """The one writer: each record to its sweep point's log (run-level files through the first)."""
        for point, record in outcome.records:
            self._log_for(point, record).append(record)
        self.ledger.merge(outcome.usage)
        outcome.records, outcome.usage = [], []  # written: a sweep keeps only each point's final state

    def _log_for(self, point: int, record: LogRecord) -> RunLog:
        return self.logs[point] if type(record).FILE in ANSWERS_DIR_FILES else self.logs[0]


def _unwrap(err: BaseException) -> BaseException:
    """A worker's own exception (a UserError naming the config key) rather than Ray's wrapper."""
    cause = getattr(err, "cause", None)
    return cause if isinstance(cause, BaseException) else err
