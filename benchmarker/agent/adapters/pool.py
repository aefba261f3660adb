"""The outside agents of one run: one per concurrent case, each leased for a whole case.

An outside agent keeps one memory, so a case (reset, learn, answer) must own it from start to
end. An HTTP agent is one service: the pool holds one. A subprocess agent can be started once per
concurrent case, each process its own memory. A process that died, hung or broke the protocol (in a
case or while idle) is closed and replaced before the next case, so one crash costs at most one case.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping

from benchmarker.agent.adapters.contract import AgentAdapter
from benchmarker.log.lines import Json

log = logging.getLogger(__name__)


class AgentPool:
    """Up to `size` adapters made by `factory`, started on first need and all closed by `close()`."""

    def __init__(self, factory: Callable[[], AgentAdapter], *, size: int = 1,
                 description: Mapping[str, Json] | None = None):
        if size < 1:
            raise ValueError("an agent pool needs at least one agent")
        self._factory = factory
        self.size = size
        self.description = dict(description or {})
        self._idle: list[AgentAdapter] = []
        self._all: list[AgentAdapter] = []
        self._slots = asyncio.Semaphore(size)
        self._closed = False
        self.capabilities: list[str] | None = None  # what the first agent started reported

    @property
    def name(self) -> str:
        return str(self.description.get("name") or "agent")

    async def _new(self) -> AgentAdapter:
        adapter = self._factory()
        self._all.append(adapter)
        if self.capabilities is None:
            self.capabilities = sorted(adapter.capabilities)
        start = getattr(adapter, "start", None)
        if start is not None:  # a subprocess starts here, so a bad command fails before any case
            await start()
        return adapter

    async def check(self) -> None:
        """Start one agent and reset it: an unreachable agent fails the run before any case starts."""
        async with self.lease() as adapter:
            await adapter.reset()

    @contextlib.asynccontextmanager
    async def lease(self) -> AsyncIterator[AgentAdapter]:
        """One agent for the caller alone until the block ends."""
        if self._closed:
            raise RuntimeError("the agent pool is closed")
        async with self._slots:
            adapter = await self._idle_or_new()
            try:
                yield adapter
            finally:
                if getattr(adapter, "usable", True):
                    self._idle.append(adapter)
                else:  # dead or hung: the next lease starts a fresh one
                    self._all.remove(adapter)
                    await adapter.close()

    async def _idle_or_new(self) -> AgentAdapter:
        """An idle agent still fit for a case (one that wrote unasked output or died while idle is
        replaced, so the next case does not pay for it), else a new one."""
        while self._idle:
            adapter = self._idle.pop()
            if getattr(adapter, "usable", True):
                return adapter
            log.warning("agent %s replaced before its next case: %s", adapter.name, getattr(adapter, "problem", None))
            self._all.remove(adapter)
            await adapter.close()
        return await self._new()

    async def close(self) -> None:
        """Close every agent (safe to call twice). A close that fails is logged, not raised: it runs
        while the run ends, often because of another error, which it must not hide."""
        self._closed = True
        adapters, self._all, self._idle = self._all, [], []
        results = await asyncio.gather(*(a.close() for a in adapters), return_exceptions=True)
        for adapter, result in zip(adapters, results, strict=True):
            if isinstance(result, Exception):
                log.warning("closing agent %s failed: %s: %s", adapter.name, type(result).__name__, result)

    def describe(self) -> dict[str, Json]:
        """What the manifest records about the agent under test (before redaction)."""
        capabilities: list[Json] | None = None if self.capabilities is None else [*self.capabilities]
        return {**self.description, "pool_size": self.size, "capabilities": capabilities}
