"""Compare the embedded service's embedders (minilm vs static) on speed and on real retrieval.

    .venv/bin/python bench/bench_embedders.py [--data FILE] [--embedders minilm,static]

Retrieval: for every LongMemEval question in the file, each user turn of every haystack session
becomes an entry (summary = the turn), the question is the query, and turns are ranked by the
service's own search code (BM25, dense, and the hybrid at alpha 0.6). A session is ranked by its
best turn; session recall@k = share of answer_session_ids among the top-k sessions. Speed:
texts/s embedding the turns in batches, and single-query latency.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarker.memory.service.embedders import create_embedder  # noqa: E402
from benchmarker.memory.service.search import HybridSearcher  # noqa: E402
from benchmarker.memory.service.store import Store  # noqa: E402
from benchmarker.memory.service.vectors import VectorCache  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
KS = (1, 5, 10)


def session_recall(ranked_sessions: list[str], answers: set[str], k: int) -> float:
    top = set(ranked_sessions[:k])
    return len(top & answers) / len(answers)


def rank_sessions(hits: list[tuple[int, float]], session_of: dict[int, str]) -> list[str]:
    seen: dict[str, None] = {}
    for seq, _ in hits:
        seen.setdefault(session_of[seq], None)
    return list(seen)


def evidence_mrr(hits: list[tuple[int, float]], evidence: set[int]) -> float:
    """Reciprocal rank of the first evidence turn (LongMemEval's has_answer) among the hits."""
    for rank, (seq, _) in enumerate(hits, start=1):
        if seq in evidence:
            return 1.0 / rank
    return 0.0


def build(question: dict, embedder, store: Store) -> tuple[int, dict[int, str], set[int], float, int]:
    """Store one question's user turns as entries with vectors; (mkey, seq->session, evidence, s, n)."""
    vault = store.create_vault(f"v{question['question_id']}".replace("_", "-"), "")
    memory, _ = store.create_memory(vault.vault_id, "m", "NOTES", "", None)
    entries, session_of, evidence = [], {}, set()
    for sid, session in zip(question["haystack_session_ids"], question["haystack_sessions"], strict=True):
        for turn in session:
            if turn["role"] == "user" and turn["content"].strip():
                entry = store.add_entry(memory, turn["content"], turn["content"], "{}")
                entries.append(entry)
                session_of[entry.seq] = sid
                if turn.get("has_answer"):
                    evidence.add(entry.seq)
    started = time.perf_counter()
    vectors = embedder.embed([e.summary for e in entries]) if embedder is not None else None
    elapsed = time.perf_counter() - started
    store.write_index(entries, [], vectors, embedder.model_id if embedder is not None else None)
    return memory.mkey, session_of, evidence, elapsed, len(entries)


def evaluate(data: list[dict], name: str) -> dict:
    embedder = create_embedder(name) if name != "none" else None
    results: dict[str, list[float]] = {}
    embed_s, texts, query_ms = 0.0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.sqlite")
        model = embedder.model_id if embedder is not None else ""
        searcher = HybridSearcher(store, VectorCache(lambda kind, mkey: store.load_vectors(kind, mkey, model), 1 << 30),
                                  threaded=False)
        for question in data:
            answers = set(question["answer_session_ids"]) & set(question["haystack_session_ids"])
            mkey, session_of, evidence, seconds, count = build(question, embedder, store)
            embed_s, texts = embed_s + seconds, texts + count
            if not answers:
                continue
            qvec = None
            if embedder is not None:
                started = time.perf_counter()
                qvec = embedder.embed([question["question"]])[0]
                query_ms.append((time.perf_counter() - started) * 1000)
            modes = {"bm25": 0.0} if embedder is None else {"dense": 1.0, "hybrid0.6": 0.6}
            for mode, alpha in modes.items():
                hits = searcher.rank("entry", mkey, question["question"], qvec, alpha, 100)
                ranked = rank_sessions(hits, session_of)
                for k in KS:
                    results.setdefault(f"{mode}@{k}", []).append(session_recall(ranked, answers, k))
                if evidence:
                    results.setdefault(f"{mode}_turn_mrr", []).append(evidence_mrr(hits, evidence))
        store.close()
    out = {"embedder": name, "questions": len(data), "texts": texts}
    if embedder is not None:
        out |= {"texts_per_s": round(texts / embed_s, 1), "query_ms_median": round(statistics.median(query_ms), 2)}
    out |= {key: round(float(np.mean(vals)), 3) for key, vals in sorted(results.items())}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedders", default="none,static,minilm")
    args = parser.parse_args()
    data = json.loads(args.data.read_text(encoding="utf-8"))
    for name in args.embedders.split(","):
        print(json.dumps(evaluate(data, name.strip())), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
