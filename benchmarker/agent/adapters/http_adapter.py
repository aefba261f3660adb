"""An agent under test reached over HTTP: POST /learn, /answer, /reset (schemas/http_agent.schema.json).

`timeout_s` is a deadline for each attempt as a whole, connect to last body byte (httpx alone bounds
only the gap between reads, so a server dribbling bytes could hold a call forever); a call lasts at
most `max_attempts` x `timeout_s` plus the backoff waits. The body is streamed and cut off at
MAX_REPLY_BYTES, so an oversized reply fails before it is held in memory.

Header values that are secrets are named by environment variable, never written in config, and
they are masked out of every error message (a server may echo request headers in its body).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
from tenacity import AsyncRetrying, RetryError, retry_if_exception_type, stop_after_attempt, wait_exponential

from benchmarker.agent.adapters.contract import (
    ALL_CAPABILITIES,
    MAX_REPLY_BYTES,
    MAX_REPLY_TEXT,
    AdapterError,
    AgentReply,
    AgentResponse,
    LearnItem,
    ToolCall,
)
from benchmarker.agent.adapters.wire import first_problem
from benchmarker.log.lines import Json
from benchmarker.redact import MASK, is_secret_name, redact_text, redact_url

BODY_EXCERPT_CHARS = 300
ERROR_BODY_READ_BYTES = 64 * 1024  # of a non-2xx body, only enough for the excerpt is read


IDEMPOTENCY_HEADER = "Idempotency-Key"  # on every /learn: <case_id>/<attempt>/<session_id>/<turn>

@dataclass(frozen=True)
class HttpAgentSettings:
    """Where the agent is and how patiently to talk to it; mirrors a future `[agent.http]` table."""

    base_url: str
    name: str = "http"
    header_env: Mapping[str, str] = field(default_factory=dict)  # header name -> env var holding its value
    headers: Mapping[str, str] = field(default_factory=dict)  # non-secret headers, sent as written
    timeout_s: float = 60.0
    max_attempts: int = 3
    initial_backoff_s: float = 0.5
    max_backoff_s: float = 10.0


@dataclass(frozen=True)
class _Reply:
    """A 2xx reply, its body read in full (within MAX_REPLY_BYTES)."""

    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


class _Retryable(Exception):
    """A non-2xx status, timeout or connection error: worth another attempt."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def resolve_headers(settings: HttpAgentSettings) -> dict[str, str]:
    """Plain headers plus the env-named ones; a missing variable or a literal secret fails before any request."""
    literal_secrets = sorted(h for h in settings.headers if is_secret_name(h))
    if literal_secrets:
        raise AdapterError(settings.name, redact_url(settings.base_url), "start",
                           f"header(s) {', '.join(literal_secrets)} look like credentials; give them as "
                           "environment variable names (header_env), not as values")
    headers = dict(settings.headers)
    for header, var in settings.header_env.items():
        value = os.environ.get(var)
        if not value:
            raise AdapterError(settings.name, redact_url(settings.base_url), "start",
                               f"header {header!r} reads environment variable {var}, which is not set")
        headers[header] = value
    return headers


class HttpAgentAdapter:
    """The AgentAdapter contract over HTTP JSON calls, with retries and clear failures."""

    def __init__(self, settings: HttpAgentSettings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        headers = resolve_headers(settings)
        self._secrets = [headers[h] for h in settings.header_env]
        self._client = httpx.AsyncClient(base_url=settings.base_url.rstrip("/") + "/", headers=headers,
                                         timeout=settings.timeout_s, transport=transport)
        self._lock = asyncio.Lock()  # the protocol promises the agent one call at a time

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def capabilities(self) -> frozenset[str]:
        return ALL_CAPABILITIES

    async def learn(self, item: LearnItem) -> tuple[ToolCall, ...]:
        # Idempotency-Key: the same on every retry of this message within the case's learning attempt; an
        # agent that got it already (a reply lost to a timeout) takes it once (schemas/http_agent.schema.json)
        response = await self._post("learn", item.fields(), headers={IDEMPOTENCY_HEADER: item.key} if item.key else None)
        try:
            body: Any = response.json() if response.content else None
        except ValueError:
            return ()  # a /learn body is optional: plain text or nothing means no tool calls reported
        if not isinstance(body, dict) or "tool_calls" not in body:
            return ()
        problem = first_problem("http", "LearnResponse", body)
        if problem:
            raise self._error("learn", f"reply does not match LearnResponse ({problem})")
        return ToolCall.all_from_wire(cast(AgentReply, body))   # checked against the published schema

    async def answer(self, question: str, question_date: str = "") -> AgentResponse:
        response = await self._post("answer", {"question": question, "question_date": question_date})
        try:
            body: Any = response.json()
        except ValueError:
            raise self._error("answer", f"status {response.status_code} with a body that is not JSON: "
                                        f"{self._excerpt(response.text)!r}") from None
        problem = first_problem("http", "AnswerResponse", body)
        if problem:
            raise self._error("answer", f"reply does not match AnswerResponse ({problem})")
        return AgentResponse.from_wire(body)

    async def reset(self) -> None:
        await self._post("reset", {})

    async def close(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> HttpAgentAdapter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _post(self, operation: str, body: Mapping[str, Json], headers: dict[str, str] | None = None) -> _Reply:
        async with self._lock:
            return await self._post_with_retries(operation, body, headers)

    async def _post_with_retries(self, operation: str, body: Mapping[str, Json],
                                 headers: dict[str, str] | None = None) -> _Reply:
        s = self.settings
        retrying = AsyncRetrying(
            stop=stop_after_attempt(max(1, s.max_attempts)),
            wait=wait_exponential(multiplier=s.initial_backoff_s, max=s.max_backoff_s),
            retry=retry_if_exception_type(_Retryable), reraise=False)
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(operation, body, headers)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            detail = last.detail if isinstance(last, _Retryable) else repr(last)
            raise self._error(operation, f"{detail} (after {s.max_attempts} attempts)") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _attempt(self, operation: str, body: Mapping[str, Json], headers: dict[str, str] | None = None) -> _Reply:
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                async with self._client.stream("POST", operation, json=body, headers=headers) as response:
                    if not response.is_success:
                        excerpt = self._excerpt(await self._read_some(response))
                        raise _Retryable(f"last status {response.status_code}, body {excerpt!r}")
                    return _Reply(response.status_code, await self._read_capped(operation, response))
        except (TimeoutError, httpx.TimeoutException):
            raise _Retryable(f"timed out after {self.settings.timeout_s:g}s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from None

    async def _read_capped(self, operation: str, response: httpx.Response) -> bytes:
        """The whole body, or a failure (not retried: the same body would come back) once it passes the cap."""
        declared = response.headers.get("content-length", "")
        too_large = self._error(operation, f"the reply body is larger than {MAX_REPLY_TEXT} ({MAX_REPLY_BYTES} "
                                           f"bytes), the limit for an agent's reply")
        if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
            raise too_large
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise too_large
            chunks.append(chunk)
        return b"".join(chunks)

    @staticmethod
    async def _read_some(response: httpx.Response) -> str:
        """The start of an error body, enough for its excerpt; the rest is never read."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= ERROR_BODY_READ_BYTES:
                break
        return b"".join(chunks)[:ERROR_BODY_READ_BYTES].decode("utf-8", errors="replace")

    def _excerpt(self, text: str) -> str:
        text = self._mask(text)
        return text if len(text) <= BODY_EXCERPT_CHARS else text[:BODY_EXCERPT_CHARS] + "..."

    def _mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return redact_text(text)

    def _error(self, operation: str, detail: str) -> AdapterError:
        url = redact_url(str(self._client.base_url.join(operation)))
        return AdapterError(self.name, f"POST {url}", operation, self._mask(detail))
