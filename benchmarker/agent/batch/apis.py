"""The three providers' batch wires: submit requests, read a batch's status, fetch its answers.

OpenAI: upload a JSONL file (`POST /files`, purpose batch), `POST /batches` (chat completions, 24 h
window, tagged with the run in `metadata`), `GET /batches/{id}`, the output and error files
(`GET /files/{id}/content`); `GET /batches` finds a run's batches by that tag when the journal lost one.
Anthropic: `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, its `results_url` (JSONL).
Anthropic and Bedrock batches carry no metadata of ours to search by (`searchable = False`).
Bedrock: the input JSONL (`recordId`, `modelInput` = an InvokeModel body of the Anthropic messages
form) put to S3, `CreateModelInvocationJob`, `GetModelInvocationJob`, the output
`<output prefix>/<job id>/<input file>.out` read back from S3 (boto3; credentials from the AWS chain).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict
from urllib.parse import urlparse

import httpx

from benchmarker.config_schema import BatchConfig, ProviderConfig
from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.redact import redact

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class BatchRequest:
    """One chat call: `messages` are `{"role": system|user|assistant, "content": text}`."""

    custom_id: str
    model: str
    messages: tuple[dict[str, str], ...]
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


class _NotSearchable:
    """A provider whose batches carry no tags of ours: the hub refuses a damaged journal instead."""

    name: str
    searchable = False

    async def find(self, tags: dict[str, str]) -> list[FoundBatch]:
        raise NotImplementedError(f"{self.name}'s batches cannot be searched by run")


def _key(env: str, default: str, provider: str) -> str:
    key = os.environ.get(env or default, "")
    if not key:
        raise UserError(f"[batch] with provider {provider!r} needs an API key in ${env or default}")
    return key


def _split_system(messages: tuple[dict[str, str], ...]) -> tuple[str, list[dict[str, str]]]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    return system, [m for m in messages if m["role"] != "system"]


def _error_text(error: Any) -> str:
    """A provider's error as one line, masked before it is encoded: a credential in it holding `"`, `\\` or
    non-ASCII would otherwise reach errors.jsonl escaped, where masking no longer recognises it."""
    return json.dumps(redact(error, keys=False), ensure_ascii=False)


def _jsonl(text: str, source: str, key: str = "custom_id") -> list[tuple[int, dict[str, Any]]]:
    """A provider's results file, every good line kept with its line number: a damaged line (not JSON,
    or without the request's id) is named in a warning and skipped, so only its own request goes without
    an answer (and is sent again), not the whole batch."""
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = load_json(line)
        except json.JSONDecodeError as err:
            log.warning("%s line %d: not valid JSON (%s); skipped: its request is sent again", source, number, err.msg)
            continue
        if not isinstance(row, dict) or not isinstance(row.get(key), str):
            log.warning("%s line %d: no %s; skipped: its request is sent again", source, number, key)
            continue
        rows.append((number, row))
    return rows


def _replies(text: str, source: str, reply: Callable[[dict[str, Any]], BatchReply],
             key: str = "custom_id") -> list[BatchReply]:
    """Each good line of a results file as a reply. A line of the wrong shape (a string where an object
    belongs, a token count that is no number) is named and skipped like a line that is not JSON: one
    bad line must not throw away the batch's other answers (the next run would pay for all of them)."""
    replies = []
    for number, row in _jsonl(text, source, key):
        try:
            replies.append(reply(row))
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as err:
            log.warning("%s line %d: not a result of the expected shape (%s: %s); skipped: its request is sent "
                        "again", source, number, type(err).__name__, str(err)[:200])
    return replies


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
        lines = [json.dumps({"custom_id": r.custom_id, "method": "POST", "url": "/v1/chat/completions",
                             "body": {"model": r.model, "messages": list(r.messages), "max_tokens": r.max_tokens,
                                      "temperature": r.temperature}}) for r in requests]
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

    async def find(self, tags: dict[str, str]) -> list[FoundBatch]:
        """Every batch whose metadata holds `tags`, with the request ids of its input file; a failed batch
        (refused before it ran: nothing answered, nothing paid) is left out."""
        found: list[FoundBatch] = []
        async with self._client() as client:
            after = ""
            for _ in range(self.list_pages):
                page = await client.get("/batches", params={"limit": 100, **({"after": after} if after else {})})
                page.raise_for_status()
                body = page.json()
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

    async def _found(self, client: httpx.AsyncClient, batch: dict[str, Any]) -> list[FoundBatch]:
        """The batch with the request ids of its input file; none when that file cannot be read."""
        source = f"batch {batch.get('id')} input file {batch.get('input_file_id')}"
        content = await client.get(f"/files/{batch.get('input_file_id')}/content")
        if content.status_code >= 400:
            log.warning("%s: cannot be read (HTTP %d); its requests cannot be told", source, content.status_code)
            return []
        rows = [row for _, row in _jsonl(content.text, source)]
        model = next((str(r["body"].get("model", "")) for r in rows if isinstance(r.get("body"), dict)), "")
        return [FoundBatch(str(batch["id"]), tuple(r["custom_id"] for r in rows), model, str(batch.get("status")),
                           float(batch.get("created_at") or 0))]

    async def status(self, batch_id: str) -> BatchStatus:
        async with self._client() as client:
            reply = await client.get(f"/batches/{batch_id}")
            reply.raise_for_status()
        body = reply.json()
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
            replies: list[BatchReply] = []
            for key in ("output_file_id", "error_file_id"):
                if file_id := reply.json().get(key):
                    content = await client.get(f"/files/{file_id}/content")
                    content.raise_for_status()
                    replies += _replies(content.text, f"batch {batch_id} {key} {file_id}", self._reply)
        return replies

    @staticmethod
    def _reply(row: dict[str, Any]) -> BatchReply:
        response = row.get("response") or {}
        body = response.get("body") or {}
        if row.get("error") or response.get("status_code") != 200:
            return BatchReply(row["custom_id"], error=_error_text(row.get("error") or body.get("error") or body))
        usage = body.get("usage") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        text = (body["choices"][0]["message"].get("content") or "") if body.get("choices") else ""
        if not isinstance(text, str):
            raise TypeError(f"the message's content is {type(text).__name__}, not text")
        return BatchReply(row["custom_id"], text=text, usage={"input": int(usage.get("prompt_tokens") or 0),
                                                              "output": int(usage.get("completion_tokens") or 0),
                                                              "cache_read": int(cached), "cache_write": 0})


class AnthropicBatches(_NotSearchable):
    name, id_chars = "anthropic", 64

    def __init__(self, base_url: str, api_key: str, *, timeout_s: float = 120.0):
        self._base = (base_url or "https://api.anthropic.com").rstrip("/")
        self._headers = {"x-api-key": api_key, "anthropic-version": "2023-06-01"}
        self._timeout = timeout_s

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self._base, headers=self._headers, timeout=self._timeout)

    @staticmethod
    def params(r: BatchRequest) -> dict[str, Any]:
        system, messages = _split_system(r.messages)
        return {"model": r.model, "max_tokens": r.max_tokens, "temperature": r.temperature, "messages": messages,
                **({"system": system} if system else {})}

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str:
        async with self._client() as client:   # a message batch takes no metadata: `tags` cannot go with it
            created = await client.post("/v1/messages/batches", json={
                "requests": [{"custom_id": r.custom_id, "params": self.params(r)} for r in requests]})
            created.raise_for_status()
            return str(created.json()["id"])

    async def _get(self, batch_id: str) -> dict[str, Any]:
        async with self._client() as client:
            reply = await client.get(f"/v1/messages/batches/{batch_id}")
            reply.raise_for_status()
            return dict(reply.json())

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
        return _replies(reply.text, f"batch {batch_id} results",
                        lambda row: anthropic_reply(row["custom_id"], row.get("result") or {}))


def anthropic_reply(custom_id: str, result: dict[str, Any]) -> BatchReply:
    """A Messages result (`{"type": "succeeded", "message": ...}` or an error) as a reply."""
    if result.get("type") != "succeeded":
        return BatchReply(custom_id, error=_error_text(result))
    return _message_reply(custom_id, result.get("message") or {})


def _message_reply(custom_id: str, message: dict[str, Any]) -> BatchReply:
    text = "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")
    usage = message.get("usage") or {}
    read, write = int(usage.get("cache_read_input_tokens") or 0), int(usage.get("cache_creation_input_tokens") or 0)
    return BatchReply(custom_id, text=text, usage={"input": int(usage.get("input_tokens") or 0) + read + write,
                                                   "output": int(usage.get("output_tokens") or 0),
                                                   "cache_read": read, "cache_write": write})


class BedrockBatches(_NotSearchable):
    """Bedrock batch inference for Anthropic models on Bedrock (the InvokeModel messages body)."""

    name, id_chars = "bedrock", 11

    def __init__(self, *, region: str, role_arn: str, s3_uri: str, endpoint_url: str = "", s3_endpoint_url: str = ""):
        import boto3  # type: ignore[import-untyped]

        self._bedrock = boto3.client("bedrock", region_name=region, endpoint_url=endpoint_url or None)
        self._s3 = boto3.client("s3", region_name=region, endpoint_url=s3_endpoint_url or None)
        self._role_arn = role_arn
        parsed = urlparse(s3_uri)
        self._bucket, self._prefix = parsed.netloc, parsed.path.strip("/")

    def _uri(self, *parts: str) -> str:
        return "s3://" + "/".join([self._bucket, *[p for p in (self._prefix, *parts) if p]])

    def _key(self, *parts: str) -> str:
        return "/".join(p for p in (self._prefix, *parts) if p)

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str:
        name = f"mlme-{requests[0].custom_id}-{len(requests)}"
        lines = []
        for r in requests:
            params = AnthropicBatches.params(r)
            del params["model"]
            lines.append(json.dumps({"recordId": r.custom_id,
                                     "modelInput": {"anthropic_version": "bedrock-2023-05-31", **params}}))
        await asyncio.to_thread(self._s3.put_object, Bucket=self._bucket, Key=self._key(name, "input.jsonl"),
                                Body="\n".join(lines).encode())
        job = await asyncio.to_thread(
            self._bedrock.create_model_invocation_job, jobName=name, roleArn=self._role_arn,
            modelId=requests[0].model,
            inputDataConfig={"s3InputDataConfig": {"s3Uri": self._uri(name, "input.jsonl")}},
            outputDataConfig={"s3OutputDataConfig": {"s3Uri": self._uri(name, "output") + "/"}})
        return str(job["jobArn"])

    async def status(self, batch_id: str) -> BatchStatus:
        job = await asyncio.to_thread(self._bedrock.get_model_invocation_job, jobIdentifier=batch_id)
        state = str(job["status"])
        ended = state in ("Completed", "PartiallyCompleted", "Failed", "Stopped", "Expired")
        failed = f"{state}: {job.get('message', '')}".strip(": ") if state in ("Failed", "Stopped", "Expired") else ""
        return BatchStatus(ended=ended, done=0, total=0, state=state, failed=failed)

    async def results(self, batch_id: str) -> list[BatchReply]:
        job = await asyncio.to_thread(self._bedrock.get_model_invocation_job, jobIdentifier=batch_id)
        out = urlparse(job["outputDataConfig"]["s3OutputDataConfig"]["s3Uri"]).path.strip("/")
        key = f"{out}/{batch_id.rsplit('/', 1)[-1]}/input.jsonl.out"
        body = await asyncio.to_thread(self._s3.get_object, Bucket=self._bucket, Key=key)
        return _replies(body["Body"].read().decode(), f"batch {batch_id} {key}", _bedrock_reply, key="recordId")


def _bedrock_reply(row: dict[str, Any]) -> BatchReply:
    """One line of a Bedrock job's output: the model's message, or the record's error."""
    if row.get("error"):
        return BatchReply(row["recordId"], error=_error_text(row["error"]))
    return _message_reply(row["recordId"], row.get("modelOutput") or {})


def batch_api(p: ProviderConfig, b: BatchConfig) -> BatchAPI:
    """The batch wire of the run's provider (`[provider]`; Bedrock's job settings from `[batch]`)."""
    if p.type == "openai":
        return OpenAIBatches(p.openai.base_url, _key(p.openai.api_key_env, "OPENAI_API_KEY", "openai"))
    if p.type == "anthropic":
        return AnthropicBatches(p.anthropic.base_url, _key(p.anthropic.api_key_env, "ANTHROPIC_API_KEY", "anthropic"))
    if p.type == "bedrock":
        return BedrockBatches(region=p.bedrock.region, role_arn=b.bedrock_role_arn, s3_uri=b.bedrock_s3_uri,
                              endpoint_url=b.bedrock_endpoint_url, s3_endpoint_url=b.s3_endpoint_url)
    raise UserError(f"[batch] needs a provider with a batch API (openai, anthropic, bedrock), not {p.type!r}")
