"""MemoryService: the operations behind the 13 MCP tools and the REST routes, transport-free.

Reads and writes run on the event loop thread (SQLite calls take well under a millisecond);
embedding runs in worker threads. Every bad argument raises ServiceError naming the argument.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from embedded_memory import validation as check
from embedded_memory.embedders import Embedder, create_embedder
from embedded_memory.errors import NotFoundError, ServiceError
from embedded_memory.indexer import Indexer
from embedded_memory.masking import redact_stored, redact_text, text_masker
from embedded_memory.prompts import default_prompts
from embedded_memory.query_embedding import QueryEmbedder
from embedded_memory.records import Memory, Vault
from embedded_memory.search import HybridSearcher
from embedded_memory.settings import PLACEHOLDER_CONTEXT, ServiceSettings
from embedded_memory.shapes import (
    AddedEntries,
    DefaultPrompts,
    EntryItem,
    EntryJson,
    EntryPage,
    Health,
    MemoryBrief,
    MemoryJson,
    SearchReply,
    VaultBrief,
    VaultJson,
)
from embedded_memory.store import Store
from embedded_memory.timefmt import format_ts
from embedded_memory.vectors import VectorCache

log = logging.getLogger(__name__)
CHECK_CHUNK = 16  # add_entries: entries checked and masked between two turns of the event loop
ENQUEUED, CONSISTENT = "enqueued", "consistent"
try:  # the installed distribution's version, read from its metadata (not from the harness's package)
    SERVICE_VERSION = version("mycelian-longmemeval")
except PackageNotFoundError:  # running from a source tree that was never installed
    SERVICE_VERSION = "0.0.0+source"


def limit_blas_threads() -> None:
    """One BLAS thread: a 5,000 x 256 mat-vec takes ~0.1 ms on one core, but OpenBLAS's two spinning
    threads turn it into 10+ ms whenever the other core is busy (the embedder, the client)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # comes with scikit-learn; without it OPENBLAS_NUM_THREADS (set by the CLI) applies
        return
    threadpool_limits(limits=1, user_api="blas")


class MemoryService:
    """One database, one embedder, the index queues and the search over them."""

    def __init__(self, settings: ServiceSettings, store: Store, embedder: Embedder | None):
        self.settings = settings
        self.store = store
        self.embedder = embedder
        model = embedder.model_id if embedder is not None else ""
        self.vectors = VectorCache(lambda kind, mkey: store.load_vectors(kind, mkey, model),
                                   settings.vector_cache_mb * 1024 * 1024)
        self.searcher = HybridSearcher(store, self.vectors)
        self.indexer = Indexer(store, self.vectors, embedder, keywords=self.searcher.keywords,
                               lag_ms=settings.index_lag_ms, batch_size=settings.embed_batch_size)
        self.query_embedder = QueryEmbedder(embedder)  # the query's vector: its own thread and cache
        self.started_at = format_ts(datetime.now(UTC))

    @classmethod
    def open(cls, settings: ServiceSettings) -> MemoryService:
        """Validate settings, open the database and load the embedder (errors say what to fix)."""
        settings.validate()
        limit_blas_threads()
        store = Store(settings.db_path)
        try:
            embedder = create_embedder(settings.embedder, settings.embed_batch_size, settings.device)
        except BaseException:
            store.close()
            raise
        return cls(settings, store, embedder)

    async def start(self) -> int:
        """Resume indexing what a previous run left pending; returns how many rows were queued."""
        return self.indexer.resume()

    async def close(self) -> None:
        await self.indexer.close()
        self.query_embedder.close()
        self.searcher.close()
        if self.embedder is not None:
            self.embedder.close()
        self.store.close()

    # -- lookups ---------------------------------------------------------------------------------

    def _vault(self, vault_id: Any) -> Vault:
        vault_id = check.identifier("vault_id", vault_id)
        vault = self.store.get_vault(vault_id)
        if vault is None:
            raise NotFoundError("vault_id", f"no vault with id {vault_id!r}; call list_vaults or create_vault")
        return vault

    def _memory(self, memory_id: Any, vault_id: Any = None) -> Memory:
        vault = self._vault(vault_id) if vault_id is not None else None
        memory_id = check.identifier("memory_id", memory_id)
        memory = self.store.get_memory(memory_id)
        if memory is None or (vault is not None and memory.vault_id != vault.vault_id):
            where = f" in vault {vault.vault_id}" if vault is not None else ""
            raise NotFoundError("memory_id", f"no memory with id {memory_id!r}{where}; call list_memories")
        return memory

    # -- vaults and memories -------------------------------------------------------------------

    def create_vault(self, title: Any, description: Any = "") -> VaultJson:
        vault = self.store.create_vault(check.title(title, strict=self.settings.strict_titles),
                                        check.description(description))
        return vault.to_json()

    def list_vaults(self) -> list[VaultBrief]:
        return [v.to_brief() for v in self.store.list_vaults()]

    def list_memories(self, vault_id: Any) -> list[MemoryBrief]:
        return [m.to_brief() for m in self.store.list_memories(self._vault(vault_id).vault_id)]

    def create_memory(self, vault_id: Any, title: Any, memory_type: Any, description: Any = "") -> MemoryJson:
        vault = self._vault(vault_id)
        placeholder = PLACEHOLDER_CONTEXT if self.settings.placeholder_context else None
        memory, context = self.store.create_memory(
            vault.vault_id, check.title(title, strict=self.settings.strict_titles), check.memory_type(memory_type),
            check.description(description), placeholder)
        if context is not None:
            self.indexer.enqueue("context", memory.mkey, context.seq)
        return memory.to_json()

    def get_memory(self, vault_id: Any, memory_id: Any) -> MemoryJson:
        return self._memory(memory_id, vault_id).to_json()

    # -- entries and contexts ------------------------------------------------------------------

    def add_entry(self, vault_id: Any, memory_id: Any, raw_entry: Any, summary: Any, tags: Any = None) -> str:
        row = self._checked_row(raw_entry, summary, tags, self._masker())
        memory = self._memory(memory_id, vault_id)
        entry = self.store.add_entry(memory, *row)
        self.indexer.enqueue("entry", memory.mkey, entry.seq)
        return ENQUEUED

    async def add_entries(self, vault_id: Any, memory_id: Any, entries: Any) -> AddedEntries:
        """add_entries: many add_entry calls in one request and one transaction, stored in list order.

        Every entry is checked before any is stored (a refusal names `entries[i].argument` and stores
        nothing); the rows are then queued for indexing as add_entry's are, so the service embeds them
        in its usual batches. Checking and masking yield to the event loop every CHECK_CHUNK entries,
        so a search of another memory never waits behind a whole batch."""
        memory = self._memory(memory_id, vault_id)
        mask = self._masker()
        rows = []
        for i, item in enumerate(check.entry_list(entries, max_entries=self.settings.max_batch_entries)):
            rows.append(self._entry_row(i, item, mask))
            if i % CHECK_CHUNK == CHECK_CHUNK - 1:
                await asyncio.sleep(0)
        for entry in self.store.add_entries(memory, rows):
            self.indexer.enqueue("entry", memory.mkey, entry.seq)
        return {"status": ENQUEUED, "count": len(rows)}

    def _entry_row(self, index: int, item: EntryItem,
                   mask: Callable[[str], str] | None) -> tuple[str, str, str]:
        """One add_entries item as the (raw_entry, summary, tags) add_entry would store; errors name it."""
        try:
            unknown = sorted(set(item) - {"raw_entry", "summary", "tags"})
            if unknown:
                raise ServiceError(unknown[0], "is not an add_entry argument (raw_entry, summary, tags)")
            if "summary" not in item:
                raise ServiceError("summary", "is required")
            return self._checked_row(item.get("raw_entry"), item["summary"], item.get("tags"), mask)
        except ServiceError as err:
            raise ServiceError(f"entries[{index}].{err.argument}", err.message) from None

    def _checked_row(self, raw_entry: Any, summary: Any, tags: Any,
                     mask: Callable[[str], str] | None) -> tuple[str, str, str]:
        """add_entry's arguments checked (errors name the argument), as stored: (raw_entry, summary, tags)."""
        raw = check.text("raw_entry", raw_entry, max_bytes=self.settings.max_raw_entry_bytes)
        summ = check.text("summary", summary, max_bytes=self.settings.max_summary_bytes, allow_empty=True)
        tags_json = check.tags(tags, max_bytes=self.settings.max_tags_bytes)
        if mask is not None:
            raw, summ, tags_json = mask(raw), mask(summ), redact_stored(tags_json, mask)
        return raw, summ, tags_json

    def _masker(self) -> Callable[[str], str] | None:
        """How stored text is masked: dataset text holds keys too, so the database keeps them masked
        unless `store_secrets`."""
        return None if self.settings.store_secrets else text_masker()

    def list_entries(self, vault_id: Any, memory_id: Any, limit: Any = None, before: Any = None,
                     after: Any = None) -> EntryPage:
        applied = check.list_limit(limit)
        before_ts, after_ts = check.cursor("before", before), check.cursor("after", after)
        if before_ts and after_ts:
            raise ServiceError("before", "pass only one of before or after")
        memory = self._memory(memory_id, vault_id)
        entries = self.store.list_entries(memory.mkey, applied, before_ts, after_ts)
        full = len(entries) == applied
        return {"entries": [e.to_json() for e in entries], "count": len(entries), "applied_limit": applied,
                "next_before": entries[-1].creation_time if full and not after_ts else None,
                "next_after": entries[0].creation_time if full and after_ts else None}

    def get_entry(self, vault_id: Any, memory_id: Any, entry_id: Any) -> EntryJson:
        memory = self._memory(memory_id, vault_id)
        entry_id = check.identifier("entry_id", entry_id)
        entry = self.store.get_entry(entry_id)
        if entry is None or entry.mkey != memory.mkey:
            raise NotFoundError("entry_id", f"no entry with id {entry_id!r} in memory {memory.memory_id}")
        return entry.to_json()

    def put_context(self, vault_id: Any, memory_id: Any, content: Any) -> str:
        text = check.text("content", content, max_bytes=self.settings.max_context_bytes)
        text = text if self.settings.store_secrets else redact_text(text)
        memory = self._memory(memory_id, vault_id)
        context = self.store.add_context(memory, text)
        self.indexer.enqueue("context", memory.mkey, context.seq)
        return ENQUEUED

    def get_context(self, vault_id: Any, memory_id: Any) -> str:
        memory = self._memory(memory_id, vault_id)
        context = self.store.latest_context(memory.mkey)
        if context is None:
            raise NotFoundError("memory_id", f"context not found: memory {memory.memory_id} has no context yet; "
                                             "call put_context first")
        return context.content

    async def await_consistency(self, memory_id: Any) -> str:
        memory = self._memory(memory_id)
        timeout = self.settings.await_timeout_s
        try:
            await self.indexer.wait_idle(memory.mkey, timeout)
        except TimeoutError:
            raise ServiceError("memory_id", f"memory {memory.memory_id} still has "
                                            f"{self.indexer.pending(memory.mkey)} writes queued after {timeout:.0f} s "
                                            f"(last index error: {self.indexer.last_error or 'none'})") from None
        return CONSISTENT

    # -- search ------------------------------------------------------------------------------------

    async def search(self, memory_id: Any, query: Any, top_k: Any = None, alpha: Any = None) -> SearchReply:
        """search_memories / POST /v0/search: hybrid entry hits plus the latest and best contexts."""
        text = check.text("query", query, max_bytes=self.settings.max_query_bytes)
        k = check.top_k(top_k)
        a = check.alpha(alpha, default=self.settings.alpha, has_vectors=self.embedder is not None)
        memory = self._memory(memory_id)
        # BM25 (its own thread) runs while the query is embedded (another thread): both release the GIL.
        keyword = asyncio.gather(self.searcher.keyword("entry", memory.mkey, text, k),
                                 self.searcher.keyword("context", memory.mkey, text, 1)) if a < 1 else None
        try:
            query_vec = await self.query_embedder.embed(text) if a > 0 else None
        finally:
            entry_kw, context_kw = await keyword if keyword is not None else ([], [])
        hits = self.searcher.rank("entry", memory.mkey, text, query_vec, a, k, keyword=entry_kw)
        rows = self.store.entries_by_seq([seq for seq, _ in hits])
        entries = [rows[seq].to_hit(score) for seq, score in hits if seq in rows]
        latest = self.store.latest_context(memory.mkey)
        best_hits = self.searcher.rank("context", memory.mkey, text, query_vec, a, 1, keyword=context_kw)
        best = self.store.contexts_by_seq([best_hits[0][0]]).get(best_hits[0][0]) if best_hits else None
        return {"entries": entries, "count": len(entries),
                "latestContext": latest.content if latest else "",
                "contextTimestamp": latest.creation_time if latest else None,
                "bestContext": best.content if best else "",
                "bestContextTimestamp": best.creation_time if best else None,
                "bestContextScore": round(best_hits[0][1], 6) if best else None,
                "alpha": a}

    # -- misc ----------------------------------------------------------------------------------------

    def default_prompts(self, memory_type: Any) -> DefaultPrompts:
        return default_prompts(check.text("memory_type", memory_type, max_bytes=64))

    def health(self) -> Health:
        return {"status": "healthy", "message": "Service is healthy",
                "timestamp": format_ts(datetime.now(UTC)),
                "service": "mycelian-longmemeval embedded memory", "version": SERVICE_VERSION,
                "startedAt": self.started_at,
                "embedder": self.settings.embedder, "embeddingModel": self.indexer.model_id,
                "embeddingDevice": getattr(self.embedder, "device", None),  # minilm: "cpu" or "cuda"
                "alpha": self.settings.alpha, "indexLagMs": self.settings.index_lag_ms,
                "pendingIndexJobs": self.store.count_unindexed(), "lastIndexError": self.indexer.last_error}
