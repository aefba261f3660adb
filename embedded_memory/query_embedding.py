"""A search query's vector (embedded_memory/service.py's search): embedded on its own worker thread, so BM25 runs
meanwhile on another, and the last QUERY_CACHE_SIZE queries remembered, so a repeated query is not embedded again."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from embedded_memory.embedders import Embedder
from embedded_memory.errors import ServiceError

QUERY_CACHE_SIZE = 512


class QueryEmbedder:
    """The query side of the embedder: one worker thread and a least-recently-used cache of vectors by query text."""

    def __init__(self, embedder: Embedder | None):
        self.embedder = embedder
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    async def embed(self, text: str) -> np.ndarray:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        assert self.embedder is not None
        try:
            rows = await asyncio.get_running_loop().run_in_executor(self._executor, self.embedder.embed, [text])
        except Exception as err:
            raise ServiceError("query", f"could not be embedded ({err}); retry, or pass alpha=0 for BM25 only") from err
        vector = rows[0]
        self._cache[text] = vector
        if len(self._cache) > QUERY_CACHE_SIZE:
            self._cache.popitem(last=False)
        return vector

    def close(self) -> None:
        """Stop the worker thread (a query still queued is cancelled)."""
        self._executor.shutdown(wait=True, cancel_futures=True)
