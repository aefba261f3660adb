"""What every node of the run graph needs and nothing in the state should carry.

LangGraph passes this as the runtime context (`graph.ainvoke(..., context=RunContext(...))`).
It holds live objects (the MCP session, models, writers), so it never goes into graph state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from benchmarker.run.progress import RunProgress
from benchmarker.run.store import ResumeState, RunStore


@dataclass
class SearchSettings:
    """Search-time knobs: these change QA, never what ingestion wrote (so sweeps reuse ingestion)."""

    top_k: int
    alpha: float | None  # None: the service's own alpha (Mycelian's SEARCH_ALPHA)
    label: str = ""      # sweep point label, "" for a plain run


@dataclass
class RunContext:
    config: Any                 # benchmarker.config.RunConfig
    run_id: str
    store: RunStore
    resume: ResumeState
    client: Any                 # benchmarker.memory.client.MemoryClient
    vault_id: str
    default_prompts: dict[str, Any]
    agent: Any | None           # the compiled memory agent (None in retrieval mode)
    qa_model: Any | None
    judge_model: Any | None
    judge_kind: str             # deterministic | llm | official
    official_prompt: Any | None
    ledger: Any                 # benchmarker.agent.ledger.TokenLedger
    retry_policy: Any
    progress: RunProgress
    search: SearchSettings
    offline: bool
    phases: tuple[str, ...]
    mode: str                   # agent | retrieval
    # case_id -> the memory agent's tool calls in order (L13 scores them; facts reads them back)
    tool_traces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    # Self-improve: re-iterates the run's cases; a candidate's prompt copies and context cadence.
    case_source: Callable[[], Iterable[Any]] | None = None
    prompts_dir: Path | None = None
    context_cadence: int | None = None
    # The agent's decision sink holds the run's context; a candidate's re-ingestion points it here.
    decisions_to: "RunContext | None" = None
    # `replay`: a finished run's recorded writes to re-apply instead of running the agent
    # (benchmarker.run.replay.ReplaySource); None for a normal run.
    replay: Any | None = None

    def record_decision(self, record: dict[str, Any]) -> None:
        """Every tool call, the agent's and the harness's own, goes to decisions.jsonl."""
        if self.decisions_to is not None:
            self.decisions_to.record_decision(record)
            return
        self.store.log_decision(record)
        if record.get("caller") == "agent":
            self.tool_traces.setdefault(record["case_id"], []).append(
                {"tool": record["tool"], "args": record.get("args", {}), "error": record.get("error")}
            )
            self.progress.add_tool_calls()
