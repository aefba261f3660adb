"""Fusion math on hand-computed lists, BM25 token quoting, and the vector index."""

from __future__ import annotations

import numpy as np
import pytest

from embedded_memory.search import HybridSearcher, fts_expression, fuse, min_max, query_tokens
from embedded_memory.store import Store
from embedded_memory.vectors import VectorCache, VectorIndex

BM25 = [(1, 10.0), (2, 6.0), (3, 2.0)]  # normalised: 1.0, 0.5, 0.0
DENSE = [(3, 0.9), (4, 0.7), (1, 0.5)]  # normalised: 1.0, 0.5, 0.0


def test_min_max_matches_weaviate_example_and_edge_cases():
    assert min_max([1, 8, 6, 11]) == pytest.approx([0, 0.7, 0.5, 1])
    assert min_max([]) == []
    assert min_max([3.0]) == [1.0]  # a single hit gets the full weight
    assert min_max([2.0, 2.0]) == [1.0, 1.0]


def test_alpha_zero_is_pure_bm25_and_one_is_pure_vector():
    assert fuse(BM25, DENSE, 0.0) == [(1, 1.0), (2, 0.5), (3, 0.0)]
    assert fuse(BM25, DENSE, 1.0) == [(3, 1.0), (4, 0.5), (1, 0.0)]


def test_alpha_half_blends_hand_computed_scores():
    # 1: 0.5*1.0 + 0.5*0.0 = 0.5   2: 0.5*0.5 = 0.25   3: 0.5*0.0 + 0.5*1.0 = 0.5   4: 0.5*0.5 = 0.25
    fused = dict(fuse(BM25, DENSE, 0.5))
    assert fused == pytest.approx({1: 0.5, 2: 0.25, 3: 0.5, 4: 0.25})
    # ties are broken by the newer (higher) row id
    assert [row for row, _ in fuse(BM25, DENSE, 0.5)] == [3, 1, 4, 2]


def test_alpha_weights_like_weaviate_relative_score():
    fused = dict(fuse(BM25, DENSE, 0.6))
    assert fused[1] == pytest.approx(0.4 * 1.0 + 0.6 * 0.0)
    assert fused[3] == pytest.approx(0.4 * 0.0 + 0.6 * 1.0)
    assert fused[4] == pytest.approx(0.6 * 0.5)
    assert fused[2] == pytest.approx(0.4 * 0.5)


def test_single_element_and_empty_lists():
    assert fuse([(7, 3.2)], [], 0.6) == [(7, pytest.approx(0.4))]
    assert fuse([], [(8, 0.1)], 0.6) == [(8, pytest.approx(0.6))]
    assert fuse([(7, 3.2)], [(7, 0.3)], 0.6) == [(7, pytest.approx(1.0))]
    assert fuse([], [], 0.5) == []


def test_query_tokens_drop_stopwords_and_duplicates_but_never_everything():
    assert query_tokens("What is the name of MY hamster, my hamster?") == ["name", "hamster"]
    assert query_tokens("the and of") == ["the", "and", "of"]
    assert query_tokens("!!! ... ???") == []
    assert fts_expression("?!") is None


def keyword_searcher(store: Store) -> HybridSearcher:
    """BM25 only, on the caller's thread."""
    return HybridSearcher(store, VectorCache(lambda kind, mkey: store.load_vectors(kind, mkey, ""), 1 << 20),
                          threaded=False)


NASTY = ['say "hello" now', 'AND OR NOT', 'NEAR(a b, 2)', 'foo*', 'col:value', '^start', '(unbalanced',
         '"', '""""', "it's", 'a-b c+d', 'emoji 🎉 and 中文', 'x AND', '-', '\\', "DROP TABLE entries; --",
         'summary:zebra', 'NEAR', '*', "o'clock \"quoted\" ^^ ::"]


@pytest.mark.parametrize("query", NASTY)
def test_fts_operators_and_punctuation_in_queries_are_literal(tmp_path, query):
    store = Store(tmp_path / "q.sqlite")
    try:
        vault = store.create_vault("v", "")
        memory, _ = store.create_memory(vault.vault_id, "m", "NOTES", "", None)
        entries = [store.add_entry(memory, text, text, "{}") for text in
                   ("say hello now and NEAR the zebra", "col value start foo", "emoji 中文 it s o clock")]
        store.write_index(entries, [], None, None)
        searcher = keyword_searcher(store)
        hits = searcher.bm25("entry", memory.mkey, query, 10)
        assert all(isinstance(seq, int) for seq, _ in hits)
        searcher.close()
    finally:
        store.close()


def test_bm25_is_scoped_to_one_memory(tmp_path):
    store = Store(tmp_path / "scope.sqlite")
    try:
        vault = store.create_vault("v", "")
        m1, _ = store.create_memory(vault.vault_id, "a", "NOTES", "", None)
        m2, _ = store.create_memory(vault.vault_id, "b", "NOTES", "", None)
        e1 = store.add_entry(m1, "zebra in memory one", "", "{}")
        e2 = store.add_entry(m2, "zebra in memory two", "", "{}")
        store.write_index([e1, e2], [], None, None)
        searcher = keyword_searcher(store)
        assert [s for s, _ in searcher.bm25("entry", m1.mkey, "zebra", 10)] == [e1.seq]
        assert [s for s, _ in searcher.bm25("entry", m2.mkey, "zebra", 10)] == [e2.seq]
        ranked = searcher.bm25("entry", m1.mkey, "zebra memory one", 10)
        assert ranked[0][1] > 0  # higher is better
        searcher.close()
    finally:
        store.close()


def test_vector_index_grows_and_ranks_by_cosine():
    index = VectorIndex(np.empty(0, dtype=np.int64), None)
    assert index.top(np.ones(3, dtype=np.float32), 5) == []
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(300, 3)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for start in range(0, 300, 70):  # several appends force the matrix to grow
        index.add(np.arange(start, min(start + 70, 300)), vectors[start:start + 70])
    assert len(index) == 300
    query = vectors[42]
    top = index.top(query, 5)
    assert top[0][0] == 42 and top[0][1] == pytest.approx(1.0, abs=1e-5)
    expected = np.argsort(-(vectors @ query))[:5]
    assert [seq for seq, _ in top] == list(expected)
    assert len(index.top(query, 1000)) == 300
    with pytest.raises(ValueError, match="does not match"):
        index.add(np.array([999]), np.ones((1, 4), dtype=np.float32))


def test_keyword_indexes_past_their_budget_are_rebuilt_from_the_file(tmp_path):
    from embedded_memory.keyword_index import KeywordIndexes
    from embedded_memory.store import searchable_texts

    store = Store(tmp_path / "budget.sqlite")
    try:
        vault = store.create_vault("v", "")
        memories = [store.create_memory(vault.vault_id, f"m{i}", "NOTES", "", None)[0] for i in range(3)]
        keywords = KeywordIndexes(lambda kind, mkey: searchable_texts(store.db, kind, mkey), budget_bytes=1)
        for round_ in range(2):  # each search closes the other memories' indexes (budget: 1 byte)
            for memory in memories:
                entry = store.add_entry(memory, f"zebra {memory.title} round {round_}", "", "{}")
                store.write_index([entry], [], None, None)
                keywords.publish("entry", memory.mkey, [(entry.seq, entry.raw_entry, entry.summary)])
            for memory in memories:
                hits = keywords.search("entry", memory.mkey, '"zebra"', 10)
                assert len(hits) == round_ + 1
                assert {seq for seq, _ in hits} <= {e.seq for e in store.list_entries(memory.mkey, 10)}
        keywords.close()
    finally:
        store.close()


def test_a_keyword_index_whose_build_failed_is_built_again():
    from embedded_memory.keyword_index import KeywordIndexes

    calls = []

    def loader(kind: str, mkey: int) -> list[tuple[int, str, str]]:
        calls.append(mkey)
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        return [(1, "zebra crossing", "zebra")]

    keywords = KeywordIndexes(loader)
    with pytest.raises(RuntimeError, match="locked"):
        keywords.search("entry", 7, '"zebra"', 10)
    assert [seq for seq, _ in keywords.search("entry", 7, '"zebra"', 10)] == [1]
    keywords.close()
