"""The one place a run's parts are chosen: `open_parts` picks the memory, the subject and the executor
from the config: our memory agent over the run's memory server (local), our memory agent on Ray
workers (each with its own server, or the shared one), or an outside agent that keeps its own memory.
The run graph and its nodes never ask which: they call `ctx.memory`, `ctx.subject` and `ctx.executor`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarker.config import RunConfig
from benchmarker.config_schema import AgentConfig, MemoryConfig, RunSection
from benchmarker.datasets.schema import Case
from benchmarker.datasets.source import DatasetPlan
from benchmarker.graph.agent_case import AGENT_CASE_GRAPH
from benchmarker.graph.build import CASE_GRAPH, LocalExecutor
from benchmarker.graph.context import SearchSettings
from benchmarker.log.lines import Manifest
from benchmarker.log.store import RunLog
from benchmarker.memory.driver import AgentOwnMemory, WorkersMemory
from benchmarker.memory.drivers.mycelian import describe_mycelian
from benchmarker.memory.drivers.open import open_memory
from benchmarker.memory.settings import MemorySettings
from benchmarker.run.context import RunParts, describe_outside_models, memory_agent
from benchmarker.run.cost_floor import run_floor
from benchmarker.run.models import RunModels
from benchmarker.subjects import OutsideAgentSubject, ReplayWrites, agent_pool

if TYPE_CHECKING:
    from benchmarker.run.ray_executor import RayExecutor
    from benchmarker.subjects.memory_agent import CostFloor


@contextlib.asynccontextmanager
async def open_parts(config: RunConfig, plan: DatasetPlan, models: RunModels, *, points: list[SearchSettings],
                     logs: Sequence[RunLog], manifest: Manifest, store: RunLog,
                     replay: ReplayWrites | None = None) -> AsyncIterator[RunParts]:
    """Start what the run needs and stop it when the block ends, also on failure and Ctrl-C: the
    memory server (or Ray's workers, or the outside agent). The manifest learns where each is."""
    def cases() -> Iterable[Case]:
        return (case for group in plan.groups for case in group.cases())

    if config.agent.type != "memory_agent":
        async with _outside_agent(config.agent, config.run.concurrency, config.config_path, config.models.eval,
                                  models, cases, manifest, store) as parts:
            yield parts
        return
    if config.run.executor == "ray":
        from benchmarker.run.ray_executor import RayExecutor

        executor = RayExecutor(config, points, logs, models.ledger, case_source=cases)   # each worker gets the config
        async with _ray_workers(executor, config.run, config.memory, functools.partial(run_floor, config), models,
                                manifest, store) as parts:
            yield parts
        return
    settings = MemorySettings(config.memory, vault_title=config.vault_title, vault_id=config.vault_id,
                              config_path=config.config_path)
    async with open_memory(settings, Path(config.run_dir)) as opened:
        manifest["memory"].update(opened.describe())
        store.write_manifest(manifest)
        subject = memory_agent(config.run, models, builds_agent=True, cost_floor=functools.partial(run_floor, config),
                               replay=replay)
        yield RunParts(opened.driver, subject, LocalExecutor(CASE_GRAPH, cases))


@contextlib.asynccontextmanager
async def _outside_agent(agent: AgentConfig, concurrency: int, config_path: Path | None, eval_model: str,
                         models: RunModels, cases: Callable[[], Iterable[Case]], manifest: Manifest,
                         store: RunLog) -> AsyncIterator[RunParts]:
    """No memory server and no memory agent or reader: the outside agent learns and answers ([run] concurrency
    slots; `eval_model`: [models].eval, the judge, the one model of ours)."""
    pool = agent_pool(agent, concurrency, config_path)
    manifest["agent"] = pool.describe()   # a new key: written after the others, as update() did
    manifest["models"] = describe_outside_models(agent.type, eval_model, models)
    manifest["memory"] = AgentOwnMemory().describe()
    store.write_manifest(manifest)
    subject = OutsideAgentSubject(pool=pool, agent_type=agent.type, config_path=str(config_path))
    try:
        yield RunParts(AgentOwnMemory(), subject, LocalExecutor(AGENT_CASE_GRAPH, cases))
    finally:
        try:
            await pool.close()  # no agent process outlives the run
        finally:
            manifest["agent"] = pool.describe()  # now with the capabilities the agent reported


@contextlib.asynccontextmanager
async def _ray_workers(executor: RayExecutor, run: RunSection, memory: MemoryConfig,
                       cost_floor: Callable[[], CostFloor | None], models: RunModels, manifest: Manifest,
                       store: RunLog) -> AsyncIterator[RunParts]:
    """The workers run the case graph, each on its own embedded service or the shared server at
    [memory].mcp_url; this process stays the run directory's one writer."""
    try:
        await executor.start()
        manifest["executor"] = executor.describe()
        manifest["memory"]["per_worker"] = not executor.workers[0]["memory"]["shared"]
        store.write_manifest(manifest)
        subject = memory_agent(run, models, builds_agent=False, cost_floor=cost_floor)   # the workers run the agent
        yield RunParts(WorkersMemory(describe_mycelian(memory)), subject, executor)
    finally:
        if executor.workers:
            manifest["executor"] = executor.describe()  # with the cases lost to dead workers, before Ray stops
        await executor.close()
