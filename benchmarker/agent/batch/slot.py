"""The place a running case holds among `[run] concurrency`, which a case waiting on a batch gives back."""

from __future__ import annotations

import asyncio
import contextvars

# The semaphore of `[run] concurrency` held by the case running in this task (graph/build.py sets it).
case_slot: contextvars.ContextVar[asyncio.Semaphore | None] = contextvars.ContextVar("case_slot", default=None)
