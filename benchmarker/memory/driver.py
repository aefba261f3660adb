"""The memory system under test, as the run graph sees it: one protocol, one object per kind of server.

The graph's nodes never ask which server they talk to. Mycelian (embedded or a real stack) and a
server driven through a tool mapping are two `MemoryDriver`s (memory/drivers/); an outside agent
that keeps its own memory has `AgentOwnMemory`, which refuses every memory call. A driver knows its
server's setup, how a case gets its memory (and, per case, its own scope or process), how one
message is written, how the run waits for writes to be searchable, and how a question is searched.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from benchmarker.datasets.schema import Case
from benchmarker.log.lines import Json
from benchmarker.log.records import MemoryRecord
from benchmarker.log.store import RunLog

if TYPE_CHECKING:
    from benchmarker.memory.client import MemoryClient


@dataclass(frozen=True)
class MemoryPlace:
    """Where a case's memory lives and who names it (the run's identity and title template)."""

    run_id: str
    title_template: str
    cadence: int           # the context cadence the memory agent is told (recorded on the memory)
    can_create: bool       # "ingest" is in the run's phases: a case without a memory may get one


class PromptKit(Protocol):
    """How the memory agent's prompt files are read (a self-improve candidate has its own copies)."""

    def load(self, name: str) -> str: ...

    def mycelian(self, default_prompts: dict[str, Json], *, vault_id: str, memory_id: str) -> str: ...


@dataclass
class SearchOutcome:
    """One question's search: the raw result (contexts for the reader), ranked hits in the
    results.jsonl shape (`raw_entry` included), and what to log as the call."""

    result: dict[str, Json]
    hits: list[dict[str, Json]]
    tool: str
    args: dict[str, Json]
    traced: int | None = None      # hits traced back to a dataset message (mapped servers)


class Searcher(Protocol):
    """The searches of one case, after its writes were waited for."""

    searchable: bool

    async def search(self, query: str, top_k: int, alpha: float | None) -> SearchOutcome: ...


@dataclass(frozen=True)
class SetupResult:
    vault_id: str = ""
    default_prompts: dict[str, Json] = field(default_factory=dict)


class MemoryDriver(Protocol):
    """What every node may ask of the memory under test."""

    @property
    def client(self) -> MemoryClient: ...

    @property
    def server_name(self) -> str | None: ...          # answers' `memory_server` (None: Mycelian)

    @property
    def holder(self) -> str | None: ...               # Ray: the worker whose own service holds the memories

    @property
    def write_tool(self) -> str: ...                  # the tool whose calls store an entry (attribution reads them)

    async def setup(self, *, wants_prompts: bool, agent_tools: tuple[str, ...] | None) -> SetupResult: ...

    def for_case(self, case: Case, log: RunLog, place: MemoryPlace) -> contextlib.AbstractAsyncContextManager[
            MemoryDriver]: ...

    async def create_memory(self, case: Case, vault_id: str, log: RunLog, place: MemoryPlace) -> MemoryRecord: ...

    def write_call(self, record: MemoryRecord, raw: str, summary: str,
                   tags: Mapping[str, Json]) -> tuple[str, dict[str, Json]]: ...

    def consistency_call(self, record: MemoryRecord) -> tuple[str, dict[str, Json]] | None: ...

    async def settle(self, record: MemoryRecord) -> None: ...

    async def open_search(self, case: Case, record: MemoryRecord, log: RunLog, *, direct_writes: bool,
                          timeout_s: float, alpha: float | None) -> Searcher: ...

    def system_prompt(self, record: MemoryRecord, kit: PromptKit, *, default_prompts: dict[str, Json],
                      unit_text: str, tool_names: list[str]) -> str: ...

    def agent_tool_names(self, configured: tuple[str, ...], explicit: bool) -> tuple[str, ...]: ...

    def offline_write(self) -> dict[str, Json] | None: ...   # how the offline policy writes (None: add_entry)

    def describe(self) -> dict[str, Json]: ...


class AgentOwnMemory:
    """An outside agent keeps its own memory: the harness has none to set up, write or search."""

    server_name = None
    holder = None
    write_tool = "add_entry"  # never called: a Ray driver's workers use their own driver's

    @property
    def client(self) -> MemoryClient:
        raise RuntimeError("an outside agent keeps its own memory: the harness has no memory client")

    async def setup(self, *, wants_prompts: bool, agent_tools: tuple[str, ...] | None) -> SetupResult:
        return SetupResult()

    @contextlib.asynccontextmanager
    async def for_case(self, case: Case, log: RunLog, place: MemoryPlace) -> AsyncIterator[AgentOwnMemory]:
        yield self

    def _refuse(self, *_: Any, **__: Any) -> Any:
        raise RuntimeError("an outside agent keeps its own memory: the harness never writes or searches it")

    create_memory = write_call = consistency_call = settle = open_search = system_prompt = _refuse

    def agent_tool_names(self, configured: tuple[str, ...], explicit: bool) -> tuple[str, ...]:
        return ()

    def offline_write(self) -> dict[str, Json] | None:
        return None

    def describe(self) -> dict[str, Json]:
        return {"backend": "none: the outside agent keeps its own memory"}


class WorkersMemory(AgentOwnMemory):
    """A Ray driver's view: every memory lives on a worker's server, which set itself up when it started."""

    def __init__(self, description: dict[str, Json]):
        self._description = description

    def describe(self) -> dict[str, Json]:
        return dict(self._description)
