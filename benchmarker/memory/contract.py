"""The memory contract's records as the harness reads them from any Mycelian-compatible server.

Keys are Mycelian's. Every key is optional (`total=False`): a real server may leave one out, so
readers use `.get`. The embedded service keeps its own copy of these shapes (embedded_memory/shapes.py):
it imports nothing of the harness.
"""

from __future__ import annotations

from typing import TypedDict, cast

from benchmarker.log.lines import Json


class MemoryRow(TypedDict, total=False):
    """create_memory_in_vault's and get_memory's answer; list_memories' rows carry memoryId and title."""

    memoryId: str
    vaultId: str
    title: str
    memoryType: str
    description: str
    creationTime: str


class EntryRow(TypedDict, total=False):
    """An entry of list_entries / get_entry, or a search_memories hit (which adds `score`). `tags` is what the
    harness wrote, as an object, or as JSON text on servers that store it so."""

    entryId: str
    memoryId: str
    vaultId: str
    creationTime: str
    rawEntry: str
    summary: str
    tags: Json
    score: float


def entry_rows(value: Json) -> list[EntryRow]:
    """The objects of a JSON array of entries (`entries` of a page or a search), anything else left out."""
    return [cast(EntryRow, item) for item in value if isinstance(item, dict)] if isinstance(value, list) else []
