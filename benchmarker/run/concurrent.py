"""Run a verb's independent jobs at once, and stop them all when one fails.

`asyncio.gather` lets the other jobs run on after the first error (a judge that failed too often in a
row would keep being called); a TaskGroup would wrap the error in an ExceptionGroup. Here the first
error cancels the rest and is raised as itself, so the error boundary prints its one line."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any


async def run_all_or_stop(jobs: Iterable[Awaitable[Any]]) -> None:
    """Await every job; on the first failure (or a cancel) cancel the others, wait for them, re-raise."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
