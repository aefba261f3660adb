"""A run whose agent under test is outside the harness (`[agent].type` http or subprocess).

No memory server is started and no memory agent or reader is built: the outside agent learns
and answers, the harness feeds it, judges its answers and writes the same run directory. This
module owns the agents' lifetime: they are closed when the run ends, also on failure and Ctrl-C.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarker.agent.adapters import (
    AgentPool,
    HttpAgentAdapter,
    HttpAgentSettings,
    SubprocessAgentAdapter,
    SubprocessAgentSettings,
)
from benchmarker.datasets.source import DatasetPlan
from benchmarker.graph.agent_case import agent_setup
from benchmarker.graph.build import build_run_graph
from benchmarker.graph.context import RunContext, SearchSettings
from benchmarker.graph.progress import RunProgress
from benchmarker.log.store import RunLog
from benchmarker.redact import redact, redact_url
from benchmarker.run.models import RunModels
from benchmarker.run.runner import RunOutcome, ledger_totals


def agent_pool(config) -> AgentPool:
    """The configured outside agent: one HTTP service, or one subprocess per concurrent case. Its
    description (manifest, summary) names header and variable names, never their values."""
    agent = config.agent
    if agent.type == "http":
        h = agent.http
        settings = HttpAgentSettings(base_url=h.base_url, name=h.name, header_env=dict(h.header_env),
                                     headers=dict(h.headers), timeout_s=h.timeout_s, max_attempts=h.max_attempts,
                                     initial_backoff_s=h.initial_backoff_s, max_backoff_s=h.max_backoff_s)
        description = {"type": "http", "name": h.name, "base_url": redact_url(h.base_url),
                       "headers": sorted(h.headers), "header_env": sorted(h.header_env), "timeout_s": h.timeout_s,
                       "max_attempts": h.max_attempts}
        return AgentPool(lambda: HttpAgentAdapter(settings), size=1, description=redact(description))
    if agent.type == "subprocess":
        s = agent.subprocess
        cwd = _cwd(config, s.cwd)
        sub_settings = SubprocessAgentSettings(command=s.command, args=tuple(s.args), env=dict(s.env), cwd=cwd,
                                           name=s.name, timeout_s=s.timeout_s, close_grace_s=s.close_grace_s)
        description = {"type": "subprocess", "name": s.name, "command": s.command, "args": list(s.args),
                       "cwd": cwd, "env": sorted(s.env), "timeout_s": s.timeout_s}
        return AgentPool(lambda: SubprocessAgentAdapter(sub_settings), size=config.run.concurrency,
                         description=redact(description))
    raise ValueError(f"[agent].type = {agent.type!r} is not an outside agent")


def _cwd(config, written: str) -> str:
    """Relative to the config file's folder, like every path in the config; "" means that folder."""
    base = config.config_path.parent if config.config_path else Path.cwd()
    return str((base / Path(written).expanduser()).resolve()) if written else str(base.resolve())


def describe_models(config, models: RunModels) -> dict[str, Any]:
    """The manifest's models block: only the judge is ours; the outside agent learns and answers."""
    return {"provider": models.provider, "agent": f"{config.agent.type} agent (outside the harness)", "qa": None,
            "eval": config.models.eval or None, "judge": models.judge_kind, "offline": False,
            "note": "answers come from an outside agent; the harness only judges them"}


async def run_with_adapter(config, plan: DatasetPlan, models: RunModels, manifest: dict[str, Any],
                           store: RunLog, *, tracing: Any | None = None) -> RunOutcome:
    """The run graph with the outside agent's setup and case graph; the caller writes the final manifest."""
    run_dir = config.run_dir
    pool = agent_pool(config)
    manifest.update(agent=pool.describe(), models=describe_models(config, models),
                    memory={"backend": "none: the outside agent keeps its own memory"})
    store.write_manifest(manifest)
    log = RunLog(run_dir)
    try:
        with RunProgress(plan.total_questions, enabled=config.run.progress,
                         stats=lambda: ledger_totals(models.ledger)) as progress:
            ctx = RunContext(
                config=config, run_id=config.run_id, log=log, client=None, agent=None, qa_model=None,  # type: ignore[arg-type]  # no MCP client: the agent keeps its memory (RunContext is narrowed in issue 25)
                judge=models.judge_for(config), ledger=models.ledger, progress=progress,
                search=SearchSettings(top_k=config.params.top_k, alpha=None), offline=False,
                phases=tuple(config.run.phases), mode=config.run.mode, adapter=pool, tracing=tracing,
                case_source=lambda: (case for g in plan.groups for case in g.cases()))
            graph = build_run_graph([(g.name, g.cases) for g in plan.groups], setup_node=agent_setup)
            final = await graph.ainvoke({"total_questions": plan.total_questions}, context=ctx)
    finally:
        log.close()
        try:
            await pool.close()  # also after a failure or Ctrl-C: no agent process outlives the run
        finally:
            manifest["agent"] = pool.describe()  # now with the capabilities the agent reported
    summary = final.get("summary", {})
    return RunOutcome(run_dir, summary, [("", run_dir, summary)], list(final.get("cases_skipped", [])))
