"""Anthropic's batch wire: `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, its `results_url` (JSONL);
a Messages result read as a reply (Bedrock's batches hold the same messages)."""

from __future__ import annotations

from typing import cast

import httpx

from benchmarker.agent.batch.protocol import BatchReply, BatchRequest, BatchStatus, NotSearchable
from benchmarker.agent.batch.results_file import error_text, good_replies
from benchmarker.agent.batch.wire import (
    AnthropicBatch,
    AnthropicMessage,
    AnthropicParams,
    AnthropicResult,
    AnthropicResultLine,
    ChatMessage,
)


def split_system(messages: tuple[ChatMessage, ...]) -> tuple[str, list[ChatMessage]]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    return system, [m for m in messages if m["role"] != "system"]


class AnthropicBatches(NotSearchable):
    name, id_chars = "anthropic", 64

    def __init__(self, base_url: str, api_key: str, *, timeout_s: float = 120.0):
        self._base = (base_url or "https://api.anthropic.com").rstrip("/")
        self._headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
        self._timeout = timeout_s

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self._base, headers=self._headers, timeout=self._timeout)

    @staticmethod
    def params(r: BatchRequest) -> AnthropicParams:
        system, messages = split_system(r.messages)
        params: AnthropicParams = {"model": r.model, "max_tokens": r.max_tokens, "temperature": r.temperature,
                                   "messages": messages}
        if system:
            params["system"] = system
        return params

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str:
        async with self._client() as client:   # a message batch takes no metadata: `tags` cannot go with it
            created = await client.post("/v1/messages/batches", json={
                "requests": [{"custom_id": r.custom_id, "params": self.params(r)} for r in requests]})
            created.raise_for_status()
            return str(created.json()["id"])

    async def _get(self, batch_id: str) -> AnthropicBatch:
        async with self._client() as client:
            reply = await client.get(f"/v1/messages/batches/{batch_id}")
            reply.raise_for_status()
            return cast(AnthropicBatch, dict(reply.json()))

    async def status(self, batch_id: str) -> BatchStatus:
        body = await self._get(batch_id)
        counts = body.get("request_counts") or {}
        total = sum(int(v or 0) for v in counts.values())
        state = str(body.get("processing_status"))
        return BatchStatus(ended=state == "ended", done=total - int(counts.get("processing") or 0), total=total,
                           state=state)

    async def results(self, batch_id: str) -> list[BatchReply]:
        url = (await self._get(batch_id)).get("results_url")
        if not url:
            return []
        async with self._client() as client:
            reply = await client.get(url)
            reply.raise_for_status()
        return good_replies(reply.text, f"batch {batch_id} results", _anthropic_line)


def _anthropic_line(row: AnthropicResultLine) -> BatchReply:
    return anthropic_reply(row["custom_id"], row.get("result") or {})


def anthropic_reply(custom_id: str, result: AnthropicResult) -> BatchReply:
    """A Messages result (`{"type": "succeeded", "message": ...}` or an error) as a reply."""
    if result.get("type") != "succeeded":
        return BatchReply(custom_id, error=error_text(result))
    return message_reply(custom_id, result.get("message") or {})


def message_reply(custom_id: str, message: AnthropicMessage) -> BatchReply:
    text = "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")
    usage = message.get("usage") or {}
    read, write = int(usage.get("cache_read_input_tokens") or 0), int(usage.get("cache_creation_input_tokens") or 0)
    return BatchReply(custom_id, text=text, usage={"input": int(usage.get("input_tokens") or 0) + read + write,
                                                   "output": int(usage.get("output_tokens") or 0),
                                                   "cache_read": read, "cache_write": write})
