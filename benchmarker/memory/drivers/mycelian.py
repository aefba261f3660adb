"""Mycelian's contract, as the graph needs it: a vault and one memory per case, add_entry writes,
await_consistency, and search whose hits are mapped back to dataset sessions and turns by tags.

Against a server whose search hits carry no tags (a real Mycelian stack may not return them),
entry ids are mapped back through list_entries, whose entries do carry the harness's tags.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass

from benchmarker.config_schema import MemoryConfig
from benchmarker.datasets.schema import Case
from benchmarker.errors import MemoryToolError, UserError
from benchmarker.log.lines import Json
from benchmarker.log.records import MemoryRecord
from benchmarker.log.store import RunLog
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.contract import EntryRow, entry_rows
from benchmarker.memory.driver import MemoryPlace, PromptKit, SearchOutcome, SetupResult
from benchmarker.memory.settings import MemorySettings
from benchmarker.memory.titles import MAX_ATTEMPTS, memory_title
from benchmarker.memory.tool_mapping import agent_tool_names
from benchmarker.redact import masked_preview

REQUIRED_TOOLS = ("create_vault", "list_vaults", "create_memory_in_vault", "list_memories", "add_entry",
                  "list_entries", "put_context", "get_context", "await_consistency", "search_memories",
                  "get_default_prompts")
PREVIEW_CHARS = 300


@dataclass(frozen=True)
class MycelianDriver:
    """One MCP session to a Mycelian (or Mycelian-compatible) server."""

    client: MemoryClient
    settings: MemorySettings       # [memory], the vault keys, the config file
    holder: str | None = None      # Ray: "ray:<worker>" when the memories live in that worker's own service
    server_name = None
    write_tool = "add_entry"

    async def setup(self, *, wants_prompts: bool, agent_tools: tuple[str, ...] | None) -> SetupResult:
        """The vault and Mycelian's default prompts, after checking the server speaks the contract."""
        names = {tool.name for tool in self.client.tools}
        missing = [name for name in REQUIRED_TOOLS if name not in names]
        if missing:
            raise UserError(f"the memory server at {self.settings.memory.mcp_url or 'embedded'} lacks MCP tools "
                            f"{missing}; is it a Mycelian MCP server?")
        unknown = [name for name in agent_tools or () if name not in names]
        if unknown:
            raise UserError(f"{self.settings.config_path}: [agent].tools names {unknown}, which the memory server does "
                            f"not offer; it has: {', '.join(sorted(names))}")
        vault_id = self.settings.vault_id or await self.client.ensure_vault(self.settings.vault_title)
        prompts = await self.client.get_default_prompts("chat") if wants_prompts else {}
        return SetupResult(vault_id=vault_id, default_prompts=prompts)

    @contextlib.asynccontextmanager
    async def for_case(self, case: Case, log: RunLog, place: MemoryPlace) -> AsyncIterator[MycelianDriver]:
        yield self  # every case's memory lives in the run's vault on the one server

    async def create_memory(self, case: Case, vault_id: str, log: RunLog, place: MemoryPlace) -> MemoryRecord:
        """A new memory for the case's next attempt. A title already taken means a process died between
        creating and logging it: never reuse that memory (it may hold half an ingestion)."""
        attempt = log.next_attempt(case.case_id)
        while True:
            title = memory_title(place.title_template, case.case_id, place.run_id, attempt)
            try:
                memory = await self.client.create_memory(vault_id, title, memory_type="NOTES",
                                                         description=f"{case.kind} case {case.case_id}")
                break
            except MemoryToolError as err:
                taken = "exist" in err.message.lower() or "duplicate" in err.message.lower()
                if attempt >= MAX_ATTEMPTS or not taken:
                    raise
                attempt += 1
        return MemoryRecord(case_id=case.case_id, memory_id=memory["memoryId"], vault_id=vault_id, title=title,
                            attempt=attempt, status="created", context_cadence=place.cadence, held_by=self.holder)

    def write_call(self, record: MemoryRecord, raw: str, summary: str,
                   tags: Mapping[str, Json]) -> tuple[str, dict[str, Json]]:
        return "add_entry", {"vault_id": record.vault_id, "memory_id": record.memory_id, "raw_entry": raw,
                             "summary": summary, "tags": dict(tags)}

    def consistency_call(self, record: MemoryRecord) -> tuple[str, dict[str, Json]] | None:
        return "await_consistency", {"memory_id": record.memory_id}

    async def settle(self, record: MemoryRecord) -> None:
        await self.client.await_consistency(record.memory_id)

    async def open_search(self, case: Case, record: MemoryRecord, log: RunLog, *, direct_writes: bool,
                          timeout_s: float, alpha: float | None) -> _MycelianSearcher:
        searchable = await wait_until_searchable(self.client, record.vault_id, record.memory_id, timeout_s, alpha)
        return _MycelianSearcher(self.client, record, searchable)

    def system_prompt(self, record: MemoryRecord, kit: PromptKit, *, default_prompts: dict[str, Json],
                      unit_text: str, tool_names: list[str]) -> str:
        return kit.mycelian(default_prompts, vault_id=record.vault_id, memory_id=record.memory_id)

    def agent_tool_names(self, configured: tuple[str, ...], explicit: bool) -> tuple[str, ...]:
        return agent_tool_names(configured, explicit, None)

    def offline_write(self) -> dict[str, Json] | None:
        return None

    def describe(self) -> dict[str, Json]:
        return describe_mycelian(self.settings.memory)


def describe_mycelian(memory: MemoryConfig) -> dict[str, Json]:
    """The backend as summaries name it: a retrieval report says which index it measured."""
    embedded = memory.backend == "embedded"
    return {"backend": memory.backend, "embedder": memory.embedder if embedded else None,
            "alpha": memory.alpha if embedded else "service default"}


@dataclass
class _MycelianSearcher:
    client: MemoryClient
    record: MemoryRecord
    searchable: bool

    async def search(self, query: str, top_k: int, alpha: float | None) -> SearchOutcome:
        result = await self.client.search(self.record.memory_id, query, top_k=top_k, alpha=alpha)
        hits = await map_hits(self.client, self.record.vault_id, self.record.memory_id,
                              entry_rows(result.get("entries")))
        return SearchOutcome(result=result, hits=hits, tool="search_memories",
                             args={"query": query, "top_k": top_k, "alpha": alpha})


async def wait_until_searchable(client: MemoryClient, vault_id: str, memory_id: str, timeout_s: float,
                                alpha: float | None) -> bool:
    """await_consistency, then poll until the newest entry is searchable (an index may lag)."""
    await client.await_consistency(memory_id)
    newest = await client.call_json("list_entries", {"vault_id": vault_id, "memory_id": memory_id, "limit": 1})
    entries = newest.get("entries") or []
    if not entries:
        return True
    target = entries[0]
    query = (target.get("summary") or target.get("rawEntry") or "")[:200]
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        found = await client.search(memory_id, query, top_k=100, alpha=alpha)
        if any(hit.get("entryId") == target.get("entryId") for hit in entry_rows(found.get("entries"))):
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


async def entry_tag_index(client: MemoryClient, vault_id: str, memory_id: str) -> dict[str, dict[str, Json]]:
    """entryId -> tags, for servers whose search hits do not echo tags."""
    entries = await client.list_all_entries(vault_id, memory_id)
    return {e["entryId"]: _as_dict(e.get("tags")) for e in entries if e.get("entryId")}


def _as_dict(tags: Json | None) -> dict[str, Json]:
    if isinstance(tags, dict):
        return tags
    if isinstance(tags, str) and tags.strip().startswith("{"):
        try:
            parsed = json.loads(tags)
        except json.JSONDecodeError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


async def map_hits(client: MemoryClient, vault_id: str, memory_id: str,
                   hits: list[EntryRow]) -> list[dict[str, Json]]:
    """Ranked hits in the results.jsonl shape, with session id / date / turn / role from tags."""
    index: dict[str, dict[str, Json]] | None = None
    mapped = []
    for rank, hit in enumerate(hits, start=1):
        tags = _as_dict(hit.get("tags"))
        if "session_id" not in tags:
            if index is None:
                index = await entry_tag_index(client, vault_id, memory_id)
            tags = index.get(hit.get("entryId", ""), {})
        turn = tags.get("turn_index")
        mapped.append({
            "entry_id": hit.get("entryId"),
            "score": hit.get("score"),
            "rank": rank,
            "session_id": tags.get("session_id"),
            "session_date": tags.get("session_date"),
            "turn_index": int(turn) if isinstance(turn, (int, float, str)) and str(turn).lstrip("-").isdigit() else None,
            "role": tags.get("role"),
            "summary": hit.get("summary") or "",
            "raw_preview": masked_preview(hit.get("rawEntry") or "", PREVIEW_CHARS),
            "raw_entry": hit.get("rawEntry") or "",
        })
    return mapped
