"""Equal budgets for every reader: at most `top_k` hits, and a context of at most `[run] context_budget_tokens`.

A server that returns more hits than asked would hand its reader a bigger context than its peers get, so hits
above `top_k` are dropped before the reader sees them and counted (`hits_trimmed`). With a token budget, the
lowest-ranked whole hits are dropped until the context fits; only when the memory's own contexts (latest /
best) alone exceed it is the text itself cut to a prefix. `[params] qa_max_context_chars` still applies first,
inside `build_context`: a context obeys both limits, the stricter one deciding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from benchmarker.graph.retrieval import build_context
from benchmarker.log.lines import Json
from benchmarker.redact import clean_cut
from benchmarker.token_count import count_tokens, cut_to_tokens

Hit = dict[str, Json]   # one search hit as the memory driver returns it (memory.driver.SearchFound.hits)


class BudgetCut(TypedDict):
    """An answers line's `budget_cut`: what the token budget took out."""

    hits_dropped: int
    tokens_before: int
    text_cut: bool


class ContextFields(TypedDict, total=False):
    """An answers line's reader-context budget keys (docs/run-files.md)."""

    context_tokens: int
    context_tokens_source: str
    context_budget_tokens: int
    budget_cut: BudgetCut
    over_budget: bool


def trim_to_top_k(hits: list[Hit], top_k: int) -> tuple[list[Hit], int]:
    """The first `top_k` hits (the server's ranking) and how many it returned beyond them."""
    return hits[:top_k], max(0, len(hits) - top_k)


@dataclass(frozen=True)
class ReaderContext:
    """What the reader sees: the text, the hits in it, its cl100k_base tokens and what the budget cut."""

    text: str
    hits: list[Hit]
    tokens: int
    cut: BudgetCut | None = None        # {"hits_dropped", "tokens_before", "text_cut"} when the budget cut

    def fields(self, budget: int) -> ContextFields:
        """The answers line's budget fields."""
        out: ContextFields = {"context_tokens": self.tokens, "context_budget_tokens": budget}
        if self.cut is not None:
            out["budget_cut"] = self.cut
        return out


def fit_context(search_result: dict[str, Json], hits: list[Hit], max_chars: int,
                budget: int) -> ReaderContext:
    """The reader's context within `budget` tokens (0: no budget, measured only), lowest-ranked hits out first."""
    text = build_context(search_result, hits, max_chars)
    tokens = count_tokens(text)
    if budget <= 0 or tokens <= budget:
        return ReaderContext(text, list(hits), tokens)
    # The largest number of leading hits whose context fits; a context only grows with another hit.
    low, high = 0, len(hits) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(build_context(search_result, hits[:middle], max_chars)) <= budget:
            low = middle
        else:
            high = middle - 1
    kept = list(hits[:low])
    fitted = build_context(search_result, kept, max_chars)
    fitted_tokens = count_tokens(fitted)
    text_cut = fitted_tokens > budget   # the memory's own contexts alone are over the budget
    limit = budget
    whole = fitted
    while fitted_tokens > budget and limit > 0:   # a decoded prefix can re-encode a token longer: shrink until it fits
        fitted = cut_to_tokens(whole, limit)
        fitted = clean_cut(whole, len(fitted)) if whole.startswith(fitted) else fitted  # never inside a credential
        fitted_tokens = count_tokens(fitted)
        limit -= 1
    return ReaderContext(fitted, kept, fitted_tokens,
                         {"hits_dropped": len(hits) - len(kept), "tokens_before": tokens, "text_cut": text_cut})


def reported_context(context_tokens: int | None, budget: int) -> ContextFields:
    """An outside agent's answer fields: the context it reports (protocol v2's optional `context_tokens`; the
    harness cannot see it), the budget, and `over_budget` when the report is above it. Nothing reported: nothing."""
    if context_tokens is None:
        return {}
    out: ContextFields = {"context_tokens": context_tokens, "context_tokens_source": "agent",
                          "context_budget_tokens": budget}
    if budget > 0 and context_tokens > budget:
        out["over_budget"] = True
    return out
