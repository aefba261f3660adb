"""An agent under test reached over HTTP: POST /learn, /answer, /reset (schemas/http_agent.schema.json).

Header values that are secrets are named by environment variable, never written in config, and
they are masked out of every error message (a server may echo request headers in its body).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryError, retry_if_exception_type, stop_after_attempt, wait_exponential

from benchmarker.agent.adapters.contract import ALL_CAPABILITIES, AdapterError, AgentResponse, LearnItem, ToolCall
from benchmarker.agent.adapters.wire import first_problem
from benchmarker.redact import MASK, is_secret_name, redact_text, redact_url

BODY_EXCERPT_CHARS = 300


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
        response = await self._post("learn", item.fields())
        try:
            body: Any = response.json() if response.content else None
        except ValueError:
            return ()  # a /learn body is optional: plain text or nothing means no tool calls reported
        if not isinstance(body, dict) or "tool_calls" not in body:
            return ()
        problem = first_problem("http", "LearnResponse", body)
        if problem:
            raise self._error("learn", f"reply does not match LearnResponse ({problem})")
        return ToolCall.all_from_wire(body)

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

    async def _post(self, operation: str, body: dict[str, Any]) -> httpx.Response:
        async with self._lock:
            return await self._post_with_retries(operation, body)

    async def _post_with_retries(self, operation: str, body: dict[str, Any]) -> httpx.Response:
        s = self.settings
        retrying = AsyncRetrying(
            stop=stop_after_attempt(max(1, s.max_attempts)),
            wait=wait_exponential(multiplier=s.initial_backoff_s, max=s.max_backoff_s),
            retry=retry_if_exception_type(_Retryable), reraise=False)
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(operation, body)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            detail = last.detail if isinstance(last, _Retryable) else repr(last)
            raise self._error(operation, f"{detail} (after {s.max_attempts} attempts)") from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _attempt(self, operation: str, body: dict[str, Any]) -> httpx.Response:
        try:
            response = await self._client.post(operation, json=body)
        except httpx.TimeoutException:
            raise _Retryable(f"timed out after {self.settings.timeout_s:g}s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {type(exc).__name__}: {exc}") from None
        if not response.is_success:
            raise _Retryable(f"last status {response.status_code}, body {self._excerpt(response.text)!r}")
        return response

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
