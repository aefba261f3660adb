"""What every provider's batch wire is (`BatchAPI`) and the values it takes and gives: a request, a reply, a
batch's status, a batch found by its tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypedDict

from benchmarker.agent.batch.wire import ChatMessage


@dataclass(frozen=True)
class BatchRequest:
    """One chat call: `messages` are `{"role": system|user|assistant, "content": text}`."""

    custom_id: str
    model: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float


class ReplyRow(TypedDict):
    """A batch_results.jsonl line: one answer fetched (`BatchReply.as_dict()`)."""

    custom_id: str
    text: str
    usage: dict[str, int]
    error: str


@dataclass(frozen=True)
class BatchReply:
    custom_id: str
    text: str = ""
    usage: dict[str, int] = field(default_factory=dict)   # input (whole prompt), output, cache_read, cache_write
    error: str = ""

    def as_dict(self) -> ReplyRow:
        return {"custom_id": self.custom_id, "text": self.text, "usage": self.usage, "error": self.error}


@dataclass(frozen=True)
class BatchStatus:
    ended: bool
    done: int
    total: int
    state: str          # the provider's own word (in_progress, ended, Completed, ...)
    failed: str = ""    # why the whole batch failed (expired, cancelled, a validation error)


@dataclass(frozen=True)
class FoundBatch:
    """A batch of this run found at the provider by its metadata, with the request ids it was sent."""

    batch_id: str
    custom_ids: tuple[str, ...]
    model: str
    state: str
    created_at: float = 0.0


class BatchAPI(Protocol):
    name: str
    id_chars: int       # how long a custom id may be (Bedrock's recordId: 11)
    searchable: bool    # whether `find` can list this run's batches by the tags `submit` gave them

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str: ...
    async def status(self, batch_id: str) -> BatchStatus: ...
    async def results(self, batch_id: str) -> list[BatchReply]: ...
    async def find(self, tags: dict[str, str]) -> list[FoundBatch]: ...


class NotSearchable:
    """A provider whose batches carry no tags of ours: the hub refuses a damaged journal instead."""

    name: str
    searchable = False

    async def find(self, tags: dict[str, str]) -> list[FoundBatch]:
        raise NotImplementedError(f"{self.name}'s batches cannot be searched by run")
