"""The service's stored records and their JSON shapes (keys spelled exactly as Mycelian's)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

from embedded_memory.shapes import EntryHit, EntryJson, Json, MemoryBrief, MemoryJson, VaultBrief, VaultJson


@dataclass(frozen=True)
class Vault:
    vault_id: str
    title: str
    description: str
    creation_time: str

    def to_json(self) -> VaultJson:
        return {"vaultId": self.vault_id, "title": self.title, "description": self.description,
                "creationTime": self.creation_time}

    def to_brief(self) -> VaultBrief:
        return {"vaultId": self.vault_id, "title": self.title}


@dataclass(frozen=True)
class Memory:
    mkey: int  # internal integer key; scopes the full-text index
    memory_id: str
    vault_id: str
    title: str
    memory_type: str
    description: str
    creation_time: str

    def to_json(self) -> MemoryJson:
        return {"memoryId": self.memory_id, "vaultId": self.vault_id, "title": self.title,
                "memoryType": self.memory_type, "description": self.description,
                "creationTime": self.creation_time}

    def to_brief(self) -> MemoryBrief:
        return {"memoryId": self.memory_id, "title": self.title}


@dataclass(frozen=True)
class Entry:
    seq: int
    entry_id: str
    mkey: int
    memory_id: str
    vault_id: str
    raw_entry: str
    summary: str
    tags_json: str
    creation_time: str

    @property
    def tags(self) -> dict[str, Json]:
        return cast(dict[str, Json], json.loads(self.tags_json))   # stored by validation.tags: an object

    @property
    def embed_text(self) -> str:
        """What the dense index sees: the summary, or the raw text when there is no summary."""
        return self.summary if self.summary.strip() else self.raw_entry

    def to_json(self) -> EntryJson:
        return {"entryId": self.entry_id, "memoryId": self.memory_id, "vaultId": self.vault_id,
                "creationTime": self.creation_time, "rawEntry": self.raw_entry, "summary": self.summary,
                "tags": self.tags}

    def to_hit(self, score: float) -> EntryHit:
        return {"entryId": self.entry_id, "memoryId": self.memory_id, "vaultId": self.vault_id,
                "rawEntry": self.raw_entry, "summary": self.summary, "score": round(float(score), 6),
                "tags": self.tags, "creationTime": self.creation_time}


@dataclass(frozen=True)
class Context:
    seq: int
    context_id: str
    mkey: int
    content: str
    creation_time: str
