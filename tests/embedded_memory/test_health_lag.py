"""/v0/health's pendingIndexJobs counts every stored row that search cannot see yet, index lag included."""

from __future__ import annotations

import asyncio
import time

from tests.embedded_memory.memsvc_support import new_memory, open_service

LAG_MS = 1500


async def test_pending_index_jobs_counts_rows_waiting_out_the_index_lag(tmp_path):
    svc = open_service(tmp_path / "lag.sqlite", index_lag_ms=LAG_MS)
    await svc.start()
    try:
        vault_id, memory_id = await new_memory(svc)  # its placeholder context is a row to index too
        for i in range(5):  # enqueued back to back: one batch, as a burst of add_entry calls gives
            svc.add_entry(vault_id, memory_id, f"zebra fact {i}", f"zebra {i}")
        assert svc.health()["pendingIndexJobs"] == 6
        started = time.monotonic()
        assert await svc.await_consistency(memory_id) == "consistent"  # does not wait for the lag
        health = svc.health()
        assert time.monotonic() - started < LAG_MS / 1000, "the machine was too slow to observe the lag"
        assert (await svc.search(memory_id, "zebra", alpha=0))["count"] == 0
        assert health["pendingIndexJobs"] == 6 and health["indexLagMs"] == LAG_MS
        deadline = time.monotonic() + 10
        while svc.health()["pendingIndexJobs"] and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert svc.health()["pendingIndexJobs"] == 0
        assert (await svc.search(memory_id, "zebra", alpha=0))["count"] == 5
    finally:
        await svc.close()


async def test_pending_index_jobs_counts_rows_left_unindexed_by_a_previous_run(tmp_path):
    svc = open_service(tmp_path / "resume.sqlite", index_lag_ms=60_000)
    await svc.start()
    vault_id, memory_id = await new_memory(svc)
    for i in range(3):
        svc.add_entry(vault_id, memory_id, f"entry {i}", "")
    await svc.close()  # stopped inside the lag: 4 rows stored, none searchable

    svc = open_service(tmp_path / "resume.sqlite", index_lag_ms=60_000)
    try:
        assert svc.health()["pendingIndexJobs"] == 4  # before start() re-queues them
        assert await svc.start() == 4
        assert svc.health()["pendingIndexJobs"] == 4
    finally:
        await svc.close()
