"""Is memory needed here? The statistics of the baselines beside a run, from result lines alone.

- accuracy per condition (no_memory, memory, full_context, oracle), overall and per question type, each with its
  95% Wilson interval (qa_metrics.cell);
- headroom captured = (memory - no_memory) / (oracle - no_memory): the share of what perfect evidence adds over
  no memory that the memory system delivers, on the questions judged under all three, with a seeded paired
  bootstrap interval (the same questions drawn for the three conditions at once; a draw whose oracle and
  no-memory accuracies are equal has no ratio and is left out, and counted);
- McNemar's exact test between memory and full context on the questions judged under both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import numpy as np

from benchmarker.scoring.qa_metrics import AccuracyCell, cell
from benchmarker.scoring.stats import mcnemar_exact

CONDITIONS = ("no_memory", "memory", "full_context", "oracle")
ITERATIONS, SEED = 10_000, 0


class AccuracyTable(TypedDict):
    overall: AccuracyCell
    by_type: dict[str, AccuracyCell]


class HeadroomFigure(TypedDict):
    """The headroom captured, (memory - no_memory) / (oracle - no_memory), with its bootstrap interval."""

    n: int
    value: float | None
    ci95: list[float] | None
    iterations: NotRequired[int]
    seed: NotRequired[int]
    undefined_draws: NotRequired[int]
    note: NotRequired[str]           # why there is no figure (a condition was not run)


class McNemarFigure(TypedDict):
    n: int
    memory_only: int
    full_context_only: int
    p_value: float


def labels_by_question(results: Sequence[Mapping[str, Any]]) -> dict[str, bool | None]:
    return {str(r.get("question_id")): r.get("label") for r in results}


def accuracy_table(results: Sequence[Mapping[str, Any]]) -> AccuracyTable:
    """{"overall": cell, "by_type": {type: cell}} over one condition's result lines."""
    by_type: dict[str, list[bool | None]] = {}
    for r in results:
        by_type.setdefault(str(r.get("question_type") or "unknown"), []).append(r.get("label"))
    return {"overall": cell(r.get("label") for r in results),
            "by_type": {t: cell(labels) for t, labels in sorted(by_type.items())}}


def headroom_ratio(memory: np.ndarray, no_memory: np.ndarray, oracle: np.ndarray) -> float | None:
    gap = float(oracle.mean() - no_memory.mean())
    return None if gap == 0 else float(memory.mean() - no_memory.mean()) / gap


def headroom(memory: Mapping[str, bool | None], no_memory: Mapping[str, bool | None],
             oracle: Mapping[str, bool | None], *, iterations: int = ITERATIONS, seed: int = SEED) -> HeadroomFigure:
    """The headroom captured and its paired bootstrap interval, over questions judged under all three."""
    shared = sorted(q for q in memory if memory[q] is not None and no_memory.get(q) is not None
                    and oracle.get(q) is not None)
    out: HeadroomFigure = {"n": len(shared), "value": None, "ci95": None, "iterations": iterations, "seed": seed,
                           "undefined_draws": 0}
    undefined = 0
    if not shared:
        return out
    m, z, o = (np.array([bool(d[q]) for q in shared], dtype=float) for d in (memory, no_memory, oracle))
    out["value"] = headroom_ratio(m, z, o)
    rng = np.random.default_rng(seed)
    ratios: list[np.ndarray] = []
    for start in range(0, iterations, 1000):  # chunks keep memory flat on ~2,000 LoCoMo questions
        idx = rng.integers(0, len(shared), size=(min(1000, iterations - start), len(shared)))
        gap = o[idx].mean(axis=1) - z[idx].mean(axis=1)
        gain = m[idx].mean(axis=1) - z[idx].mean(axis=1)
        defined = gap != 0
        undefined += int((~defined).sum())
        ratios.append(gain[defined] / gap[defined])
    out["undefined_draws"] = undefined
    drawn = np.concatenate(ratios)
    if drawn.size:
        lo, hi = np.percentile(drawn, [2.5, 97.5])
        out["ci95"] = [float(lo), float(hi)]
    return out


def mcnemar(memory: Mapping[str, bool | None], full_context: Mapping[str, bool | None]) -> McNemarFigure:
    """Exact McNemar between memory and full context: the discordant questions and the two-sided p-value."""
    shared = [q for q in memory if memory[q] is not None and full_context.get(q) is not None]
    memory_only = sum(1 for q in shared if memory[q] and not full_context[q])
    full_only = sum(1 for q in shared if full_context[q] and not memory[q])
    return {"n": len(shared), "memory_only": memory_only, "full_context_only": full_only,
            "p_value": mcnemar_exact(memory_only, full_only)}


def is_memory_needed(conditions: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """The whole block from each present condition's result lines (a condition not run is absent)."""
    present = [c for c in CONDITIONS if conditions.get(c)]
    labels = {c: labels_by_question(conditions[c]) for c in present}
    block: dict[str, Any] = {"conditions": present, "accuracy": {c: accuracy_table(conditions[c]) for c in present}}
    if {"memory", "no_memory", "oracle"} <= set(present):
        block["headroom"] = headroom(labels["memory"], labels["no_memory"], labels["oracle"])
    else:
        missing: HeadroomFigure = {"n": 0, "value": None, "ci95": None,
                                   "note": "needs memory, no_memory and the oracle: run `baselines` and `oracle`"}
        block["headroom"] = missing
    if {"memory", "full_context"} <= set(present):
        block["mcnemar_memory_vs_full_context"] = mcnemar(labels["memory"], labels["full_context"])
    return block
