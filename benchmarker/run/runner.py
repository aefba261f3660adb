"""`mycelian-longmemeval run`: from a validated config to a finished run directory.

Owns the lifetimes the graph must not: the embedded memory service process, the one MCP
session (opened and closed in this task), the models and the writers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from benchmarker.agent.ledger import JOURNAL_FILE, journal_totals
from benchmarker.agent.prompts import prompts_dir
from benchmarker.config import canonical_hash
from benchmarker.config_schema import MemoryConfig, MultiAgentConfig, RunConfig, SweepConfig
from benchmarker.datasets.source import DatasetPlan
from benchmarker.errors import MemoryServerLost, UserError, leaves
from benchmarker.graph.build import build_run_graph
from benchmarker.graph.context import SearchSettings
from benchmarker.graph.progress import RunProgress, done_per_case
from benchmarker.graph.state import RunState
from benchmarker.log.jsonl import JsonlWriter, read_json_object, read_jsonl
from benchmarker.log.lines import Manifest, ManifestConfig, ManifestDataset, ManifestTokens
from benchmarker.log.safe_open import create_exclusive
from benchmarker.log.store import PointLogs, RunLog
from benchmarker.registry import SUITE_LOOKUP, plan_dataset
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.context import build_context
from benchmarker.run.inputs import check_resume, run_inputs
from benchmarker.run.manifest import build_manifest, utc_now
from benchmarker.run.models import RunModels, build_models
from benchmarker.run.parts import open_parts
from benchmarker.run.run_lock import hold_run_lock
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot
    from benchmarker.agent.tracing import RunTracing
    from benchmarker.reporting.outputs import SweepFiles
    from benchmarker.run.replay_source import ReplaySource

log = logging.getLogger(__name__)


@dataclass
class RunOutcome:
    run_dir: Path
    summary: RunSummary   # the run's summary.json; empty for a sweep (each point has its own, in `points`)
    points: list[tuple[str, Path, RunSummary]]
    skipped: list[str] = field(default_factory=list)  # cases that failed or could not run (see errors.jsonl)
    sweep: SweepFiles | None = None   # a sweep's {"sweep": table, "best": point} (write_sweep_files)


def sweep_points(sweep: SweepConfig, top_k: int, search_alpha: float) -> list[SearchSettings]:
    """The `[sweep]` alpha x top_k grid around `[params] top_k` and `[memory] search_alpha`; a plain run is one
    point without a label."""
    alphas: list[float | None] = [*sweep.alpha] or [None]
    top_ks = list(sweep.top_k) or [top_k]
    base_alpha = search_alpha if search_alpha >= 0 else None
    if len(alphas) == 1 and len(top_ks) == 1 and not sweep.alpha and not sweep.top_k:
        return [SearchSettings(top_k=top_ks[0], alpha=base_alpha)]
    points = []
    for alpha in alphas:
        for top_k in top_ks:
            a = alpha if alpha is not None else base_alpha
            label = f"alpha={a if a is not None else 'service'}_topk={top_k}"
            points.append(SearchSettings(top_k=top_k, alpha=a, label=label))
    return points


async def execute_run(config: RunConfig, *, replay: ReplaySource | None = None) -> RunOutcome:
    """Run (or resume) what `config` describes. With `replay`, ingestion re-applies that finished
    run's recorded memory writes instead of running the memory agent (whose model is never built)."""
    check_writable(config.run_dir, config.config_path)
    with hold_run_lock(config.run_dir, "replay" if replay is not None else "run"):  # one process per run dir
        return await _execute_run(config, replay=replay)


async def _execute_run(config: RunConfig, *, replay: ReplaySource | None = None) -> RunOutcome:
    run_id = config.run_id
    run_dir = config.run_dir
    base_store = RunLog(run_dir)
    plan = plan_dataset(PlanSettings.of(config), run_dir)
    previous = cast(Manifest, read_json_object(base_store.manifest_path)) or None  # read back as written
    # The ledger starts from what earlier attempts of this run spent: a resume reports the whole cost.
    outside = config.agent.type != "memory_agent"  # an outside agent keeps its own memory: no server, no models
    if config.run.executor == "ray" and replay is not None:
        raise UserError(f"{config.config_path}: [run].executor = \"ray\": replay runs with the local executor "
                        "(it re-applies one run's writes in order); set executor = \"local\"")
    if outside and replay is not None:
        raise UserError(f"{config.config_path}: [agent].type = {config.agent.type!r}: replay re-applies our memory "
                        "agent's writes to our memory server; an outside agent's run cannot be replayed")
    # `cuda` with no device seen: exit 2 here, before any work
    device = _embedder_device(config.memory, config.agent.type, config.run.executor, config.config_path)
    journal = run_dir / JOURNAL_FILE  # every model call's usage, fsynced as it is spent
    journaled = journal_totals(read_jsonl(journal))
    earlier = journaled if journaled is not None else cast("LedgerSnapshot | None", (previous or {}).get("tokens"))
    models = build_models(config, earlier_tokens=earlier, with_agent=replay is None and not outside)
    inputs = run_inputs(canonical_hash(config), config.eval, config.models.eval, dataset_sha256=plan.sha256,
                        dataset_description=plan.description,
                        judge_kind=models.judge_kind, prompts_dir=prompts_dir())
    check_resume(previous, inputs, run_dir=run_dir, config_path=str(config.config_path), dataset_path=plan.path)
    manifest = _manifest(config, run_id, plan, models, previous)
    manifest["memory"]["device"] = device
    manifest["inputs"] = inputs
    if replay is not None:
        manifest["replay"] = replay.describe()
    from benchmarker.agent.tracing import RunTracing, disabled

    tracing = RunTracing.from_settings(config.tracing, config.run_id)
    manifest["tracing"] = tracing.describe() if tracing is not None else {"langsmith": False}
    base_store.write_manifest(manifest)
    ledger_journal = JsonlWriter(journal, durable=True)
    if journaled is None:  # a run directory from before the journal: carry its manifest's totals over once
        for role, model, usage in models.ledger.tallies():
            ledger_journal.write({"role": role, "model": model, **usage, "carried": "manifest"})
    models.ledger.journal_to(ledger_journal.write)
    outcome = RunOutcome(run_dir, RunSummary(), [])
    status = "failed"
    scope = contextlib.ExitStack()
    if tracing is None:
        scope.enter_context(disabled())  # tracing off: nothing is traced, whatever the environment says
    try:
        outcome = await _run_points(config, plan, models, manifest, base_store, replay, tracing)
        status = "finished"
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C cancels the run's task inside the loop
        status = "interrupted"
        raise
    finally:
        if models.batch_hub is not None:  # stop polling; submitted batches go on and a rerun picks them up
            await models.batch_hub.aclose()
            manifest["batches_submitted"] = list(models.batch_hub.submitted_batches)
        scope.close()
        if tracing is not None:
            tracing.flush()
            manifest["tracing"] = tracing.describe()
        manifest["status"], manifest["ended_at"] = status, utc_now()
        manifest["tokens"] = cast(ManifestTokens, models.ledger.snapshot())  # agent/ledger's LedgerSnapshot
        base_store.write_manifest(manifest)
        base_store.close()
        ledger_journal.close()
    return outcome


async def _run_points(config: RunConfig, plan: DatasetPlan, models: RunModels, manifest: Manifest, store: RunLog,
                      replay: ReplaySource | None, tracing: RunTracing | None) -> RunOutcome:
    """The run graph once per sweep point (a plain run is one point), over the parts `open_parts` chose."""
    run_dir = Path(config.run_dir)
    points = sweep_points(config.sweep, config.params.top_k, config.memory.search_alpha)
    logs = PointLogs(run_dir, [p.label for p in points])
    results: list[tuple[str, Path, RunSummary]] = []
    skipped: list[str] = []
    summary = RunSummary()
    state: RunState = {"total_questions": plan.total_questions}
    try:
        async with open_parts(config, plan, models, points=points, logs=logs, manifest=manifest, store=store,
                              replay=replay) as parts:
            for number, (point, log) in enumerate(zip(points, logs, strict=True), start=1):
                title = f"point {number}/{len(points)} {point.label}" if len(points) > 1 else ""
                with RunProgress(plan.total_questions, enabled=config.run.progress, title=title,
                                 interval_s=config.run.progress_interval_s, resumed=_done_before(config.run.phases, log),
                                 stats=lambda: ledger_totals(models.ledger)) as progress:
                    if models.batch_hub is not None:  # batch ids and their progress show on the run's progress
                        models.batch_hub.progress = progress
                    judge = models.judge_for(config.eval, config.run.max_failures_in_a_row)
                    ctx = build_context(config, log=log, parts=parts, judge=judge, models=models,
                                        progress=progress, search=point, tracing=tracing)
                    graph = build_run_graph([(g.name, g.cases) for g in plan.groups],
                                            self_improve_node=_self_improve_node(config.self_improve.iterations,
                                                                                 points),
                                            adversary_node=_adversary_node(config.multi_agent),
                                            graders_node=_graders_node(config.multi_agent),
                                            analyst_node=_analyst_node(config.multi_agent))
                    final = await graph.ainvoke(state, context=ctx)
                    state = {"total_questions": plan.total_questions, "setup": final["setup"]}  # the next point reuses it
                summary = final.get("summary") or RunSummary()
                results.append((point.label, log.answers_dir, summary))
                skipped.extend(c for c in final.get("cases_skipped", []) if c not in skipped)
    except BaseException as err:
        lost = next((leaf for leaf in leaves(err) if isinstance(leaf, MemoryServerLost)), None)  # in task groups too
        if lost is None:
            raise
        for log in logs.opened():  # every case in flight failed with it, named in errors.jsonl
            for case_id in sorted(log.interrupted):
                log.log_error(case_id, lost)
        raise lost from None
    finally:
        logs.close()
    if len(points) > 1:
        from benchmarker.reporting.outputs import write_sweep_files

        sweep = write_sweep_files(run_dir, results, config.sweep.model_dump(mode="json"), SUITE_LOOKUP)
        return RunOutcome(run_dir, RunSummary(), results, skipped, sweep=sweep)
    return RunOutcome(run_dir, summary, results, skipped)


def _done_before(phases: tuple[str, ...], log: RunLog) -> dict[str, int]:
    """Questions earlier attempts finished, per case: answered (what is left of one is judging it), or
    judged when this run only judges (`[run] phases`)."""
    records = log.done.answered if "qa" in phases else log.done.judged
    return done_per_case(records.values())


def _adversary_node(multi_agent: MultiAgentConfig) -> Any:
    """Rounds of verified harder questions after the cases ([multi_agent] adversary)."""
    if not multi_agent.adversary:
        return None
    from benchmarker.graph.adversary import adversary

    return adversary


def _analyst_node(multi_agent: MultiAgentConfig) -> Any:
    """A model's explanation of each wrong answer's diagnosis ([multi_agent] analyst_explain)."""
    if not multi_agent.analyst_explain:
        return None
    from benchmarker.graph.analyst import analyst

    return analyst


def _graders_node(multi_agent: MultiAgentConfig) -> Any:
    """Extra scores from named perspectives ([multi_agent] graders)."""
    if not multi_agent.graders:
        return None
    from benchmarker.graph.graders import graders

    return graders


def _self_improve_node(iterations: int, points: list[SearchSettings]) -> Any:
    """The loop runs after the cases of a plain run (`[self_improve] iterations`); a sweep already searches
    top_k x alpha."""
    if iterations <= 0:
        return None
    if len(points) > 1:
        log.warning("[self_improve] is skipped in a [sweep] run: the sweep already compares configurations")
        return None
    from benchmarker.graph.self_improve.node import self_improve

    return self_improve


def ledger_totals(ledger) -> dict[str, float]:
    total = ledger.snapshot()["total"]
    return {"tokens": total["input_tokens"] + total["output_tokens"], "cost_usd": total["cost_usd"],
            "cache_hit_share": total["cache_hit_share"]}


def check_writable(run_dir: Path, config_path: Path | None) -> None:
    """Fail before any work when the run directory cannot be created or written (the error names the config)."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        probe = run_dir / f".write-test-{os.getpid()}"  # its own name: two runs starting at once never race on it
        os.close(create_exclusive(probe))
        probe.unlink()
    except OSError as err:
        raise UserError(f"cannot write the run directory {run_dir} ({err.strerror or err}); set [run].output_dir "
                        f"in {config_path} to a folder you can write") from None


def _embedder_device(memory: MemoryConfig, agent_type: str, executor: str, config_path: Path | None) -> str | None:
    """Where minilm runs ("cpu" / "cuda"), said on stderr as the run starts; None without minilm (an embedder
    with no device to choose, or no embedded service). Ray workers start their own services and resolve
    "auto" on their own machines: the manifest then records the setting, not a device seen here."""
    if memory.backend != "embedded" or memory.embedder != "minilm" \
            or agent_type != "memory_agent":  # an outside agent keeps its own memory
        return None
    if executor == "ray":
        device = f"{memory.device} (resolved by each Ray worker)"
    else:
        from benchmarker.memory.drivers.open import embedder_device

        device = embedder_device(memory, config_path) or "cpu"
    print(f"memory: embedded service, embedder minilm on {device} ([memory] device = \"{memory.device}\")",
          file=sys.stderr, flush=True)
    return device


def _manifest(config: RunConfig, run_id: str, plan: DatasetPlan, models: RunModels, previous: Manifest | None) -> Manifest:
    manifest = build_manifest(
        config=cast(ManifestConfig, config.to_manifest(models.judge_kind)),  # config_schema sits below log/
        config_path=str(config.config_path), config_sha256=config.config_sha256,
        run_id=run_id,
        dataset=cast(ManifestDataset, {"kind": config.dataset.kind, "path": plan.path, "sha256": plan.sha256,
                                       "description": plan.description, "questions": plan.total_questions,
                                       "seeds": list(config.dataset.seeds) or [config.dataset.seed],
                                       **plan.details}),  # a suite's own keys: ManifestDataset names them
        models=models.describe(),
        memory={"backend": config.memory.backend, "preset": config.memory.preset,
                "mapping": config.memory.mapping or None, "transport": config.memory.transport or None,
                "embedder": config.memory.embedder if config.memory.backend == "embedded" else None,
                "alpha": config.memory.alpha if config.memory.backend == "embedded" else
                "service default" if config.memory.preset == "mycelian" and not config.memory.mapping else None},
        judge={"kind": models.judge_kind, "model": config.models.eval or None, "note": models.judge_note},
        previous=previous)
    # Every number that decides a score, beside the judge (also inside the config block).
    manifest["executor"] = {"executor": "local", "concurrency": config.run.concurrency}  # Ray: run/parts.py replaces it
    manifest["attempts"][-1]["executor"] = config.run.executor  # a resume may switch executors
    manifest["thresholds"] = {"eval": config.eval.thresholds.model_dump(mode="json"),
                              "self_improve": config.self_improve.model_dump(mode="json"),
                              "max_failures_in_a_row": config.run.max_failures_in_a_row}
    return manifest
