"""Group 4: SIGKILL the service mid-write and mid-index, restart it on the same file, count lost writes.

Runs alternate: "mid-write" kills while writers are sending add_entry; "mid-index" lets every
write be acknowledged and kills at once, inside the index lag window (`index_lag_ms`), so the
acknowledged rows are stored but not yet searchable. After each restart every write ever
acknowledged must still be listed, and this run's writes must be searchable. Writes cut off by
the kill were never acknowledged: they are counted apart ("interrupted"), not as failures.
Cases: one per acknowledged write (ok / lost, judged by its final state) and one per restart.
RSS: the first instance's at the start, the last instance's at the end (each kill makes a new process).
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.fuzz.outcome import Tally
from bench.fuzz.target import ServiceHandle, http_client
from bench.fuzz.writers import Write, WriteLog, check, new_memories, writer


@dataclass(frozen=True)
class KillSizes:
    runs: int = 11
    writers: int = 4
    entries_mid_index: int = 40  # per writer
    lag_ms: int = 1500  # long enough that the health probe before the kill still sees the rows pending
    seed: int = 12


QUICK = KillSizes(runs=2, writers=4, entries_mid_index=8, lag_ms=1000)


async def pending_jobs(target: ServiceHandle) -> int | None:
    """The health route's count of index jobs not yet done (None if it has none)."""
    try:
        async with http_client(timeout_s=2.0) as http:
            body = (await http.get(target.health_url, headers=target.headers)).json()
    except (httpx.HTTPError, ValueError):
        return None
    value = body.get("pendingIndexJobs") if isinstance(body, dict) else None
    return value if isinstance(value, int) else None


async def one_run(target: ServiceHandle, vault: str, memory: str, mode: str, sizes: KillSizes,
                  rng: random.Random) -> tuple[WriteLog, int | None]:
    """Write, SIGKILL at the chosen moment; (what the writers saw, index jobs pending at the kill)."""
    log = WriteLog()
    if mode == "mid-write":
        tasks = [asyncio.create_task(writer(target, vault, memory, log, entries=None, timeout_s=5.0))
                 for _ in range(sizes.writers)]
        await asyncio.sleep(rng.uniform(0.3, 0.8))
        pending = await pending_jobs(target)
        target.kill9()
        await asyncio.gather(*tasks)
    else:
        await asyncio.gather(*(writer(target, vault, memory, log, entries=sizes.entries_mid_index, timeout_s=5.0)
                               for _ in range(sizes.writers)))
        pending = await pending_jobs(target)
        target.kill9()
    return log, pending


async def run(workdir: Path, tally: Tally, sizes: KillSizes, *, embedder: str) -> Tally:
    db, log_path = workdir / "kill9.sqlite", workdir / "kill9-service.log"
    target = await asyncio.to_thread(ServiceHandle.launch, db, log_path, embedder=embedder,
                                     index_lag_ms=sizes.lag_ms)
    tally.begin(target.pid)
    rng = random.Random(sizes.seed)
    final: dict[str, str] = {}  # token -> "" (present) or what is wrong, as of the latest check
    acked: list[Write] = []
    runs = []
    try:
        vault, memories = await new_memories(target, 1, "fzkill")
        for number in range(sizes.runs):
            mode = "mid-write" if number % 2 == 0 else "mid-index"
            log, pending = await one_run(target, vault, memories[0], mode, sizes, rng)
            try:
                await asyncio.to_thread(target.restart)
            except RuntimeError as err:
                tally.add("crash", f"run{number}.restart", str(err))
                break
            tally.add("ok", f"run{number}.restart")
            for token, text in log.refused:
                tally.add("wrong", f"run{number}.add_entry", f"{token}: refused: {text}")
            acked += log.acked
            retry = 3 * sizes.lag_ms / 1000 + 2.0  # the restarted service lags its index too
            listed_now, _ = await check(target, acked, search=False)
            searched, listed = await check(target, log.acked, retry_s=retry)
            final.update(listed_now)
            final.update({t: problem or final[t] for t, problem in searched.items()})
            acked_tokens = {w.token for w in acked}
            runs.append({"mode": mode, "acknowledged": len(log.acked), "interrupted": len(log.failed),
                         "pending_index_jobs_at_kill": pending,
                         "stored_without_ack_total": sum(1 for t in listed if t not in acked_tokens),
                         "lost_so_far": sum(1 for p in final.values() if p)})
    finally:
        for token, problem in final.items():
            tally.add("lost" if problem else "ok", "acknowledged-write", f"{token}: {problem}" if problem else "")
        tally.end(target.pid)
        tally.extra.update(runs=runs, sigterm_exit_code=await asyncio.to_thread(target.stop))
    return tally
