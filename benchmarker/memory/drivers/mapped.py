"""A server other than Mycelian, driven through its tool mapping (memory/tool_mapping.py).

Such servers keep cases apart by a scope named like a Mycelian memory title (case id, run id,
attempt): a fresh server process per case whose data lives in `<run>/memory-servers/<title>/`
("process"), a container created per case ("container"), or one shared server and a namespace
argument ("namespace"). Resume works as it does for Mycelian: a finished case reopens its scope; a
cut-off one gets a new attempt and a new, empty folder (re-writing into the old one would duplicate
what it already holds). A per-case server is opened and closed in the task that runs the case, as an
MCP client must be (`for_case`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarker.datasets.schema import Case
from benchmarker.errors import MemoryToolError, UserError
from benchmarker.log.confined import make_folders
from benchmarker.log.lines import Json
from benchmarker.log.records import MemoryRecord
from benchmarker.log.store import RunLog
from benchmarker.memory import mapped
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.driver import MemoryPlace, PromptKit, SearchOutcome, SetupResult
from benchmarker.memory.entries import entry_text
from benchmarker.memory.launch import ServerLaunch
from benchmarker.memory.titles import MAX_ATTEMPTS, memory_title
from benchmarker.memory.tool_mapping import ToolMapping, agent_tool_names, placeholders, render, scope_dir_escapes
from benchmarker.redact import masked_preview

SERVERS_DIR = "memory-servers"
PREVIEW_CHARS = 300
DEFAULT_START_TIMEOUT_S = 60.0
DEFAULT_MAX_RESULT_MB = 16


def check_scope_launch(mapping: ToolMapping, launch: ServerLaunch, config_path: str) -> None:
    """A per-case server's command must keep its data in `{scope_dir}`: no '..' out of it, and no
    `[memory] env` / `args` that replaces the mapping's `{scope_dir}` path (every case would then share
    one place, outside the run directory)."""
    where = f"{config_path}: [memory] with {mapping.source}"
    for key, template in (("env", dict(launch.env)), ("args", list(launch.args))):
        for problem in scope_dir_escapes(template):
            raise UserError(f"{where}: {key}: {problem}")
    dropped = [name for name, value in mapping.server.env.items()
               if "scope_dir" in placeholders(value) and "scope_dir" not in placeholders(launch.env.get(name, ""))]
    if "scope_dir" in placeholders(list(mapping.server.args)) and "scope_dir" not in placeholders(list(launch.args)):
        dropped.append("args")
    if dropped:
        raise UserError(f"{where}: [memory].env / args replace {', '.join(dropped)}, which the mapping keeps under "
                        "{scope_dir} (the case's own folder); keep {scope_dir} in the value so cases stay apart "
                        "and inside the run directory")


def scope_folder(run_dir: Path, folder: Path) -> Path:
    """`folder` (a case's or the probe's server folder), refused when it is not a plain folder inside
    `<run>/memory-servers`: a symlink there would put the server's data outside the run directory."""
    root = Path(run_dir) / SERVERS_DIR
    for path in (root, folder):
        if path.is_symlink():
            raise UserError(f"{path}: is a symlink (to {path.resolve()}); a memory server's folder must be a plain "
                            "folder inside the run directory: remove the link")
    if not folder.resolve().is_relative_to(Path(run_dir).resolve()):
        raise UserError(f"{folder}: resolves to {folder.resolve()}, outside the run directory {run_dir}")
    return folder


@contextlib.asynccontextmanager
async def connect_within(launch: ServerLaunch, seconds: float, **limits: Any) -> AsyncIterator[MemoryClient]:
    """`launch.connect(**limits)`, refused when the server has not answered MCP initialize and listed its
    tools within `seconds` (`[memory] start_timeout_s`); the server is stopped then."""
    async with contextlib.AsyncExitStack() as stack:
        try:
            async with asyncio.timeout(seconds):
                client = await stack.enter_async_context(launch.connect(**limits))
        except TimeoutError:
            target = launch.url or " ".join([launch.command, *launch.args])
            raise ConnectionError(f"the memory MCP server {target!r} did not answer MCP initialize within "
                                  f"{seconds:g} s ([memory].start_timeout_s)") from None
        yield client


@dataclass(frozen=True)
class CappedClient:
    """The harness's own calls to a mapped server, refused above `[memory] max_result_mb` (a 50 MB
    search result would otherwise be traced, logged and written into the run's files)."""

    client: MemoryClient
    max_bytes: int

    async def call(self, tool: str, args: dict[str, Json] | None = None, **kw: Any) -> str:
        text = await self.client.call(tool, args, **kw)
        if len(text) > self.max_bytes:
            raise MemoryToolError(tool, f"the result is {len(text) / 2**20:.1f} MiB, over [memory].max_result_mb = "
                                        f"{self.max_bytes >> 20}; the server returned far more than one search needs")
        return text


@dataclass(frozen=True)
class CaseScope:
    title: str               # the scope's name: memory_id in records, {scope} in templates
    attempt: int
    directory: Path | None   # the server's data folder ("process" scope)


def scope_for(log: RunLog, case: Case, place: MemoryPlace, *, per_process: bool) -> CaseScope | None:
    """The case's scope: the finished attempt's, else a new attempt; None when the case cannot run."""
    known = log.done.memories.get(case.case_id)
    root = log.run_dir / SERVERS_DIR
    if known is not None and known.ingested:
        return CaseScope(known.title, known.attempt, root / known.title if per_process else None)
    if not place.can_create:
        return None  # prepare_memory says why the case is skipped
    attempt = log.next_attempt(case.case_id)
    while True:
        title = memory_title(place.title_template, case.case_id, place.run_id, attempt)
        # A folder without a logged memory is a process that died before logging it: never reuse it.
        if not per_process or not (root / title).exists() or attempt >= MAX_ATTEMPTS:
            return CaseScope(title, attempt, root / title if per_process else None)
        attempt += 1


@dataclass(frozen=True)
class MappedDriver:
    """One MCP session to a mapped server; per case, the case's scope (and its own process)."""

    client: MemoryClient
    mapping: ToolMapping
    backend: str
    config_path: str
    launch: ServerLaunch | None = None   # set when every case gets its own server process
    scope: CaseScope | None = None       # the case's own scope (set by `for_case`)
    holder: str | None = None
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S
    max_result_mb: int = DEFAULT_MAX_RESULT_MB

    @property
    def capped(self) -> CappedClient:
        return CappedClient(self.client, self.max_result_mb << 20)

    @property
    def write_tool(self) -> str:
        return self.mapping.write.tool if self.mapping.write else ""

    @property
    def server_name(self) -> str:
        return self.mapping.name

    async def setup(self, *, wants_prompts: bool, agent_tools: tuple[str, ...] | None) -> SetupResult:
        """The tools the mapping names must exist (there is no vault and there are no prompts)."""
        names = {tool.name for tool in self.client.tools}
        where = f"the memory server ({self.mapping.source})"
        missing = [name for name in self.mapping.required_tools() if name not in names]
        if missing:
            raise UserError(f"{where} lacks MCP tools {missing} that its mapping uses; it has: "
                            f"{', '.join(sorted(names))}")
        unknown = [name for name in agent_tools or () if name not in names]
        if unknown:
            raise UserError(f"{self.config_path}: the memory agent's tools {unknown} are not offered by {where}; "
                            f"it has: {', '.join(sorted(names))}")
        return SetupResult()

    @contextlib.asynccontextmanager
    async def for_case(self, case: Case, log: RunLog, place: MemoryPlace) -> AsyncIterator[MappedDriver]:
        """This driver with the case's scope, and (per process) the case's own server and session."""
        scope = scope_for(log, case, place, per_process=self.launch is not None)
        if scope is None or self.launch is None or scope.directory is None:
            yield dataclasses.replace(self, scope=scope)
            return
        make_folders(scope_folder(log.run_dir, scope.directory))   # never through a link (log/confined.py)
        # the case's own server gets the run's limits (call_timeout_s, the consistency wait, start_timeout_s)
        async with connect_within(self.launch.for_scope(scope.directory, scope.title), self.start_timeout_s,
                                  timeout_s=self.client.timeout_s, waits=self.client.waits) as client:
            yield dataclasses.replace(self, client=client, scope=scope)

    async def create_memory(self, case: Case, vault_id: str, log: RunLog, place: MemoryPlace) -> MemoryRecord:
        """The case's scope is its memory, named like one: memory_id is the scope's title, or (scope
        "container") the id of the container created for it."""
        scope = self.scope
        assert scope is not None, "for_case opens the case's scope before the case graph runs"
        memory_id = scope.title
        if self.mapping.scope.kind == "container":
            memory_id = await mapped.create_container(self.capped, self.mapping, title=scope.title,
                                                      case_id=case.case_id,
                                                      description=f"{case.kind} case {case.case_id}")
        return MemoryRecord(case_id=case.case_id, memory_id=memory_id, vault_id="", title=scope.title,
                            attempt=scope.attempt, status="created", context_cadence=place.cadence)

    def write_call(self, record: MemoryRecord, raw: str, summary: str,
                   tags: Mapping[str, Json]) -> tuple[str, dict[str, Json]]:
        assert self.mapping.write is not None
        values: dict[str, Json] = {**tags, "text": raw, "summary": summary, "scope": record.memory_id}
        return self.mapping.write.tool, mapped.write_arguments(self.mapping, values)

    def consistency_call(self, record: MemoryRecord) -> tuple[str, dict[str, Json]] | None:
        spec = self.mapping.consistency
        return (spec.tool, render(spec.arguments, {"scope": record.memory_id})) if spec.tool else None

    async def settle(self, record: MemoryRecord) -> None:
        """The mapping's consistency wait, when the server has one (else writes are searchable at once)."""
        wait = self.consistency_call(record)
        if wait is not None:
            await self.capped.call(*wait)

    async def open_search(self, case: Case, record: MemoryRecord, log: RunLog, *, direct_writes: bool,
                          timeout_s: float, alpha: float | None) -> _MappedSearcher:
        await self.settle(record)
        written = self._written(case, record, log, direct_writes=direct_writes)
        return _MappedSearcher(self.capped, self.mapping, record, written, searchable=True)

    def _written(self, case: Case, record: MemoryRecord, log: RunLog, *, direct_writes: bool) -> mapped.WrittenTexts:
        """What was written into this memory and from which message: the harness's own writes in
        retrieval mode (known from the case), the memory agent's recorded write calls otherwise."""
        dates = {s.session_id: s.date for s in case.sessions}
        written = mapped.WrittenTexts()
        if direct_writes:
            for session in case.sessions:
                for turn_index, message in enumerate(session.messages):
                    written.add(entry_text(session, message)[0], {"session_id": session.session_id,
                                                                  "session_date": session.date,
                                                                  "turn_index": turn_index, "role": message.role})
            return written
        roles: dict[tuple[str | None, int | None], str] = {
            (s.session_id, i): m.role for s in case.sessions for i, m in enumerate(s.messages)}
        write_tools = set(self.mapping.write_tools())
        for call in log.agent_tool_calls(case.case_id):
            if call.tool in write_tools and call.error is None:
                origin: mapped.Origin = {"session_id": call.session_id, "session_date": dates.get(call.session_id or ""),
                          "turn_index": call.turn, "role": roles.get((call.session_id, call.turn))}
                for text in mapped.written_texts_of(self.mapping, call.tool, call.args):
                    written.add(text, origin)
        return written

    def system_prompt(self, record: MemoryRecord, kit: PromptKit, *, default_prompts: dict[str, Json],
                      unit_text: str, tool_names: list[str]) -> str:
        """The memory agent's system prompt for this server (prompts/<mapping.agent.prompt>)."""
        mapping = self.mapping
        template = kit.load(mapping.agent.prompt)
        if mapping.scope.kind in ("namespace", "container") and mapping.scope.argument:
            scope_text = (f"Pass {mapping.scope.argument} = \"{record.memory_id}\" on every tool call that takes "
                          "it: it keeps this conversation's memory apart from the others.")
        else:
            scope_text = "This memory server holds only this conversation's memory."
        return template.format(server_name=mapping.name, scope=record.memory_id, scope_instructions=scope_text,
                               unit_instructions=unit_text, write_tool=mapping.write.tool if mapping.write else "",
                               tools=", ".join(tool_names), guidance=mapping.agent.guidance.strip() or "(none)")

    def agent_tool_names(self, configured: tuple[str, ...], explicit: bool) -> tuple[str, ...]:
        return agent_tool_names(configured, explicit, self.mapping)

    def offline_write(self) -> dict[str, Json] | None:
        return self.mapping.write.model_dump(mode="json") if self.mapping.write else None

    def describe(self) -> dict[str, Json]:
        return {"backend": self.backend, "server": self.mapping.name, "mapping": self.mapping.source,
                "scope": self.mapping.scope.kind, "lacks": list(self.mapping.lacks), "embedder": None, "alpha": None}


@dataclass
class _MappedSearcher:
    client: CappedClient
    mapping: ToolMapping
    record: MemoryRecord
    written: mapped.WrittenTexts
    searchable: bool

    async def search(self, query: str, top_k: int, alpha: float | None) -> SearchOutcome:
        """Ranked hits in the results.jsonl shape (session / turn where traced) and the calls it took."""
        hits, calls = await mapped.search(self.client, self.mapping, self.record.memory_id, query, top_k)
        shaped: list[dict[str, Json]] = []
        traced = 0
        for hit in hits:
            origin = self.written.trace(hit.text) or {}
            traced += bool(origin)
            shaped.append({"entry_id": hit.id, "score": hit.score, "rank": hit.rank,
                           "session_id": origin.get("session_id"), "session_date": origin.get("session_date"),
                           "turn_index": origin.get("turn_index"), "role": origin.get("role"),
                           "summary": "", "raw_preview": masked_preview(hit.text, PREVIEW_CHARS), "raw_entry": hit.text})
        assert self.mapping.search is not None
        return SearchOutcome(result={"count": len(shaped)}, hits=shaped, tool=self.mapping.search.tool,
                             args={"query": query, "top_k": top_k, "calls": calls}, traced=traced)
