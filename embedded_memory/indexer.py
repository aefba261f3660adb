"""Per-memory background indexing queues: Mycelian's "accepted now, searchable soon" semantics.

add_entry and put_context store the row and enqueue its seq here. One asyncio task per memory
drains that memory's queue in batches: it embeds the batch in a worker thread (the event loop
keeps serving), then writes the full-text rows and vectors in one transaction.
`wait_idle(mkey)` is await_consistency: it returns when the queue is empty.

`index_lag_ms` models Mycelian's search index (Weaviate, fed by an outbox worker) lagging
behind consistent writes: a drained batch becomes searchable only once its lag has passed, and
await_consistency does NOT wait for that, exactly the case a harness must handle by polling.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from embedded_memory.embedders import Embedder
from embedded_memory.keyword_index import KeywordIndexes
from embedded_memory.store import Store
from embedded_memory.vectors import VectorCache

log = logging.getLogger(__name__)
RETRY_DELAYS_S = (0.5, 2.0, 5.0)  # then the batch is indexed for BM25 only; vectors rebuilt on restart


@dataclass
class _Job:
    kind: str  # "entry" | "context"
    seq: int
    ready_at: float  # loop time when the index may see it


@dataclass
class _MemoryQueue:
    jobs: deque[_Job] = field(default_factory=deque)
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Indexer:
    """Owns the queues and the embedding thread; all other state changes happen on the loop."""

    def __init__(self, store: Store, vectors: VectorCache, embedder: Embedder | None, *,
                 keywords: KeywordIndexes, lag_ms: int = 0, batch_size: int = 32):
        self.store = store
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.lag_s = lag_ms / 1000.0
        self.batch_size = batch_size
        self.last_error: str | None = None
        self._queues: dict[int, _MemoryQueue] = {}
        self._lagging: set[asyncio.Task[None]] = set()  # drained batches waiting out index_lag_ms
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-index")

    @property
    def model_id(self) -> str | None:
        return self.embedder.model_id if self.embedder is not None else None

    def resume(self) -> int:
        """Enqueue everything a previous run stored but did not finish indexing; the count."""
        if self.model_id is not None:
            dropped = self.store.drop_stale_vectors(self.model_id)
            if dropped:
                log.warning("embedder changed to %s: rebuilding %d vectors", self.model_id, dropped)
        count = 0
        for kind in ("entry", "context"):
            for mkey, seq in self.store.pending(kind, self.model_id):
                self.enqueue(kind, mkey, seq)
                count += 1
        return count

    def enqueue(self, kind: str, mkey: int, seq: int) -> None:
        queue = self._queues.setdefault(mkey, _MemoryQueue())
        queue.jobs.append(_Job(kind, seq, time.monotonic() + self.lag_s))
        queue.idle.clear()
        if queue.task is None or queue.task.done():
            queue.task = asyncio.get_running_loop().create_task(self._drain(queue), name=f"index-m{mkey}")

    def pending(self, mkey: int) -> int:
        """Jobs of one memory still queued (health counts every unsearchable row: Store.count_unindexed)."""
        queue = self._queues.get(mkey)
        return len(queue.jobs) if queue else 0

    def busy(self, mkey: int) -> bool:
        queue = self._queues.get(mkey)
        return queue is not None and not queue.idle.is_set()

    async def wait_idle(self, mkey: int, timeout_s: float) -> None:
        """Return once everything enqueued for this memory is indexed (TimeoutError otherwise)."""
        queue = self._queues.get(mkey)
        if queue is None or queue.idle.is_set():
            return
        await asyncio.wait_for(queue.idle.wait(), timeout_s)

    async def close(self) -> None:
        tasks = [q.task for q in self._queues.values() if q.task is not None and not q.task.done()]
        tasks += [t for t in self._lagging if not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def _drain(self, queue: _MemoryQueue) -> None:
        while queue.jobs:
            batch = [queue.jobs.popleft() for _ in range(min(self.batch_size, len(queue.jobs)))]
            try:
                prepared = await self._prepare(batch)
                delay = max(job.ready_at for job in batch) - time.monotonic()
                if delay > 0:
                    self._publish_after(prepared, delay)
                else:
                    self._publish(*prepared)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # never lose the queue: log, remember, keep draining
                self.last_error = f"{type(err).__name__}: {err}"
                log.exception("indexing a batch of %d failed", len(batch))
        queue.idle.set()

    def _publish_after(self, prepared: tuple, delay: float) -> None:
        """Make a drained batch searchable once its lag has passed (rows stay stored meanwhile)."""

        async def later() -> None:
            await asyncio.sleep(delay)
            try:
                self._publish(*prepared)
            except Exception as err:  # the rows are still pending in the store: a restart indexes them
                self.last_error = f"{type(err).__name__}: {err}"
                log.exception("publishing a lagged batch failed")

        task = asyncio.get_running_loop().create_task(later(), name="index-lag")
        self._lagging.add(task)
        task.add_done_callback(self._lagging.discard)

    async def _prepare(self, batch: list[_Job]) -> tuple:
        entries = self.store.entries_by_seq([j.seq for j in batch if j.kind == "entry"])
        contexts = self.store.contexts_by_seq([j.seq for j in batch if j.kind == "context"])
        entry_rows, context_rows = list(entries.values()), list(contexts.values())
        texts = [e.embed_text for e in entry_rows] + [c.content for c in context_rows]
        vectors = await self._embed(texts) if texts and self.embedder is not None else None
        return entry_rows, context_rows, vectors

    def _publish(self, entry_rows: list, context_rows: list, vectors: np.ndarray | None) -> None:
        self.store.write_index(entry_rows, context_rows, vectors, self.model_id if vectors is not None else None)
        parts = (vectors[: len(entry_rows)], vectors[len(entry_rows):]) if vectors is not None else (None, None)
        for kind, rows, part in (("entry", entry_rows, parts[0]), ("context", context_rows, parts[1])):
            by_memory: dict[int, list[int]] = {}
            for i, row in enumerate(rows):
                by_memory.setdefault(row.mkey, []).append(i)
            for mkey, idx in by_memory.items():
                texts = [(rows[i].seq, rows[i].raw_entry, rows[i].summary) if kind == "entry"
                         else (rows[i].seq, rows[i].content) for i in idx]
                self.keywords.publish(kind, mkey, texts)
                if part is not None:
                    self.vectors.add(kind, mkey, np.array([rows[i].seq for i in idx], dtype=np.int64), part[idx])

    async def _embed(self, texts: list[str]) -> np.ndarray | None:
        """Vectors for the batch, retried; None after the last retry (rows stay BM25-searchable)."""
        assert self.embedder is not None
        loop = asyncio.get_running_loop()
        for attempt, delay in enumerate((*RETRY_DELAYS_S, None), start=1):
            try:
                vectors = await loop.run_in_executor(self._executor, self.embedder.embed, texts)
                self.last_error = None
                return vectors
            except Exception as err:
                self.last_error = f"embedding failed (attempt {attempt}): {err}"
                log.warning("%s", self.last_error)
                if delay is None:
                    return None
                await asyncio.sleep(delay)
        return None
