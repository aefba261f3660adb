"""SQLite store: titles unique as in Mycelian, every context version kept, order, restart persistence."""

from __future__ import annotations

import numpy as np
import pytest

from embedded_memory.errors import ConflictError
from embedded_memory.store import Store
from embedded_memory.timefmt import MonotonicClock, normalize_cursor, parse_rfc3339


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "s.sqlite")
    yield s
    s.close()


def test_vault_titles_are_unique_and_memory_titles_unique_per_vault(store):
    a = store.create_vault("lme", "")
    with pytest.raises(ConflictError, match="already exists") as info:
        store.create_vault("lme", "again")
    assert info.value.argument == "title" and a.vault_id in str(info.value)
    b = store.create_vault("other", "")
    m1, ctx = store.create_memory(a.vault_id, "q1", "NOTES", "", "placeholder")
    with pytest.raises(ConflictError, match="already exists"):
        store.create_memory(a.vault_id, "q1", "NOTES", "", None)
    m2, none = store.create_memory(b.vault_id, "q1", "NOTES", "", None)  # same title, other vault
    assert m1.memory_id != m2.memory_id and ctx is not None and none is None
    assert [m.title for m in store.list_memories(a.vault_id)] == ["q1"]
    assert [v.title for v in store.list_vaults()] == ["lme", "other"]


def test_every_context_version_is_kept_and_latest_wins(store):
    vault = store.create_vault("v", "")
    memory, first = store.create_memory(vault.vault_id, "m", "NOTES", "", "placeholder")
    store.add_context(memory, "v2")
    third = store.add_context(memory, "v3")
    assert [c.content for c in store.contexts(memory.mkey)] == ["placeholder", "v2", "v3"]
    assert store.latest_context(memory.mkey) == third
    assert first is not None and first.creation_time < third.creation_time


def test_entries_newest_first_with_before_and_after_cursors(store):
    vault = store.create_vault("v", "")
    memory, _ = store.create_memory(vault.vault_id, "m", "NOTES", "", None)
    entries = [store.add_entry(memory, f"raw {i}", f"sum {i}", "{}") for i in range(7)]
    stamps = [e.creation_time for e in entries]
    assert stamps == sorted(stamps) and len(set(stamps)) == 7  # strictly increasing, unique
    page = store.list_entries(memory.mkey, 3)
    assert [e.raw_entry for e in page] == ["raw 6", "raw 5", "raw 4"]
    page2 = store.list_entries(memory.mkey, 3, before=page[-1].creation_time)
    assert [e.raw_entry for e in page2] == ["raw 3", "raw 2", "raw 1"]
    forward = store.list_entries(memory.mkey, 2, after=entries[1].creation_time)
    assert [e.raw_entry for e in forward] == ["raw 3", "raw 2"]  # the next 2 after raw 1, newest first
    assert store.count_entries(memory.mkey) == 7


def test_restart_loses_nothing_including_vectors(tmp_path):
    path = tmp_path / "r.sqlite"
    s = Store(path)
    vault = s.create_vault("v", "d")
    memory, ctx = s.create_memory(vault.vault_id, "m", "NOTES", "desc", "placeholder")
    entry = s.add_entry(memory, "raw ü 🎉", "summary", '{"k": 1}')
    s.write_index([entry], [ctx], np.eye(2, 4, dtype=np.float32), "model-a")
    pending_entry = s.add_entry(memory, "not indexed yet", "s", "{}")
    s.close()

    s = Store(path)
    try:
        assert s.get_vault(vault.vault_id) == vault
        assert s.get_memory(memory.memory_id) == memory
        assert s.get_entry(entry.entry_id) == entry
        assert s.latest_context(memory.mkey) == ctx
        seqs, matrix = s.load_vectors("entry", memory.mkey, "model-a")
        assert list(seqs) == [entry.seq] and matrix is not None and matrix.shape == (1, 4)
        assert s.pending("entry", None) == [(memory.mkey, pending_entry.seq)]
        assert s.pending("entry", "model-a") == [(memory.mkey, pending_entry.seq)]
        assert s.pending("entry", "model-b") == [(memory.mkey, entry.seq), (memory.mkey, pending_entry.seq)]
        assert s.drop_stale_vectors("model-b") == 2  # the entry's and the context's
        later = s.add_entry(memory, "after restart", "s", "{}")
        assert later.creation_time > pending_entry.creation_time
    finally:
        s.close()


def test_second_service_on_the_same_file_is_refused(tmp_path):
    first = Store(tmp_path / "x.sqlite")
    try:
        with pytest.raises(RuntimeError, match="in use by another embedded memory service"):
            Store(tmp_path / "x.sqlite")
    finally:
        first.close()
    Store(tmp_path / "x.sqlite").close()  # free again once the first closed


def test_full_text_rows_are_written_once(store):
    from embedded_memory.keyword_index import KeywordIndexes
    from embedded_memory.store import searchable_texts

    vault = store.create_vault("v", "")
    memory, _ = store.create_memory(vault.vault_id, "m", "NOTES", "", None)
    entry = store.add_entry(memory, "zebra crossing", "zebra", "{}")
    assert store.count_unindexed() == 1 and searchable_texts(store.db, "entry", memory.mkey) == []
    store.write_index([entry], [], None, None)
    store.write_index([entry], [], None, None)  # a retried batch must not duplicate the row
    assert store.count_unindexed() == 0
    keywords = KeywordIndexes(lambda kind, mkey: searchable_texts(store.db, kind, mkey))
    row = (entry.seq, entry.raw_entry, entry.summary)
    keywords.publish("entry", memory.mkey, [row])  # published before the index is built: read from the file
    assert len(keywords.search("entry", memory.mkey, '"zebra"', 10)) == 1
    keywords.publish("entry", memory.mkey, [row, row])  # re-published (a retried batch)
    assert len(keywords.search("entry", memory.mkey, '"zebra"', 10)) == 1
    keywords.close()


def test_rfc3339_parsing_accepts_go_and_js_forms_and_rejects_naive():
    assert normalize_cursor("2024-05-01T12:00:00Z") == "2024-05-01T12:00:00.000000Z"
    assert normalize_cursor("2024-05-01T14:00:00.123456789+02:00") == "2024-05-01T12:00:00.123456Z"
    assert normalize_cursor("2024-05-01t12:00:00.5z") == "2024-05-01T12:00:00.500000Z"
    for bad in ("2024-05-01T12:00:00", "yesterday", "", "2024-13-01T00:00:00Z"):
        with pytest.raises(ValueError):
            parse_rfc3339(bad)
    clock = MonotonicClock("2999-01-01T00:00:00Z")  # a stored stamp from the "future"
    assert clock.now() == "2999-01-01T00:00:00.000001Z"


def test_a_version_1_file_loses_its_shared_fts_tables_and_stays_searchable(tmp_path):
    from embedded_memory.keyword_index import KeywordIndexes
    from embedded_memory.store import searchable_texts

    path = tmp_path / "v1.sqlite"
    store = Store(path)
    vault = store.create_vault("v", "")
    memory, _ = store.create_memory(vault.vault_id, "m", "NOTES", "", None)
    store.write_index([store.add_entry(memory, "zebra crossing", "zebra", "{}")], [], None, None)
    store.db.execute("CREATE VIRTUAL TABLE entries_fts USING fts5(mtag, raw_entry, summary, content='')")
    store.db.execute("CREATE VIRTUAL TABLE contexts_fts USING fts5(mtag, content, content='')")
    store.db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    store.close()

    store = Store(path)
    try:
        tables = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master")}
        assert not {"entries_fts", "contexts_fts"} & tables
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "2"
        keywords = KeywordIndexes(lambda kind, mkey: searchable_texts(store.db, kind, mkey))
        assert len(keywords.search("entry", memory.mkey, '"zebra"', 10)) == 1
        keywords.close()
    finally:
        store.close()
