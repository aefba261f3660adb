"""The JSON the service answers with, one TypedDict per reply (keys spelled exactly as Mycelian's).

The service imports nothing of the harness, so it keeps its own copy of these shapes; the harness's
view of the same contract is `benchmarker.memory.contract`. Key order in each literal that builds one
of these is the order on the wire (tests/embedded_memory pin the bytes).
"""

from __future__ import annotations

from typing import TypedDict

# Any JSON value: tags are a free-form object by the contract.
Json = str | int | float | bool | None | list["Json"] | dict[str, "Json"]


class VaultBrief(TypedDict):
    """list_vaults' rows."""

    vaultId: str
    title: str


class VaultJson(VaultBrief):
    """create_vault's answer."""

    description: str
    creationTime: str


class MemoryBrief(TypedDict):
    """list_memories' rows."""

    memoryId: str
    title: str


class MemoryJson(TypedDict):
    """create_memory_in_vault's and get_memory's answer."""

    memoryId: str
    vaultId: str
    title: str
    memoryType: str
    description: str
    creationTime: str


class EntryJson(TypedDict):
    """get_entry's answer and list_entries' rows."""

    entryId: str
    memoryId: str
    vaultId: str
    creationTime: str
    rawEntry: str
    summary: str
    tags: dict[str, Json]


class EntryHit(TypedDict):
    """search_memories' entry rows: an entry with its hybrid score."""

    entryId: str
    memoryId: str
    vaultId: str
    rawEntry: str
    summary: str
    score: float
    tags: dict[str, Json]
    creationTime: str


class EntryPage(TypedDict):
    """list_entries' answer: a page, newest first, with the cursors to the next one."""

    entries: list[EntryJson]
    count: int
    applied_limit: int
    next_before: str | None
    next_after: str | None


class AddedEntries(TypedDict):
    """add_entries' answer."""

    status: str   # "enqueued"
    count: int


class SearchReply(TypedDict):
    """search_memories' answer: entry hits plus the latest and the best-matching context."""

    entries: list[EntryHit]
    count: int
    latestContext: str
    contextTimestamp: str | None
    bestContext: str
    bestContextTimestamp: str | None
    bestContextScore: float | None
    alpha: float


class PromptTemplates(TypedDict):
    context_prompt: str
    entry_capture_prompt: str
    summary_prompt: str


class DefaultPrompts(TypedDict):
    """get_default_prompts' answer."""

    version: str
    context_summary_rules: str
    templates: PromptTemplates


class Health(TypedDict):
    """GET /v0/health's answer."""

    status: str
    message: str
    timestamp: str
    service: str
    version: str
    startedAt: str
    embedder: str
    embeddingModel: str | None   # None without an embedder
    embeddingDevice: str | None
    alpha: float
    indexLagMs: int
    pendingIndexJobs: int
    lastIndexError: str | None


class EntryItem(TypedDict, total=False):
    """One add_entries item as sent: unchecked (validation.py and the service check every key)."""

    raw_entry: Json
    summary: Json
    tags: Json


class TextContent(TypedDict):
    type: str   # "text"
    text: str


class ToolResult(TypedDict):
    content: list[TextContent]
    isError: bool


class ToolCallReply(TypedDict):
    """The JSON-RPC answer to a tools/call that the service gives itself (finite_args.py)."""

    jsonrpc: str
    id: Json
    result: ToolResult
