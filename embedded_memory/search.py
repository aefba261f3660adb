"""Hybrid search: BM25 and dense cosine, blended like Weaviate's relative-score fusion.

BM25 is Okapi BM25 as SQLite FTS5 computes it (k1 = 1.2, b = 0.75), with every statistic taken
from the searched memory alone (keyword_index.py keeps one index per memory), so a question's
ranking never depends on the other memories in the database:

    score(d) = sum over query terms t in d of  IDF(t) * f(t,d) * (k1 + 1) / (f(t,d) + k1 * (1 - b + b * |d| / avgdl))
    IDF(t)   = ln((N - n(t) + 0.5) / (n(t) + 0.5)), replaced by 1e-6 when it is <= 0

N is the number of searchable rows of the memory, n(t) how many of them contain t, f(t,d) how
often t occurs in d (an entry's raw_entry and summary together; a context's content), |d| the
number of tokens in d and avgdl the mean |d| over the memory. Tokens: FTS5's unicode61 tokenizer
(case-folded, diacritics removed); the query's tokens are OR-ed (see `fts_expression`).

Each list (the best `candidates` hits of one method) is min-max normalised to [0, 1]; a list
whose scores are all equal normalises to 1. The final score is
alpha * vector + (1 - alpha) * bm25, a hit missing from one list getting 0 from it. alpha = 0
runs BM25 alone, alpha = 1 the vector search alone. Ties (to 1e-9) go to the newer row.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from embedded_memory.keyword_index import KEYWORD_CACHE_BYTES, KeywordIndexes
from embedded_memory.store import Store, searchable_texts
from embedded_memory.vectors import VectorCache

# Query-side stopwords (documents keep every word): Weaviate's "en" preset plus pronouns, question
# words and auxiliaries. They match nearly every chat message, add almost nothing to BM25 (their
# IDF is ~0) and cost a scan of every matching row; dropped unless nothing else is left.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there "
    "these they this to was will with "
    "i me my mine myself we us our ours you your yours he him his she her hers its they them theirs "
    "what which who whom whose when where why how do does did doing done have has had having am were "
    "been being can could would should shall may might must about from up down out off over so than too "
    "very just also any some all each both few more most other same only own again once here s t".split())
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
    """Runs both searches over one memory's indexed rows and fuses them.

    `keyword` (async) runs the BM25 query in its own thread (the per-memory indexes read the
    database through their own read-only connection), so a long full-text scan never stalls the
    event loop; the dense part stays on the loop, where the indexer appends vectors (the vector
    matrices are not shared across threads). `keywords.publish` is how the indexer makes rows
    searchable by BM25.
    """

    def __init__(self, store: Store, vectors: VectorCache, candidates: int = DEFAULT_CANDIDATES,
                 threaded: bool = True, keyword_budget_bytes: int = KEYWORD_CACHE_BYTES):
        self.store = store
        self.vectors = vectors
        self.candidates = candidates
        self._reader = store.reader() if threaded else None
        reader = self._reader if self._reader is not None else store.db
        self.keywords = KeywordIndexes(lambda kind, mkey: searchable_texts(reader, kind, mkey), keyword_budget_bytes)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bm25") if threaded else None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        self.keywords.close()
        if self._reader is not None:
            self._reader.close()

    def bm25(self, kind: str, mkey: int, query: str, limit: int) -> list[tuple[int, float]]:
        """(seq, BM25 score) of the best `limit` rows of `kind` in memory `mkey`, best first."""
        expression = fts_expression(query)
        return self.keywords.search(kind, mkey, expression, limit) if expression is not None else []

    def rank(self, kind: str, mkey: int, query: str, query_vec: np.ndarray | None, alpha: float, top_k: int,
             keyword: list[tuple[int, float]] | None = None) -> list[tuple[int, float]]:
        """(seq, score) of the top_k best rows of `kind` ("entry" or "context") in memory `mkey`."""
        n = max(top_k, self.candidates)
        if keyword is None:
            keyword = self.bm25(kind, mkey, query, n) if alpha < 1.0 else []
        dense: list[tuple[int, float]] = []
        if alpha > 0.0 and query_vec is not None:
            dense = self.vectors.get(kind, mkey).top(query_vec, n)
        return fuse(keyword, dense, alpha)[:top_k]

    async def keyword(self, kind: str, mkey: int, query: str, top_k: int) -> list[tuple[int, float]]:
        """The BM25 candidates for `rank`, queried off the event loop (runs alongside the embedder)."""
        n = max(top_k, self.candidates)
        if self._executor is None:
            return self.bm25(kind, mkey, query, n)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.bm25, kind, mkey, query, n)

    async def search(self, kind: str, mkey: int, query: str, query_vec: np.ndarray | None, alpha: float,
                     top_k: int) -> list[tuple[int, float]]:
        """`rank`, with the BM25 query off the event loop."""
        keyword = await self.keyword(kind, mkey, query, top_k) if alpha < 1.0 else []
        return self.rank(kind, mkey, query, query_vec, alpha, top_k, keyword=keyword)
