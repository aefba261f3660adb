"""The ingestion floor of issue 45: what one Python process does with the same texts, no harness, no MCP.

    python bench/ingest_floor.py FILE [--kind locomo|longmemeval] [--db floor.sqlite]

FILE is a LoCoMo JSON (bench/locomo_synth.py, locomo10.json) or a LongMemEval JSON
(bench/longmemeval_synth.py, longmemeval_s*.json). For each conversation (LongMemEval: question)
every message is turned into the text the harness stores (memory/entries.py `entry_text`: the raw
entry, "[date] role: content"), embedded with the embedded service's static model
(embedders.create_embedder("static")) in batches of 32, and stored (text + vector) in SQLite with
WAL, synchronous=NORMAL and an FTS5 index, committed once per conversation: durable per
conversation, as the harness is per acknowledged write. Then each of the conversation's questions
runs one in-process search over that conversation's rows: FTS5 bm25 and cosine top-10 fused as the
service fuses them (search.fuse, alpha 0.6). Prints one JSON object (measure_floor's dict).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from benchmarker.datasets.schema import Case
from benchmarker.memory.entries import entry_text
from embedded_memory.embedders import Embedder, create_embedder
from embedded_memory.search import fts_expression, fuse
from embedded_memory.settings import DEFAULT_ALPHA

EMBED_BATCH = 32
TOP_K = 10
SCHEMA = """
CREATE TABLE entries (id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE entries_fts USING fts5(text, content='entries', content_rowid='id');
"""


def detect_kind(path: Path) -> str:
    """"longmemeval" when the file's first instance carries a question_id, else "locomo"."""
    with open(path, "rb") as stream:
        head = stream.read(1 << 16)
    return "longmemeval" if b'"question_id"' in head else "locomo"


def iter_cases(path: Path, kind: str) -> Iterator[Case]:
    """The harness's own loaders, so the floor sees the same sessions, dates and messages."""
    if kind == "longmemeval":
        from benchmarker.suites.longmemeval.data import iter_longmemeval

        yield from iter_longmemeval(path)
    else:
        from benchmarker.suites.locomo.data import load_locomo

        yield from load_locomo(path).cases


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def ingest_case(db: sqlite3.Connection, embedder: Embedder, case: Case) -> tuple[list[int], np.ndarray]:
    """Embed and store one conversation's messages, committed once; (row ids, unit vectors)."""
    texts = [entry_text(session, message)[0] for session in case.sessions for message in session.messages]
    vectors = np.concatenate([embedder.embed(texts[i:i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
                             ) if texts else np.zeros((0, 1), dtype=np.float32)
    ids: list[int] = []
    with db:  # one transaction, one commit per conversation
        for text, vector in zip(texts, vectors, strict=True):
            cursor = db.execute("INSERT INTO entries (conversation, text, vector) VALUES (?, ?, ?)",
                                (case.case_id, text, vector.astype(np.float32).tobytes()))
            row = int(cursor.lastrowid or 0)
            db.execute("INSERT INTO entries_fts (rowid, text) VALUES (?, ?)", (row, text))
            ids.append(row)
    return ids, vectors


def search(db: sqlite3.Connection, embedder: Embedder, ids: list[int], vectors: np.ndarray,
           question: str) -> list[tuple[int, float]]:
    """bm25 over the conversation's rows + cosine over its vectors, fused, top-10."""
    keyword: list[tuple[int, float]] = []
    expression = fts_expression(question)
    if expression and ids:
        keyword = [(int(row), -float(score)) for row, score in db.execute(
            "SELECT rowid, bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "ORDER BY bm25(entries_fts) LIMIT ?", (expression, ids[0], ids[-1], TOP_K))]
    dense: list[tuple[int, float]] = []
    if len(ids):
        scores = vectors @ embedder.embed([question])[0]
        best = np.argsort(-scores)[:TOP_K]
        dense = [(ids[i], float(scores[i])) for i in best]
    return fuse(keyword, dense, DEFAULT_ALPHA)[:TOP_K]


def measure_floor(path: str | Path, kind: str | None = None, db_path: Path | None = None) -> dict[str, Any]:
    """Ingest every message of `path` and search once per question; messages, seconds, rates, latencies."""
    path = Path(path)
    kind = kind or detect_kind(path)
    embedder = create_embedder("static", EMBED_BATCH, "cpu")
    assert embedder is not None
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(str(db_path or Path(tmp) / "floor.sqlite"), isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        db.isolation_level = "DEFERRED"  # `with db` then opens and commits one transaction per conversation
        messages = conversations = 0
        ingest_s = 0.0
        latencies: list[float] = []
        for case in iter_cases(path, kind):
            started = time.perf_counter()
            ids, vectors = ingest_case(db, embedder, case)
            ingest_s += time.perf_counter() - started
            messages += len(ids)
            conversations += 1
            for question in case.questions:
                started = time.perf_counter()
                search(db, embedder, ids, vectors, question.question)
                latencies.append((time.perf_counter() - started) * 1000.0)
        stored = db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        db.close()
    return {"file": str(path), "kind": kind, "conversations": conversations, "messages": messages,
            "stored": int(stored), "ingest_s": round(ingest_s, 4),
            "messages_per_s": round(messages / ingest_s, 1) if ingest_s > 0 else 0.0,
            "questions": len(latencies), "search_p50_ms": round(percentile(latencies, 50), 3),
            "search_p95_ms": round(percentile(latencies, 95), 3), "embed_batch": EMBED_BATCH,
            "embedder": embedder.model_id}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--kind", choices=("locomo", "longmemeval"))
    parser.add_argument("--db", type=Path, help="keep the SQLite file here (default: a temporary one)")
    args = parser.parse_args(argv)
    print(json.dumps(measure_floor(args.file, args.kind, args.db), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
