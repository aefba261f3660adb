"""One row of the board, from a run's summary and manifest: who was measured with what, and every figure that ranks
it (accuracy, cost, latency, context). A run directory and a result bundle give the same row; only `verified` and
the link differ."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarker.log.lines import Json
from benchmarker.reporting.like_for_like import RunFacts
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.unit_cost import usd_per_correct, usd_per_question
from benchmarker.view.runinfo import get

SEARCH_TOOLS = ("search_memories", "search")  # the memory tool a question's search goes through, in preference
CONDITIONS = (("no_memory", "no memory"), ("full_context", "full context"))  # baselines shown beside oracle


@dataclass(frozen=True)
class Row:
    """One ranked run or bundle."""

    key: str                     # the run's id, or the bundle's (its path under the served folder)
    label: str                   # what the figures print beside its point
    run_id: str | None           # the run page a row links to (a bundle has none)
    suite: str
    dataset_sha256: str | None
    subject: str
    settings: str
    reader: str
    judge: str
    overall: dict[str, Any] | None
    task_averaged: float | None
    recall: tuple[str, float] | None
    context_tokens: float | None
    usd_per_question: float | None
    usd_per_correct: float | None
    search_p50: float | None
    search_p95: float | None
    references: list[tuple[str, float]]  # ("oracle" | "no memory" | "full context", accuracy)
    verified: str
    facts: RunFacts | None = None
    unlike: list[str] = field(default_factory=list)  # why it is not like-for-like with its group's first row

    @property
    def accuracy(self) -> float | None:
        value = (self.overall or {}).get("accuracy")
        return float(value) if isinstance(value, int | float) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _subject(manifest: dict[str, Json], summary: RunSummary) -> str:
    agent = manifest.get("agent")
    if isinstance(agent, dict) and agent:
        return f"outside agent {agent.get('name') or agent.get('type') or ''}".strip()
    memory = summary.run.memory
    backend = (memory.backend if memory else None) or get(manifest, "memory", "backend") or "memory"
    if summary.run.mode == "retrieval":
        return f"retrieval only · {backend}"
    model = get(manifest, "models", "agent")
    return f"memory agent {model} · {backend}" if model else f"memory agent · {backend}"


def _settings(summary: RunSummary) -> str:
    run, memory = summary.run, summary.run.memory
    pairs = [("mode", run.mode), ("top_k", run.top_k), ("alpha", run.alpha if run.alpha is not None else
                                                         memory.alpha if memory else None),
             ("embedder", memory.embedder if memory else None), ("point", run.point)]
    return " ".join(f"{k}={v}" for k, v in pairs if v is not None)


def _judge(manifest: dict[str, Json], summary: RunSummary) -> str:
    kind, model = get(manifest, "judge", "kind"), get(manifest, "judge", "model")
    if not kind and summary.counts and summary.counts.judges:
        kind = ", ".join(sorted(summary.counts.judges))
        model = ", ".join(summary.counts.judge_models or [])
    return " ".join(str(part) for part in (kind, model) if part) or "–"


def _search(summary: RunSummary) -> tuple[float | None, float | None]:
    """p50 and p95 of the search tool's latency (ms); every memory tool call's where no search was timed apart."""
    speed = summary.speed
    if speed is None:
        return None, None
    by_tool = speed.tool_latency_by_tool_ms or {}
    cell = next((by_tool[t] for t in SEARCH_TOOLS if t in by_tool), speed.tool_latency_ms)
    return (_num(cell.p50), _num(cell.p95)) if cell is not None else (None, None)


def _references(summary: RunSummary) -> list[tuple[str, float]]:
    found = []
    if summary.oracle and summary.oracle.overall and (acc := _num(summary.oracle.overall.accuracy)) is not None:
        found.append(("oracle", acc))
    for key, words in CONDITIONS:
        cell = (summary.baselines.accuracy or {}).get(key) if summary.baselines else None
        if cell is not None and cell.overall is not None and (acc := _num(cell.overall.accuracy)) is not None:
            found.append((words, acc))
    return found


def make_row(key: str, label: str, run_id: str | None, summary: RunSummary, manifest: dict[str, Json], *,
             suite: str, dataset_sha256: str | None, verified: str, facts: RunFacts | None) -> Row:
    """The row of one valid run (`summary` already read and checked valid)."""
    qa = summary.qa
    metrics = (summary.retrieval.metrics if summary.retrieval else None) or {}
    recall = next(((k, float(v)) for k in ("turn.recall_any@10", "session.recall_any@5")
                   if isinstance(v := metrics.get(k), int | float)), None)
    tokens = summary.budget.context_tokens if summary.budget else None
    p50, p95 = _search(summary)
    models = models if isinstance(models := manifest.get("models"), dict) else {}
    return Row(key=key, label=label, run_id=run_id, suite=suite, dataset_sha256=dataset_sha256,
               subject=_subject(manifest, summary), settings=_settings(summary),
               reader=str(models.get("qa") or "–"), judge=_judge(manifest, summary),
               overall=qa.overall.as_dict() if qa and qa.overall else None,
               task_averaged=_num(qa.task_averaged.accuracy) if qa and qa.task_averaged else None,
               recall=recall, context_tokens=_num(tokens.mean) if tokens else None,
               usd_per_question=usd_per_question(summary), usd_per_correct=usd_per_correct(summary),
               search_p50=p50, search_p95=p95, references=_references(summary), verified=verified, facts=facts)
