"""summary.json's `run` block as a model: the run metadata, the memory searched and how the agent wrote."""

from __future__ import annotations

from typing import Any

from benchmarker.reporting.summary_block import Block, Num


class MemoryInfo(Block):
    """run.memory: what memory the run searched (MemoryDriver.describe, without where it ran)."""

    backend: str | None = None
    embedder: str | None = None
    alpha: Num | str | None = None   # "service default" on a Mycelian stack, whose alpha the harness does not set
    lacks: list[str] | None = None


class MemoryAgentInfo(Block):
    """run.memory_agent: how our memory agent wrote (ingest unit, who typed raw_entry, the context cadence)."""

    ingest_unit: str | None = None
    raw_entry: str | None = None
    context_update: str | None = None
    context_every_sessions: int | None = None


class Rescored(Block):
    """run.rescored, on a `score` re-judging: whose answers, which judge, where the run's own report is."""

    of_run: str | None = None
    judge: str | None = None
    model: str | None = None
    label: str | None = None
    original_report: str | None = None
    thresholds: str | None = None


class TracingInfo(Block):
    """run.tracing, on a `[tracing] langsmith = true` run: where its traces are (agent/tracing.py describe)."""

    langsmith: bool | None = None
    project: str | None = None
    endpoint: str | None = None
    tags: list[str] | None = None
    sample_rate: Num | None = None
    cases_traced: int | None = None
    url: str | None = None


class RunBlock(Block):
    """summary.json's `run`: the run metadata as given; the search settings `compare` and `report` read."""

    run_id: str | None = None
    mode: str | None = None
    point: str | None = None
    top_k: int | None = None
    alpha: Num | None = None
    memory: MemoryInfo | None = None
    replay: dict[str, Any] | None = None
    started_at: str | None = None
    config: str | None = None
    wall_s: Num | None = None
    memory_agent: MemoryAgentInfo | None = None
    rescored: Rescored | None = None
    tracing: TracingInfo | None = None
