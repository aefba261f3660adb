"""SQLite storage: vaults, memories, entries, every context version and vectors, in one file.

One connection, used only from the server's event loop thread (the embedder runs elsewhere and
never touches the database). WAL + synchronous=NORMAL keeps a commit well under a millisecond.
A write is stored at once with `indexed = 0`; the indexer sets `indexed = 1` (searchable) and
stores the vector later, in one transaction, so a restart finds every write and re-indexes what
was pending. The full-text indexes are per memory and in RAM (keyword_index.py), built from the
text of the `indexed = 1` rows; schema version 1 kept one FTS5 table for all memories, dropped
on open.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from embedded_memory.errors import ConflictError
from embedded_memory.records import Context, Entry, Memory, Vault
from embedded_memory.settings import LOCAL_OWNER
from embedded_memory.timefmt import MonotonicClock

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vaults(vault_id TEXT PRIMARY KEY, owner TEXT NOT NULL, title TEXT NOT NULL,
  description TEXT NOT NULL, creation_time TEXT NOT NULL, UNIQUE(owner, title));
CREATE TABLE IF NOT EXISTS memories(mkey INTEGER PRIMARY KEY AUTOINCREMENT, memory_id TEXT NOT NULL UNIQUE,
  vault_id TEXT NOT NULL REFERENCES vaults(vault_id), title TEXT NOT NULL, memory_type TEXT NOT NULL,
  description TEXT NOT NULL, creation_time TEXT NOT NULL, UNIQUE(vault_id, title));
CREATE TABLE IF NOT EXISTS entries(seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL UNIQUE,
  mkey INTEGER NOT NULL REFERENCES memories(mkey), raw_entry TEXT NOT NULL, summary TEXT NOT NULL,
  tags TEXT NOT NULL, creation_time TEXT NOT NULL, indexed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entries_by_time ON entries(mkey, creation_time);
CREATE INDEX IF NOT EXISTS entries_pending ON entries(indexed) WHERE indexed = 0;
CREATE TABLE IF NOT EXISTS contexts(seq INTEGER PRIMARY KEY AUTOINCREMENT, context_id TEXT NOT NULL UNIQUE,
  mkey INTEGER NOT NULL REFERENCES memories(mkey), content TEXT NOT NULL, creation_time TEXT NOT NULL,
  indexed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS contexts_by_memory ON contexts(mkey, seq);
CREATE INDEX IF NOT EXISTS contexts_pending ON contexts(indexed) WHERE indexed = 0;
CREATE TABLE IF NOT EXISTS entry_vectors(seq INTEGER PRIMARY KEY, mkey INTEGER NOT NULL, model TEXT NOT NULL,
  vec BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS entry_vectors_by_memory ON entry_vectors(mkey, model);
CREATE TABLE IF NOT EXISTS context_vectors(seq INTEGER PRIMARY KEY, mkey INTEGER NOT NULL, model TEXT NOT NULL,
  vec BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS context_vectors_by_memory ON context_vectors(mkey, model);
DROP TABLE IF EXISTS entries_fts;
DROP TABLE IF EXISTS contexts_fts;
"""
SCHEMA_VERSION = "2"
_ENTRY_COLUMNS = ("e.seq, e.entry_id, e.mkey, m.memory_id, m.vault_id, e.raw_entry, e.summary, e.tags, "
                  "e.creation_time FROM entries e JOIN memories m ON m.mkey = e.mkey")
_MEMORY_COLUMNS = "mkey, memory_id, vault_id, title, memory_type, description, creation_time FROM memories"


def _new_rowid(cur: sqlite3.Cursor) -> int:
    """The rowid of the row an INSERT just added (sqlite3 types lastrowid Optional: None before any INSERT)."""
    assert cur.lastrowid is not None
    return cur.lastrowid
_KINDS = {"entry": ("entries", "entry_vectors"), "context": ("contexts", "context_vectors")}


class Store:
    """All persistent state of the service. Not thread-safe by design: one thread owns it."""

    def __init__(self, path: str | os.PathLike[str], *, lock: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_file = self._acquire_lock() if lock else None
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=5000",
                           "temp_store=MEMORY", "cache_size=-65536"):
                self.db.execute(f"PRAGMA {pragma}")
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.Error as err:
            if self._lock_file is not None:
                self._lock_file.close()
            raise RuntimeError(f"db_path: cannot use {self.path} as the service's SQLite database: {err}") from None
        self.clock = MonotonicClock()
        for table in ("vaults", "memories", "entries", "contexts"):
            self.clock.observe(self.db.execute(f"SELECT max(creation_time) FROM {table}").fetchone()[0])

    def _acquire_lock(self):
        """Two services indexing one file would corrupt nothing but duplicate work: refuse clearly."""
        handle = open(f"{self.path}.lock", "a+")  # noqa: SIM115 (held open as long as the lock)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "another process"
            handle.close()
            raise RuntimeError(f"db_path: {self.path} is in use by another embedded memory service ({owner}); "
                               "stop it or pass another --db") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        return handle

    def close(self) -> None:
        self.db.close()
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- vaults and memories ------------------------------------------------------------------

    def create_vault(self, title: str, description: str) -> Vault:
        existing = self.db.execute("SELECT vault_id FROM vaults WHERE owner = ? AND title = ?",
                                   (LOCAL_OWNER, title)).fetchone()
        if existing:
            raise ConflictError("title", f"a vault titled {title!r} already exists (vaultId {existing[0]})")
        vault = Vault(str(uuid.uuid4()), title, description, self.clock.now())
        with self._tx() as db:
            db.execute("INSERT INTO vaults VALUES (?, ?, ?, ?, ?)",
                       (vault.vault_id, LOCAL_OWNER, title, description, vault.creation_time))
        return vault

    def list_vaults(self) -> list[Vault]:
        rows = self.db.execute("SELECT vault_id, title, description, creation_time FROM vaults "
                               "WHERE owner = ? ORDER BY creation_time", (LOCAL_OWNER,))
        return [Vault(*row) for row in rows]

    def get_vault(self, vault_id: str) -> Vault | None:
        row = self.db.execute("SELECT vault_id, title, description, creation_time FROM vaults "
                              "WHERE vault_id = ?", (vault_id,)).fetchone()
        return Vault(*row) if row else None

    def create_memory(self, vault_id: str, title: str, memory_type: str, description: str,
                      initial_context: str | None) -> tuple[Memory, Context | None]:
        existing = self.db.execute("SELECT memory_id FROM memories WHERE vault_id = ? AND title = ?",
                                   (vault_id, title)).fetchone()
        if existing:
            raise ConflictError("title", f"a memory titled {title!r} already exists in vault {vault_id} "
                                         f"(memoryId {existing[0]})")
        memory_id, created = str(uuid.uuid4()), self.clock.now()
        with self._tx() as db:
            cur = db.execute("INSERT INTO memories(memory_id, vault_id, title, memory_type, description, "
                             "creation_time) VALUES (?, ?, ?, ?, ?, ?)",
                             (memory_id, vault_id, title, memory_type, description, created))
            memory = Memory(_new_rowid(cur), memory_id, vault_id, title, memory_type, description, created)
            context = self._insert_context(db, memory.mkey, initial_context) if initial_context else None
        return memory, context

    def list_memories(self, vault_id: str) -> list[Memory]:
        rows = self.db.execute(f"SELECT {_MEMORY_COLUMNS} WHERE vault_id = ? ORDER BY mkey", (vault_id,))
        return [Memory(*row) for row in rows]

    def get_memory(self, memory_id: str) -> Memory | None:
        row = self.db.execute(f"SELECT {_MEMORY_COLUMNS} WHERE memory_id = ?", (memory_id,)).fetchone()
        return Memory(*row) if row else None

    # -- entries and contexts -----------------------------------------------------------------

    def add_entry(self, memory: Memory, raw_entry: str, summary: str, tags_json: str) -> Entry:
        return self.add_entries(memory, [(raw_entry, summary, tags_json)])[0]

    def add_entries(self, memory: Memory, rows: Sequence[tuple[str, str, str]]) -> list[Entry]:
        """Store (raw_entry, summary, tags_json) rows in one transaction, in order: each gets the seq and
        creation time it would have got from one add_entry after the other, and a failure stores none."""
        stamped = [(str(uuid.uuid4()), self.clock.now(), raw, summary, tags) for raw, summary, tags in rows]
        entries: list[Entry] = []
        with self._tx() as db:
            for entry_id, created, raw, summary, tags in stamped:
                cur = db.execute("INSERT INTO entries(entry_id, mkey, raw_entry, summary, tags, creation_time) "
                                 "VALUES (?, ?, ?, ?, ?, ?)", (entry_id, memory.mkey, raw, summary, tags, created))
                entries.append(Entry(_new_rowid(cur), entry_id, memory.mkey, memory.memory_id, memory.vault_id,
                                     raw, summary, tags, created))
        return entries

    def get_entry(self, entry_id: str) -> Entry | None:
        row = self.db.execute(f"SELECT {_ENTRY_COLUMNS} WHERE e.entry_id = ?", (entry_id,)).fetchone()
        return Entry(*row) if row else None

    def list_entries(self, mkey: int, limit: int, before: str | None = None, after: str | None = None) -> list[Entry]:
        """Newest first. `after` pages forward: the oldest `limit` entries after it, shown newest first."""
        if after is not None:
            rows = self.db.execute(f"SELECT {_ENTRY_COLUMNS} WHERE e.mkey = ? AND e.creation_time > ? "
                                   "ORDER BY e.creation_time, e.seq LIMIT ?", (mkey, after, limit)).fetchall()
            return [Entry(*row) for row in reversed(rows)]
        where, params = ("AND e.creation_time < ?", (mkey, before, limit)) if before else ("", (mkey, limit))
        rows = self.db.execute(f"SELECT {_ENTRY_COLUMNS} WHERE e.mkey = ? {where} "
                               "ORDER BY e.creation_time DESC, e.seq DESC LIMIT ?", params).fetchall()
        return [Entry(*row) for row in rows]

    def entries_by_seq(self, seqs: Sequence[int]) -> dict[int, Entry]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute(f"SELECT {_ENTRY_COLUMNS} WHERE e.seq IN ({marks})", tuple(seqs))
        return {row[0]: Entry(*row) for row in rows}

    def count_entries(self, mkey: int) -> int:
        return int(self.db.execute("SELECT count(*) FROM entries WHERE mkey = ?", (mkey,)).fetchone()[0])

    def add_context(self, memory: Memory, content: str) -> Context:
        with self._tx() as db:
            return self._insert_context(db, memory.mkey, content)

    def _insert_context(self, db: sqlite3.Connection, mkey: int, content: str) -> Context:
        context_id, created = str(uuid.uuid4()), self.clock.now()
        cur = db.execute("INSERT INTO contexts(context_id, mkey, content, creation_time) VALUES (?, ?, ?, ?)",
                         (context_id, mkey, content, created))
        return Context(_new_rowid(cur), context_id, mkey, content, created)

    def latest_context(self, mkey: int) -> Context | None:
        row = self.db.execute("SELECT seq, context_id, mkey, content, creation_time FROM contexts "
                              "WHERE mkey = ? ORDER BY seq DESC LIMIT 1", (mkey,)).fetchone()
        return Context(*row) if row else None

    def contexts(self, mkey: int) -> list[Context]:
        rows = self.db.execute("SELECT seq, context_id, mkey, content, creation_time FROM contexts "
                               "WHERE mkey = ? ORDER BY seq", (mkey,))
        return [Context(*row) for row in rows]

    def contexts_by_seq(self, seqs: Sequence[int]) -> dict[int, Context]:
        if not seqs:
            return {}
        marks = ",".join("?" * len(seqs))
        rows = self.db.execute("SELECT seq, context_id, mkey, content, creation_time FROM contexts "
                               f"WHERE seq IN ({marks})", tuple(seqs))
        return {row[0]: Context(*row) for row in rows}

    # -- the search index -----------------------------------------------------------------------

    def pending(self, kind: str, model: str | None) -> list[tuple[int, int]]:
        """(mkey, seq) of rows without a full-text row or, when `model` is set, without its vector."""
        table, vectors = _KINDS[kind]
        sql = f"SELECT mkey, seq FROM {table} WHERE indexed = 0"
        params: tuple[str, ...] = ()
        if model is not None:
            sql += (f" UNION SELECT t.mkey, t.seq FROM {table} t LEFT JOIN {vectors} v ON v.seq = t.seq "
                    "AND v.model = ? WHERE v.seq IS NULL")
            params = (model,)
        return [(int(m), int(s)) for m, s in self.db.execute(sql + " ORDER BY 2", params)]

    def drop_stale_vectors(self, model: str) -> int:
        """Vectors from another embedder are useless here; the indexer rebuilds them."""
        with self._tx() as db:
            return sum(db.execute(f"DELETE FROM {v} WHERE model != ?", (model,)).rowcount
                       for _, v in _KINDS.values())

    def write_index(self, entries: Sequence[Entry], contexts: Sequence[Context],
                    vectors: np.ndarray | None, model: str | None) -> None:
        """Mark rows searchable and store their vectors (rows of `vectors`: entries first, then contexts)."""
        with self._tx() as db:
            for table, written in (("entries", entries), ("contexts", contexts)):
                db.executemany(f"UPDATE {table} SET indexed = 1 WHERE seq = ? AND indexed = 0", [(r.seq,) for r in written])
            if vectors is None or model is None:
                return
            rows = [*(("entry_vectors", e.seq, e.mkey) for e in entries),
                    *(("context_vectors", c.seq, c.mkey) for c in contexts)]
            for (table, seq, mkey), vec in zip(rows, vectors, strict=True):
                db.execute(f"INSERT OR REPLACE INTO {table}(seq, mkey, model, vec) VALUES (?, ?, ?, ?)",
                           (seq, mkey, model, np.ascontiguousarray(vec, dtype=np.float32).tobytes()))

    def count_unindexed(self) -> int:
        """Rows stored but not yet searchable (queued, being embedded, or waiting out the index lag)."""
        return int(self.db.execute("SELECT (SELECT count(*) FROM entries WHERE indexed = 0) + "
                                   "(SELECT count(*) FROM contexts WHERE indexed = 0)").fetchone()[0])

    def reader(self) -> sqlite3.Connection:
        """A read-only connection for another thread (WAL: readers never block the writer)."""
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA query_only=1")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def load_vectors(self, kind: str, mkey: int, model: str) -> tuple[np.ndarray, np.ndarray | None]:
        """(seqs, matrix) of one memory's vectors for one model, in insertion order."""
        _, table = _KINDS[kind]
        rows = self.db.execute(f"SELECT seq, vec FROM {table} WHERE mkey = ? AND model = ? ORDER BY seq",
                               (mkey, model)).fetchall()
        if not rows:
            return np.empty(0, dtype=np.int64), None
        seqs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return seqs, matrix.copy()


_TEXT_SQL = {
    "entry": "SELECT seq, raw_entry, summary FROM entries WHERE mkey = ? AND indexed = 1 ORDER BY seq",
    "context": "SELECT seq, content FROM contexts WHERE mkey = ? AND indexed = 1 ORDER BY seq",
}


def searchable_texts(db: sqlite3.Connection, kind: str, mkey: int) -> list[tuple[int, ...]]:
    """(seq, *texts) of one memory's searchable rows: what its keyword index is built from."""
    return db.execute(_TEXT_SQL[kind], (mkey,)).fetchall()
