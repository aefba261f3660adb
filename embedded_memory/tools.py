"""The 13 MCP tools of Mycelian's contract on FastMCP (same names, arguments, required fields, results),
plus `add_entries`, this service's batched add_entry that the harness uses when a server lists it.

Every tool returns one text content (plain `str`, JSON where Mycelian returns JSON). A bad call
comes back as an isError result whose text starts with the tool and the argument at fault.
The published input schemas are cleaned to look like Mycelian's (no `anyOf: [X, null]`, no
titles). pydantic checks the strings and the tags object from the function signatures; numbers
(top_k, limit, alpha) pass through untouched to validation.py, which the REST API uses too, so
both interfaces accept and refuse the same values with the same message. Arguments are never
re-parsed: a string that looks like JSON ('{"a": 1}', "null", "5") stays that string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.fastmcp.tools import Tool
from mcp.server.fastmcp.utilities.func_metadata import FuncMetadata
from pydantic import Field, JsonValue, ValidationError, WithJsonSchema

from embedded_memory.errors import ServiceError
from embedded_memory.service import MemoryService

VaultId = Annotated[str, Field(description="The UUID of the vault")]
MemoryId = Annotated[str, Field(description="The UUID of the memory")]
Title = Annotated[str, Field(description="Title (<=50 chars: letters, digits, hyphen)")]
Description = Annotated[str | None, Field(description="Optional description")]
# JsonValue, not Any: the same published schema ({"type": "object"}), and only JSON values pass.
Tags = Annotated[dict[str, JsonValue] | None, Field(description="Optional JSON object of tags")]
# Numbers are Any (checked in validation.py); the schema still says "number", as Mycelian's does.
Limit = Annotated[Any, WithJsonSchema({"type": "number"}), Field(description="Max rows (1-50), default 25")]
Before = Annotated[str | None, Field(description="Return entries created before this RFC3339 timestamp")]
After = Annotated[str | None, Field(description="Return entries created after this RFC3339 timestamp")]
TopK = Annotated[Any, WithJsonSchema({"type": "number"}),
                 Field(description="Number of results to return (1-100, default 10)")]
EntryList = Annotated[Any, WithJsonSchema({
    "type": "array", "items": {"type": "object", "properties": {
        "raw_entry": {"type": "string", "description": "Raw entry text"},
        "summary": {"type": "string", "description": "Short summary of the entry"},
        "tags": {"type": "object", "description": "Optional JSON object of tags"}},
        "required": ["raw_entry", "summary"]}}),
    Field(description="The entries to append, in order (at most the service's --max-batch-entries)")]
Alpha = Annotated[Any, WithJsonSchema({"type": "number"}),
                  Field(description="Optional hybrid weight: 0 = keyword (BM25) only, 1 = vector only; "
                                    "default: the service's alpha")]


# Tools of this service beyond Mycelian's contract: the harness uses them, the contract's figures (the estimate's
# "all 13 tools") leave them out.
EXTENSION_TOOLS = frozenset({"add_entries"})


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _describe(err: ValidationError) -> str:
    parts = []
    for item in err.errors(include_url=False):
        where = ".".join(str(p) for p in item.get("loc", ())) or "arguments"
        message = "is required" if item.get("type") == "missing" else item.get("msg", "is invalid")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


class VerbatimArguments(FuncMetadata):
    """FastMCP re-parses a string argument that looks like JSON when the parameter is not plain `str`
    (description='{"a": 1}' became an object and was refused, "null" became None); ours never are."""

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        return dict(data)


class ContractTool(Tool):
    """A FastMCP tool whose errors read `tool: argument: what is wrong`."""

    async def run(self, arguments: dict[str, Any], context: Any = None, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context=context, convert_result=convert_result)
        except ToolError as err:
            cause = err.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(f"{self.name}: {_describe(cause)}") from cause
            if isinstance(cause, ServiceError):
                raise ToolError(f"{self.name}: {cause}") from cause
            raise ToolError(f"{self.name}: {cause or err}") from err


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Mycelian-style input schema: optional arguments are plain typed properties."""
    properties: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        variants = [v for v in prop.pop("anyOf", []) if v.get("type") != "null"]
        if len(variants) == 1:
            prop = {**variants[0], **prop}
        prop.pop("title", None)
        if prop.get("default", 0) is None:
            prop.pop("default")
        if prop.get("type") == "object":
            prop.pop("additionalProperties", None)
        properties[name] = prop
    cleaned: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        cleaned["required"] = list(schema["required"])
    return cleaned


def build_tools(svc: MemoryService) -> list[Tool]:
    """The contract's tools, bound to one service."""

    async def create_vault(title: Title, description: Description = None) -> str:
        return _json(svc.create_vault(title, description))

    async def list_vaults() -> str:
        return _json(svc.list_vaults())

    async def list_memories(vault_id: VaultId) -> str:
        return _json(svc.list_memories(vault_id))

    async def create_memory_in_vault(
            vault_id: VaultId, title: Title,
            memory_type: Annotated[str, Field(description="Memory type, e.g. NOTES, PROJECT, CHAT")],
            description: Description = None) -> str:
        return _json(svc.create_memory(vault_id, title, memory_type, description))

    async def get_memory(vault_id: VaultId, memory_id: MemoryId) -> str:
        return _json(svc.get_memory(vault_id, memory_id))

    async def add_entry(vault_id: VaultId, memory_id: MemoryId,
                        raw_entry: Annotated[str, Field(description="Raw entry text")],
                        summary: Annotated[str, Field(description="Short summary of the entry")],
                        tags: Tags = None) -> str:
        return svc.add_entry(vault_id, memory_id, raw_entry, summary, tags)

    async def add_entries(vault_id: VaultId, memory_id: MemoryId, entries: EntryList) -> str:
        return _json(await svc.add_entries(vault_id, memory_id, entries))

    async def list_entries(vault_id: VaultId, memory_id: MemoryId, limit: Limit = None, before: Before = None,
                           after: After = None) -> str:
        return _json(svc.list_entries(vault_id, memory_id, limit, before, after))

    async def get_entry(vault_id: VaultId, memory_id: MemoryId,
                        entry_id: Annotated[str, Field(description="The UUID of the entry")]) -> str:
        return _json(svc.get_entry(vault_id, memory_id, entry_id))

    async def put_context(vault_id: VaultId, memory_id: MemoryId,
                          content: Annotated[str, Field(description="The whole context document (text)")]) -> str:
        return svc.put_context(vault_id, memory_id, content)

    async def get_context(vault_id: VaultId, memory_id: MemoryId) -> str:
        return svc.get_context(vault_id, memory_id)

    async def await_consistency(memory_id: MemoryId) -> str:
        return await svc.await_consistency(memory_id)

    async def search_memories(memory_id: MemoryId, query: Annotated[str, Field(description="Search query text")],
                              top_k: TopK = None, alpha: Alpha = None) -> str:
        return _json(await svc.search(memory_id, query, top_k, alpha))

    async def get_default_prompts(memory_type: Annotated[str, Field(description="Memory type, e.g. chat")]) -> str:
        return _json(svc.default_prompts(memory_type))

    described: list[tuple[Callable[..., Any], str]] = [
        (create_vault, "Create a vault for organising memories; returns vaultId and title"),
        (list_vaults, "List all vaults (returns vaultId & title)"),
        (list_memories, "List memories inside a vault (returns memoryId & title)"),
        (create_memory_in_vault, "Create a new memory inside a vault; returns the memory"),
        (get_memory, "Get memory details by ID inside a vault"),
        (add_entry, "Append a new message or note to a memory inside a vault. rawEntry holds the full text; "
                    "summary is a short recap. Returns 'enqueued': the entry becomes searchable shortly "
                    "(call await_consistency to wait)."),
        (add_entries, "Append several entries to a memory in one call and one transaction, stored in list order "
                      "exactly as the same add_entry calls one after the other would store them; all or none "
                      "(a refusal names entries[i]). Returns {\"status\": \"enqueued\", \"count\": n}. An "
                      "extension of this service, not part of Mycelian's contract."),
        (list_entries, "List entries of a memory, newest first, with pagination cursors"),
        (get_entry, "Get a single entry by entryId within a memory"),
        (put_context, "Persist the context document of a memory (stored as a new version). Returns 'enqueued'."),
        (get_context, "Fetch the latest context document of a memory"),
        (await_consistency, "Block until all queued writes for the given memory have been applied and indexed; "
                            "returns 'consistent'"),
        (search_memories, "Hybrid semantic + keyword search within a memory. Results include entries (top-K hits), "
                          "latestContext (the most recent context) and bestContext (the context version that best "
                          "matches the query) with timestamps and score."),
        (get_default_prompts, "Return default prompt templates for a given memory type"),
    ]
    tools = []
    for fn, text in described:
        tool = ContractTool.from_function(fn, name=fn.__name__, description=text, structured_output=False)
        tool.fn_metadata = VerbatimArguments(**dict(tool.fn_metadata))
        tool.parameters = clean_schema(tool.parameters)
        tools.append(tool)
    return tools


def build_mcp(svc: MemoryService) -> FastMCP:
    """A FastMCP server (streamable HTTP at /mcp) carrying the contract's tools.

    Host/Origin checks are off here because app.py's HostOriginGuard runs them on every route
    with one rule (the SDK's would disagree with --allowed-host and skip non-loopback binds).
    """
    from mcp.server.transport_security import TransportSecuritySettings

    settings = svc.settings
    return FastMCP("mycelian-longmemeval-memory", host=settings.host, port=settings.port, tools=build_tools(svc),
                   instructions="Mycelian-compatible memory service (embedded, SQLite + hybrid search).",
                   log_level=settings.log_level.upper(),  # type: ignore[arg-type]  # the CLI offers only level names
                   session_idle_timeout=settings.session_idle_s,
                   max_sessions=settings.max_sessions, max_request_body_size=settings.max_body_bytes,
                   transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                   json_response=True)
