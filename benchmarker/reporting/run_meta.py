"""`RunMeta`: what the caller of write_outputs knows about a run that its results lines do not say.

The run graph's `summarise` node, `report` (outputs.rebuild_outputs) and the oracle, rescore and baselines verbs
build one; summary.py copies it into summary.json's `run` block (minus decisions, tokens and errors, which it
reads for the cost, speed and counts blocks), so the keys here are the `run` keys summary.py documents.
Written bytes follow the dict's insertion order, as before: a TypedDict is a plain dict at runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from benchmarker.log.lines import DecisionLine, ErrorLine, Json

if TYPE_CHECKING:  # types only: the run-time import of the ledger and the subject stays where they are used
    from benchmarker.agent.ledger import LedgerSnapshot
    from benchmarker.subjects.memory_agent import CostFloor


class RunMeta(TypedDict, total=False):
    """write_outputs' `run_meta` (summary.py's docstring says what each key becomes)."""

    run_id: str | None
    offline: bool
    mode: str                              # "agent" | "retrieval"
    judge: str | None
    point: str                             # the sweep point's label, "oracle", "scores/<label>", "" for a plain run
    top_k: int | None
    alpha: float | None
    tokens: LedgerSnapshot | None          # the token ledger's snapshot (cost_block reads it when lines lack tokens)
    dataset_kind: str | None
    thresholds: dict[str, Json] | None     # the run's [eval.thresholds] as run
    memory: dict[str, Json]                # MemoryDriver.describe(), or the manifest's backend fields
    write_tool: str | None
    wall_s: float
    analyst: bool
    graders: list[str]
    graders_note: str
    tracing: dict[str, Json]
    agent: dict[str, Json] | None          # an outside agent's description
    replay: dict[str, Json]
    floor: CostFloor | None
    memory_agent: dict[str, Json]          # the memory agent's writing mode
    oracle: dict[str, Json]                # `oracle`: which run, which reader and judge
    rescored: dict[str, Json]              # `score`: which run, which judge
    baseline: dict[str, Json]              # `baselines`: which condition of which run
    started_at: str                        # from the manifest (outputs._manifest_facts)
    config: str
    decisions: list[DecisionLine]          # summary.py's inputs only: never copied into `run`
    errors: list[ErrorLine]
