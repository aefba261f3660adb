"""The service's stored records and their JSON shapes (keys spelled exactly as Mycelian's)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Vault:
    vault_id: str
    title: str
    description: str
    creation_time: str

    def to_json(self) -> dict[str, Any]:
        return {"vaultId": self.vault_id, "title": self.title, "description": self.description,
                "creationTime": self.creation_time}

    def to_brief(self) -> dict[str, Any]:
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

    def to_json(self) -> dict[str, Any]:
        return {"memoryId": self.memory_id, "vaultId": self.vault_id, "title": self.title,
                "memoryType": self.memory_type, "description": self.description,
                "creationTime": self.creation_time}

    def to_brief(self) -> dict[str, Any]:
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
    def tags(self) -> dict[str, Any]:
        return json.loads(self.tags_json)

    @property
    def embed_text(self) -> str:
        """What the dense index sees: the summary, or the raw text when there is no summary."""
        return self.summary if self.summary.strip() else self.raw_entry

    def to_json(self) -> dict[str, Any]:
        return {"entryId": self.entry_id, "memoryId": self.memory_id, "vaultId": self.vault_id,
                "creationTime": self.creation_time, "rawEntry": self.raw_entry, "summary": self.summary,
                "tags": self.tags}

    def to_hit(self, score: float) -> dict[str, Any]:
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
