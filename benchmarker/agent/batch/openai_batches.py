"""OpenAI's batch wire: upload a JSONL file (`POST /files`, purpose batch), `POST /batches` (chat completions,
24 h window, tagged with the run in `metadata`), `GET /batches/{id}`, the output and error files
(`GET /files/{id}/content`); `GET /batches` finds a run's batches by that tag when the journal lost one."""

from __future__ import annotations

import json
import logging
from typing import cast

import httpx

from benchmarker.agent.batch.protocol import BatchReply, BatchRequest, BatchStatus, FoundBatch
from benchmarker.agent.batch.results_file import error_text, good_replies, results_rows
from benchmarker.agent.batch.wire import OpenAIBatch, OpenAIBatchPage, OpenAIRequestLine, OpenAIResultLine

log = logging.getLogger(__name__)


class OpenAIBatches:
    name, id_chars, searchable = "openai", 64, True
    list_pages = 100   # `find` reads at most this many pages of 100 batches (newest first)

    def __init__(self, base_url: str, api_key: str, *, timeout_s: float = 120.0):
        self._base = (base_url or "https://api.openai.com/v1").rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"}
        self._timeout = timeout_s

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self._base, headers=self._headers, timeout=self._timeout)

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str:
        lines = [json.dumps(self.request_line(r)) for r in requests]
        async with self._client() as client:
            upload = await client.post("/files", data={"purpose": "batch"},
                                       files={"file": ("batch.jsonl", "\n".join(lines).encode(), "application/jsonl")})
            upload.raise_for_status()
            created = await client.post("/batches", json={"input_file_id": upload.json()["id"],
                                                          "endpoint": "/v1/chat/completions",
                                                          "completion_window": "24h",
                                                          **({"metadata": tags} if tags else {})})
            created.raise_for_status()
            return str(created.json()["id"])

    @staticmethod
    def request_line(r: BatchRequest) -> OpenAIRequestLine:
        return {"custom_id": r.custom_id, "method": "POST", "url": "/v1/chat/completions",
                "body": {"model": r.model, "messages": list(r.messages), "max_tokens": r.max_tokens,
                         "temperature": r.temperature}}

    async def find(self, tags: dict[str, str]) -> list[FoundBatch]:
        """Every batch whose metadata holds `tags`, with the request ids of its input file; a failed batch
        (refused before it ran: nothing answered, nothing paid) is left out."""
        found: list[FoundBatch] = []
        async with self._client() as client:
            after = ""
            for _ in range(self.list_pages):
                page = await client.get("/batches", params={"limit": 100, **({"after": after} if after else {})})
                page.raise_for_status()
                body: OpenAIBatchPage = page.json()
                for batch in body.get("data") or []:
                    meta = batch.get("metadata") if isinstance(batch, dict) else None
                    if not isinstance(meta, dict) or any(meta.get(k) != v for k, v in tags.items()):
                        continue
                    if batch.get("status") != "failed":
                        found += await self._found(client, batch)
                after = str(body.get("last_id") or "")
                if not body.get("has_more") or not after:
                    return found
        log.warning("openai batches: stopped looking after %d pages of batches; an older batch of this run "
                    "would be missed", self.list_pages)
        return found

    async def _found(self, client: httpx.AsyncClient, batch: OpenAIBatch) -> list[FoundBatch]:
        """The batch with the request ids of its input file; none when that file cannot be read."""
        source = f"batch {batch.get('id')} input file {batch.get('input_file_id')}"
        content = await client.get(f"/files/{batch.get('input_file_id')}/content")
        if content.status_code >= 400:
            log.warning("%s: cannot be read (HTTP %d); its requests cannot be told", source, content.status_code)
            return []
        rows = [cast(OpenAIRequestLine, row) for _, row in results_rows(content.text, source)]
        model = next((str(r["body"].get("model", "")) for r in rows if isinstance(r.get("body"), dict)), "")
        return [FoundBatch(str(batch["id"]), tuple(r["custom_id"] for r in rows), model, str(batch.get("status")),
                           float(batch.get("created_at") or 0))]

    async def status(self, batch_id: str) -> BatchStatus:
        async with self._client() as client:
            reply = await client.get(f"/batches/{batch_id}")
            reply.raise_for_status()
        body: OpenAIBatch = reply.json()
        counts = body.get("request_counts") or {}
        state = str(body.get("status"))
        failed = state if state in ("failed", "expired", "cancelled") else ""
        return BatchStatus(ended=state in ("completed", "failed", "expired", "cancelled"),
                           done=int(counts.get("completed") or 0) + int(counts.get("failed") or 0),
                           total=int(counts.get("total") or 0), state=state, failed=failed)

    async def results(self, batch_id: str) -> list[BatchReply]:
        async with self._client() as client:
            reply = await client.get(f"/batches/{batch_id}")
            reply.raise_for_status()
            batch: OpenAIBatch = reply.json()
            replies: list[BatchReply] = []
            for key, file_id in (("output_file_id", batch.get("output_file_id")),
                                 ("error_file_id", batch.get("error_file_id"))):
                if file_id:
                    content = await client.get(f"/files/{file_id}/content")
                    content.raise_for_status()
                    replies += good_replies(content.text, f"batch {batch_id} {key} {file_id}", self._reply)
        return replies

    @staticmethod
    def _reply(row: OpenAIResultLine) -> BatchReply:
        response = row.get("response") or {}
        body = response.get("body") or {}
        if row.get("error") or response.get("status_code") != 200:
            return BatchReply(row["custom_id"], error=error_text(row.get("error") or body.get("error") or body))
        usage = body.get("usage") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        text = (body["choices"][0]["message"].get("content") or "") if body.get("choices") else ""
        if not isinstance(text, str):
            raise TypeError(f"the message's content is {type(text).__name__}, not text")
        return BatchReply(row["custom_id"], text=text, usage={"input": int(usage.get("prompt_tokens") or 0),
                                                              "output": int(usage.get("completion_tokens") or 0),
                                                              "cache_read": int(cached), "cache_write": 0})
