"""BM25 statistics are per memory: a memory ranks the same whatever else the database holds.

Before, one FTS5 table held every memory and bm25() took N, avgdl and document frequencies from
all of it: a question's ranking changed with the questions ingested before it and with a killed
run's orphaned partial memory.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from embedded_memory.service import MemoryService
from tests.embedded_memory.memsvc_support import new_memory, open_service

A_ENTRIES = [
    ("My hamster Peanut eats sunflower seeds every morning", "hamster Peanut eats seeds"),
    ("I bought sunflower seeds and hamster bedding at the pet store", "bought seeds and bedding"),
    ("Flight to Lisbon booked for July; seeds of a plan for the trip", "Lisbon flight booked"),
    ("The garden needs seeds, seeds and more seeds before spring planting starts", "garden seeds"),
    ("Peanut the hamster escaped again and hid behind the sofa", "hamster escaped"),
    ("Lisbon hotel near the river, breakfast included, checked the reviews twice", "Lisbon hotel"),
    ("Bought a bigger cage for Peanut", "new hamster cage"),
    ("Planted tomato seeds in the garden beds with my sister on Sunday afternoon", "planted tomato seeds"),
]
A_CONTEXTS = ["facts: hamster Peanut, seeds", "trip: Lisbon in July, hotel by the river", "garden: tomato seeds"]
QUERIES = ["what does my hamster eat", "Lisbon hotel", "garden seeds", "Peanut cage", "sunflower seeds hamster"]
WORDS = "hamster seeds Lisbon garden Peanut hotel flight cage sunflower tomato river plan bedding the a and of".split()


def other_memory_entries(n: int = 250, seed: int = 3) -> list[tuple[str, str]]:
    """A big unrelated memory sharing A's terms, with very different lengths."""
    rng = random.Random(seed)
    entries = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 60))]
        entries.append((" ".join(words), " ".join(words[:5])))
    return entries


async def fill(svc: MemoryService, title: str, entries: list[tuple[str, str]], contexts: list[str]) -> str:
    vault_id, memory_id = await new_memory(svc, title)
    for raw, summary in entries:
        svc.add_entry(vault_id, memory_id, raw, summary)
    for content in contexts:
        svc.put_context(vault_id, memory_id, content)
    assert await svc.await_consistency(memory_id) == "consistent"
    return memory_id


async def rankings(svc: MemoryService, memory_id: str) -> dict[str, Any]:
    """What a user sees for each query (alpha 0: BM25 only), plus the raw BM25 scores behind it."""
    mkey = svc.store.get_memory(memory_id).mkey
    seen: dict[str, Any] = {}
    for query in QUERIES:
        result = await svc.search(memory_id, query, top_k=8, alpha=0)
        raw = {kind: [(text_of(svc, kind, seq), score) for seq, score in svc.searcher.bm25(kind, mkey, query, 20)]
               for kind in ("entry", "context")}
        seen[query] = {"entries": [(e["rawEntry"], e["score"]) for e in result["entries"]],
                       "bestContext": result["bestContext"], "bm25": raw}
    return seen


def text_of(svc: MemoryService, kind: str, seq: int) -> str:
    if kind == "entry":
        return svc.store.entries_by_seq([seq])[seq].raw_entry
    return svc.store.contexts_by_seq([seq])[seq].content


async def test_a_memory_ranks_the_same_with_or_without_a_big_other_memory(tmp_path):
    svc = open_service(tmp_path / "alone-first.sqlite", embedder=None)
    await svc.start()
    a = await fill(svc, "a", A_ENTRIES, A_CONTEXTS)
    alone = await rankings(svc, a)
    assert alone["Lisbon hotel"]["entries"][0][0].startswith("Lisbon hotel")
    await fill(svc, "b", other_memory_entries(), [" ".join(WORDS * 3)] * 20)  # B added after A
    assert await rankings(svc, a) == alone
    await svc.close()

    svc = open_service(tmp_path / "alone-first.sqlite", embedder=None)  # a restart rebuilds from the file
    await svc.start()
    assert await rankings(svc, a) == alone
    await svc.close()

    svc = open_service(tmp_path / "other-first.sqlite", embedder=None)  # B ingested before A
    await svc.start()
    await fill(svc, "b", other_memory_entries(seed=4), [])
    assert await rankings(svc, await fill(svc, "a", A_ENTRIES, A_CONTEXTS)) == alone
    await svc.close()


def reference_bm25(docs: list[str], query: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 over `docs` alone, with FTS5's IDF floor (1e-6 for terms in over half the docs)."""
    tokens = [re.findall(r"[a-z0-9]+", doc.lower()) for doc in docs]
    n_docs, avgdl = len(docs), sum(map(len, tokens)) / len(docs)
    scores = []
    for doc in tokens:
        score = 0.0
        for term in query:
            df = sum(term in other for other in tokens)
            f = doc.count(term)
            if not f:
                continue
            idf = math.log((n_docs - df + 0.5) / (df + 0.5))
            score += max(idf, 1e-6) * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(score)
    return scores


async def test_ranking_within_a_memory_is_plain_okapi_bm25_over_that_memory(tmp_path):
    svc = open_service(tmp_path / "ref.sqlite", embedder=None)
    await svc.start()
    await fill(svc, "other", other_memory_entries(120), [])
    a = await fill(svc, "a", A_ENTRIES, [])
    mkey = svc.store.get_memory(a).mkey
    docs = [f"{raw} {summary}" for raw, summary in A_ENTRIES]
    expected_order, got_order, expected_scores, got_scores = {}, {}, {}, {}
    for query, terms in (("hamster seeds", ["hamster", "seeds"]), ("Lisbon garden", ["lisbon", "garden"]),
                         ("Peanut sunflower tomato", ["peanut", "sunflower", "tomato"])):
        scores = reference_bm25(docs, terms)
        ranked = sorted((s, raw) for s, (raw, _) in zip(scores, A_ENTRIES, strict=True) if s > 0)[::-1]
        assert len({s for s, _ in ranked}) == len(ranked), "the corpus must not produce ties"
        expected_order[query] = [raw for _, raw in ranked]
        got_order[query] = [e["rawEntry"] for e in (await svc.search(a, query, top_k=8, alpha=0))["entries"]]
        got_scores[query] = {text_of(svc, "entry", seq): score for seq, score in svc.searcher.bm25("entry", mkey, query, 20)}
        expected_scores[query] = {raw: _approx(s, got_scores[query].get(raw)) for s, raw in ranked}
    assert got_order == expected_order
    assert got_scores == expected_scores
    await svc.close()


def _approx(expected: float, got: float | None) -> float | None:
    """`got` when it equals `expected` to 1e-9 (so the dict comparison shows both on failure)."""
    return got if got is not None and math.isclose(got, expected, rel_tol=1e-9) else expected
