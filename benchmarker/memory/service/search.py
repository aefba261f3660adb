"""Hybrid search: FTS5 BM25 and dense cosine, blended like Weaviate's relative-score fusion.

Each list (the best `candidates` hits of one method) is min-max normalised to [0, 1]; a list
whose scores are all equal normalises to 1. The final score is
alpha * vector + (1 - alpha) * bm25, a hit missing from one list getting 0 from it. alpha = 0
runs BM25 alone, alpha = 1 the vector search alone. Ties (to 1e-9) go to the newer row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from benchmarker.memory.service.store import Store
from benchmarker.memory.service.vectors import VectorCache

# Weaviate's default BM25 stopword preset ("en"): dropped from queries unless nothing else is left.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with".split())
MAX_QUERY_TOKENS = 64
DEFAULT_CANDIDATES = 100
_TOKEN = re.compile(r"[^\W_]+")


def query_tokens(text: str) -> list[str]:
    """Lower-cased word tokens of a query, deduplicated, stopwords removed when others remain."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        seen.setdefault(token, None)
    tokens = list(seen)
    content = [t for t in tokens if t not in STOPWORDS]
    return (content or tokens)[:MAX_QUERY_TOKENS]


def fts_expression(text: str) -> str | None:
    """An FTS5 MATCH expression that ORs the query's tokens, each quoted as a phrase.

    Quoting makes every user token a literal: FTS5 operators (AND, OR, NOT, NEAR), column
    filters (`col:`), prefixes (`*`), `^` and parentheses in the query are just words.
    """
    tokens = query_tokens(text)
    if not tokens:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in tokens)


def min_max(scores: Sequence[float]) -> list[float]:
    """Scale to [0, 1] (max -> 1, min -> 0); all-equal scores -> 1.0 each, as Weaviate does."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    span = high - low
    return [(s - low) / span for s in scores]


def fuse(bm25: Sequence[tuple[int, float]], dense: Sequence[tuple[int, float]],
         alpha: float) -> list[tuple[int, float]]:
    """Relative-score fusion of two (id, raw score) lists; (id, fused score) best first."""
    combined: dict[int, float] = {}
    for hits, weight in ((bm25, 1.0 - alpha), (dense, alpha)):
        if weight <= 0.0 or not hits:
            continue
        for (row, _), norm in zip(hits, min_max([s for _, s in hits]), strict=True):
            combined[row] = combined.get(row, 0.0) + weight * norm
    # Rounding makes float noise ((0.7-0.5)/(0.9-0.5) = 0.49999...) a tie, decided by the row.
    rounded = {row: round(score, 9) for row, score in combined.items()}
    return sorted(rounded.items(), key=lambda item: (-item[1], -item[0]))


class HybridSearcher:
    """Runs both searches over one memory's indexed rows and fuses them."""

    def __init__(self, store: Store, vectors: VectorCache, candidates: int = DEFAULT_CANDIDATES):
        self.store = store
        self.vectors = vectors
        self.candidates = candidates

    def search(self, kind: str, mkey: int, query: str, query_vec: np.ndarray | None, alpha: float,
               top_k: int) -> list[tuple[int, float]]:
        """(seq, score) of the top_k best rows of `kind` ("entry" or "context") in memory `mkey`."""
        n = max(top_k, self.candidates)
        keyword: list[tuple[int, float]] = []
        dense: list[tuple[int, float]] = []
        expression = fts_expression(query)
        if alpha < 1.0 and expression is not None:
            keyword = self.store.bm25(kind, mkey, expression, n)
        if alpha > 0.0 and query_vec is not None:
            dense = self.vectors.get(kind, mkey).top(query_vec, n)
        return fuse(keyword, dense, alpha)[:top_k]
