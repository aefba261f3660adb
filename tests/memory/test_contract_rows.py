"""A server's entries as the harness reads them (benchmarker.memory.contract): only the objects of an array
count, whatever else the server put there, so a damaged reply maps to fewer hits rather than a crash."""

from __future__ import annotations

from benchmarker.memory.contract import entry_rows


def test_entry_rows_keeps_the_objects_of_an_array_in_order():
    hits = [{"entryId": "a", "score": 0.5}, "stray text", None, {"entryId": "b", "tags": '{"role": "user"}'}]
    assert entry_rows(hits) == [{"entryId": "a", "score": 0.5}, {"entryId": "b", "tags": '{"role": "user"}'}]


def test_entry_rows_of_anything_but_an_array_is_empty():
    for value in (None, "entries", 3, {"entryId": "a"}):
        assert entry_rows(value) == []
