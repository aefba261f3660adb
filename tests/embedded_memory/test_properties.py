"""Property tests: any Unicode text round-trips through add_entry/get_entry and search never crashes."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedded_memory.errors import ServiceError
from tests.embedded_memory.memsvc_support import new_memory, open_service

texts = st.text(min_size=1, max_size=300).filter(lambda s: s.strip())
tag_values = st.one_of(st.text(max_size=40), st.integers(-10**9, 10**9), st.booleans(), st.none())
tags = st.dictionaries(st.text(max_size=20), tag_values, max_size=5)


def test_unicode_round_trips_and_search_never_crashes(tmp_path):
    loop = asyncio.new_event_loop()
    svc = open_service(tmp_path / "props.sqlite")
    loop.run_until_complete(svc.start())
    vault_id, memory_id = loop.run_until_complete(new_memory(svc))

    async def check(raw: str, summary: str, entry_tags: dict, query: str, alpha: float) -> None:
        svc.add_entry(vault_id, memory_id, raw, summary, entry_tags)
        newest = svc.list_entries(vault_id, memory_id, limit=1)["entries"][0]
        fetched = svc.get_entry(vault_id, memory_id, newest["entryId"])
        assert (fetched["rawEntry"], fetched["summary"], fetched["tags"]) == (raw, summary, entry_tags)
        await svc.await_consistency(memory_id)
        for q in (query, raw, summary):
            try:
                result = await svc.search(memory_id, q, top_k=5, alpha=alpha)
            except ServiceError as err:
                assert err.argument == "query" and not q.strip()
                continue
            assert result["count"] == len(result["entries"]) <= 5
            assert all(0.0 <= hit["score"] <= 1.0 for hit in result["entries"])

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(raw=texts, summary=st.text(max_size=200), entry_tags=tags, query=st.text(max_size=100),
           alpha=st.sampled_from([0.0, 0.3, 1.0]))
    def run(raw: str, summary: str, entry_tags: dict, query: str, alpha: float) -> None:
        loop.run_until_complete(check(raw, summary, entry_tags, query, alpha))

    try:
        run()
    finally:
        loop.run_until_complete(svc.close())
        loop.close()
