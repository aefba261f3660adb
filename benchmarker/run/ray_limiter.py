"""One back-off for the whole Ray run: a throttled model call on any worker pauses them all.

Locally every case shares one process, so a 429 slows the whole run through the provider's own
Retry-After. Spread over workers, each would learn about the limit on its own and keep sending.
The driver owns a small actor holding "no model calls before T"; each worker's retry layer
(agent/retry.py, `use_call_gate`) waits on it before a call and extends it after a 429. How many
cases run at once is bounded by the driver (`[run].concurrency` over all workers).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any


class BackoffClock:
    """The shared pause, as the actor keeps it: a deadline on this process's monotonic clock
    (callers receive and send durations, so workers on other machines need no synced clocks)."""

    def __init__(self) -> None:
        self._until = 0.0
        self.holds = 0

    def hold(self, seconds: float) -> None:
        self.holds += 1
        self._until = max(self._until, time.monotonic() + max(0.0, float(seconds)))

    def remaining(self) -> float:
        return max(0.0, self._until - time.monotonic())

    def stats(self) -> dict[str, float]:
        return {"holds": self.holds, "remaining_s": round(self.remaining(), 3)}


class RayCallGate:
    """A worker's view of the driver's `BackoffClock` actor (agent/retry.py's `CallGate`)."""

    def __init__(self, actor: Any):
        self._actor = actor

    async def wait(self) -> None:
        remaining = await self._actor.remaining.remote()
        if remaining > 0:
            await asyncio.sleep(remaining)

    def hold(self, seconds: float) -> None:
        self._actor.hold.remote(seconds)  # fire and forget: the caller sleeps its own back-off anyway
