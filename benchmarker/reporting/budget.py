"""summary.json's `budget`: how much context each reader saw, in real tokens, and what was trimmed or cut.

A pure function of the results lines (graph/budget.py writes their fields), so `report` recomputes it and two runs
can be checked for equal budgets (reporting/like_for_like.py). A line without `context_tokens` (a run from before
budgets were measured, or an outside agent that reports none) is counted apart, never as zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.summary_metric_blocks import BudgetBlock, BudgetCut, ContextTokens, HitsTrimmed
from benchmarker.token_count import TOKENIZER

SHOWN_IDS = 20   # question ids listed per flag in the block; the counts are whole


def _tokens(line: ResultLine) -> int | None:
    value = line.get("context_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class ContextStats(TypedDict):
    n: int
    mean: float | None
    p50: float | None
    p95: float | None
    max: int | None


class Trimmed(TypedDict):
    questions: int
    hits: int
    question_ids: list[str]


class Cut(TypedDict):
    questions: int
    hits_dropped: int
    text_cut: int
    question_ids: list[str]


class OverBudget(TypedDict):
    questions: int
    question_ids: list[str]


class BudgetShape(TypedDict):
    """summary.json's `budget` as budget_block computes it (summary_model.BudgetBlock validates it)."""

    tokenizer: str
    top_k: int | None
    context_budget_tokens: int
    questions: int
    context_tokens: ContextStats
    source: dict[str, int]
    hits_trimmed: Trimmed
    cut: Cut
    over_budget: OverBudget
    notes: list[str]


def _stats(values: list[int]) -> ContextStats:
    if not values:
        return {"n": 0, "mean": None, "p50": None, "p95": None, "max": None}
    array = np.array(values, dtype=float)
    return {"n": len(values), "mean": float(array.mean()), "p50": float(np.percentile(array, 50)),
            "p95": float(np.percentile(array, 95)), "max": int(array.max())}


def budget_block(results: Sequence[ResultLine]) -> BudgetShape:
    """tokenizer, top_k, context_budget_tokens, context_tokens stats, hits trimmed, budget cuts, agents over budget."""
    measured = [t for r in results if (t := _tokens(r)) is not None]
    top_ks = Counter(k for r in results if isinstance(k := r.get("top_k"), int))
    budgets = {_int(r.get("context_budget_tokens")) for r in results if "context_budget_tokens" in r}
    trimmed = [r for r in results if _int(r.get("hits_trimmed")) > 0]
    cut = [r for r in results if isinstance(r.get("budget_cut"), dict)
           and (_int(r["budget_cut"].get("hits_dropped")) > 0 or r["budget_cut"].get("text_cut"))]
    over = [r for r in results if r.get("over_budget")]
    notes = []
    if results and not measured:
        notes.append("no results line carries context_tokens (a run from before budgets were measured, or an outside "
                     "agent that reports no context): the context budget is not known")
    elif len(measured) < len(results):
        notes.append(f"{len(results) - len(measured)} of {len(results)} lines carry no context_tokens (an outside "
                     "agent reporting none): left out of the statistics")
    if len(top_ks) > 1:
        notes.append(f"the lines asked for different top_k: {dict(sorted(top_ks.items()))}")
    if len(budgets) > 1:
        notes.append(f"the lines ran under different context budgets: {sorted(budgets)}")
    return {
        "tokenizer": TOKENIZER,
        "top_k": max(top_ks) if top_ks else None,
        "context_budget_tokens": max(budgets) if budgets else 0,
        "questions": len(results),
        "context_tokens": _stats(measured),
        "source": dict(sorted(Counter(str(r.get("context_tokens_source") or "harness")
                                      for r in results if _tokens(r) is not None).items())),
        "hits_trimmed": {"questions": len(trimmed), "hits": sum(_int(r.get("hits_trimmed")) for r in trimmed),
                         "question_ids": [str(r.get("question_id")) for r in trimmed[:SHOWN_IDS]]},
        "cut": {"questions": len(cut), "hits_dropped": sum(_int(r["budget_cut"].get("hits_dropped")) for r in cut),
                "text_cut": sum(1 for r in cut if r["budget_cut"].get("text_cut")),
                "question_ids": [str(r.get("question_id")) for r in cut[:SHOWN_IDS]]},
        "over_budget": {"questions": len(over), "question_ids": [str(r.get("question_id")) for r in over[:SHOWN_IDS]]},
        "notes": notes,
    }


def budget_line(block: BudgetBlock) -> str:
    """The report's one-paragraph "Budget" section."""
    stats = block.context_tokens or ContextTokens()
    budget = block.context_budget_tokens or 0
    parts = [f"top_k {block.top_k if block.top_k is not None else 'n/a'}",
             f"context budget {f'{budget:,} tokens' if budget else 'none (measured only)'}"]
    if stats.n:
        parts.append(f"reader context ({block.tokenizer}) mean {stats.mean:,.0f}, p50 {stats.p50:,.0f}, "
                     f"p95 {stats.p95:,.0f}, max {stats.max:,} tokens over {stats.n} questions")
    else:
        parts.append("reader context not measured")
    trimmed, cut, over = block.hits_trimmed or HitsTrimmed(), block.cut or BudgetCut(), block.over_budget
    parts.append(f"hits above top_k trimmed: {trimmed.hits or 0} on {trimmed.questions or 0} questions")
    if budget:
        parts.append(f"cut by the budget: {cut.questions or 0} questions ({cut.hits_dropped or 0} hits dropped)")
    if over is not None and over.questions:
        parts.append(f"outside agent over the budget on {over.questions} questions")
    return "; ".join(parts) + "." + "".join(f"\n\n{note}" for note in block.notes or [])
