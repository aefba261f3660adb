"""Per-memory BM25 indexes: one in-memory SQLite FTS5 table per (kind, memory), built from stored text.

FTS5's bm25() takes N, the average length and each term's document count from the whole table
it ranks in. One table shared by every memory made a question's ranking depend on the rest of
the file (the questions ingested before it, a killed run's leftovers). A table that holds one
memory's rows makes those statistics the memory's own; the tokenizer and formula stay FTS5's
(search.py states the formula).

The database file stays the record: an index is built from the memory's searchable rows on its
first search (~50 ms for 5,000 entries), kept current with the rows the indexer publishes, and the
least recently used indexes are closed beyond the RAM budget. Each index is its own in-memory
database rather than one more FTS5 table in the file: with a thousand FTS5 tables in one schema,
every schema change costs each connection ~0.25 s to reload.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from typing import Any

KEYWORD_CACHE_BYTES = 256 * 1024 * 1024  # ~1 MB per 5,000 entries: hundreds of memories stay loaded
TOKENIZER = "unicode61 remove_diacritics 2"
COLUMNS = {"entry": ("raw_entry", "summary"), "context": ("content",)}

Row = tuple[Any, ...]  # (seq, *texts in COLUMNS order)
Loader = Callable[[str, int], Sequence[Row]]


class MemoryKeywords:
    """The FTS5 index of one memory's entries (or contexts); rows are added once, never removed."""

    def __init__(self, kind: str):
        columns = COLUMNS[kind]
        self.db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.db.execute(f"CREATE VIRTUAL TABLE docs USING fts5({', '.join(columns)}, content='', "
                        f"tokenize='{TOKENIZER}')")
        self._insert = (f"INSERT INTO docs(rowid, {', '.join(columns)}) "
                        f"VALUES (?{', ?' * len(columns)})")
        self.seqs: set[int] = set()

    def __len__(self) -> int:
        return len(self.seqs)

    @property
    def nbytes(self) -> int:
        pages = self.db.execute("PRAGMA page_count").fetchone()[0]
        return int(pages * self.db.execute("PRAGMA page_size").fetchone()[0]) + 64 * len(self.seqs)

    def add(self, rows: Sequence[Row]) -> None:
        """Index the rows not yet indexed (a retried or re-published row is skipped)."""
        fresh = {int(row[0]): row for row in rows if int(row[0]) not in self.seqs}
        if not fresh:
            return
        self.db.execute("BEGIN")
        self.db.executemany(self._insert, fresh.values())
        self.db.execute("COMMIT")
        self.seqs.update(fresh)

    def search(self, expression: str, limit: int) -> list[tuple[int, float]]:
        """(seq, BM25 score) best first, higher is better; equal scores go to the newer row."""
        rows = self.db.execute("SELECT rowid, bm25(docs) AS s FROM docs WHERE docs MATCH ? "
                               "ORDER BY s, rowid DESC LIMIT ?", (expression, limit))
        return [(int(seq), -float(score)) for seq, score in rows]

    def close(self) -> None:
        self.db.close()


class KeywordIndexes:
    """The loaded per-memory indexes, keyed by (kind, memory key). Thread-safe.

    `publish` (the indexer, on the event loop, after the rows are committed) queues rows for the
    loaded indexes only; `search` (the BM25 thread) applies the queue, builds a missing index with
    `loader`, then queries. An index is registered before its loader reads the file, so a row
    is either queued for it or committed before that read, never lost; rows of memories nobody
    searches are not held in RAM (an ingestion-only phase queues nothing).
    """

    def __init__(self, loader: Loader, budget_bytes: int = KEYWORD_CACHE_BYTES):
        self._loader = loader
        self._budget = budget_bytes
        self._indexes: OrderedDict[tuple[str, int], MemoryKeywords] = OrderedDict()
        self._inbox: deque[tuple[str, int, Sequence[Row]]] = deque()
        self._lock = threading.Lock()

    def publish(self, kind: str, mkey: int, rows: Sequence[Row]) -> None:
        """Rows that just became searchable (committed in the database); cheap, from any thread."""
        if rows and (kind, mkey) in self._indexes:  # a dict lookup is atomic: no lock needed
            self._inbox.append((kind, mkey, rows))

    def search(self, kind: str, mkey: int, expression: str, limit: int) -> list[tuple[int, float]]:
        """BM25 hits of one memory, ranked with that memory's statistics only."""
        with self._lock:
            self._apply_inbox()
            return self._get(kind, mkey).search(expression, limit)

    def close(self) -> None:
        with self._lock:
            for index in self._indexes.values():
                index.close()
            self._indexes.clear()
            self._inbox.clear()

    def _apply_inbox(self) -> None:
        while self._inbox:
            kind, mkey, rows = self._inbox.popleft()
            index = self._indexes.get((kind, mkey))
            if index is not None:  # an index not loaded reads these rows from the database when built
                index.add(rows)

    def _get(self, kind: str, mkey: int) -> MemoryKeywords:
        key = (kind, mkey)
        index = self._indexes.get(key)
        if index is not None:
            self._indexes.move_to_end(key)
            return index
        index = MemoryKeywords(kind)
        self._indexes[key] = index  # registered first: publish() queues what the loader may miss
        try:
            index.add(self._loader(kind, mkey))
        except BaseException:  # a half-built index would hide rows until restart: build again next time
            del self._indexes[key]
            index.close()
            raise
        self._evict(keep=key)
        return index

    def _evict(self, keep: tuple[str, int]) -> None:
        total = sum(index.nbytes for index in self._indexes.values())
        for key in list(self._indexes):
            if total <= self._budget:
                break
            if key != keep:
                index = self._indexes.pop(key)
                total -= index.nbytes
                index.close()
