"""Backoff for model calls: 429 / throttling / 5xx / connection errors retry, everything else fails at once.

Provider SDK retries are turned off (providers.py) so this is the only retry layer, shared by
the memory agent (`RetryMiddleware`) and the QA / judge calls (`ainvoke_with_retry`). A
`Retry-After` header (seconds, HTTP date, or `retry-after-ms`) sets the wait; otherwise the wait
is exponential with jitter. Every wait is capped at `max_backoff_s`, attempts at `max_attempts`.
"""

from __future__ import annotations

import email.utils
import logging
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from tenacity import AsyncRetrying, RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity.retry import retry_base
from tenacity.stop import stop_base

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
RETRYABLE_AWS_CODES = frozenset({
    "ThrottlingException", "Throttling", "ThrottledException", "TooManyRequestsException",
    "RequestLimitExceeded", "ServiceUnavailable", "ServiceUnavailableException", "ModelNotReadyException",
    "InternalServerException", "InternalFailure", "ModelTimeoutException", "RequestTimeout",
    "RequestTimeoutException", "SlowDown",
})


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts (first call included) and backoff bounds; mirrors the config's [retry] table."""

    max_attempts: int = 6
    initial_backoff_s: float = 1.0
    max_backoff_s: float = 60.0

    @classmethod
    def from_config(cls, section: Any) -> RetryPolicy:
        """From `config.retry` (attributes) or a plain dict."""
        get = section.get if isinstance(section, dict) else lambda k, d: getattr(section, k, d)
        return cls(int(get("max_attempts", 6)), float(get("initial_backoff_s", 1.0)),
                   float(get("max_backoff_s", 60.0)))


def _status_and_headers(exc: BaseException) -> tuple[int | None, dict[str, str]]:
    """HTTP status and headers from openai / anthropic / httpx / botocore exceptions."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):  # botocore ClientError
        meta = response.get("ResponseMetadata") or {}
        return meta.get("HTTPStatusCode"), {k.lower(): str(v) for k, v in (meta.get("HTTPHeaders") or {}).items()}
    status = getattr(exc, "status_code", None)
    headers: dict[str, str] = {}
    if response is not None:
        status = status if status is not None else getattr(response, "status_code", None)
        raw = getattr(response, "headers", None) or {}
        headers = {str(k).lower(): str(v) for k, v in raw.items()}
    return status if isinstance(status, int) else None, headers


def retry_after_s(exc: BaseException) -> float | None:
    """The server's requested wait in seconds, when it sent one."""
    _, headers = _status_and_headers(exc)
    if "retry-after-ms" in headers:
        try:
            return max(0.0, float(headers["retry-after-ms"]) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def _connection_error_types() -> tuple[type[BaseException], ...]:
    # Only modules already imported can have raised: no provider import happens here.
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module, names in (("httpx", ("TransportError",)), ("openai", ("APIConnectionError",)),
                          ("anthropic", ("APIConnectionError",)),
                          ("botocore.exceptions", ("EndpointConnectionError", "ConnectionClosedError",
                                                   "ReadTimeoutError", "ConnectTimeoutError"))):
        mod = sys.modules.get(module)
        for name in names:
            cls = getattr(mod, name, None) if mod else None
            if isinstance(cls, type):
                found.append(cls)
    return tuple(found)


def is_retryable(exc: BaseException) -> bool:
    """True for throttling, server-side and connection failures; False for 4xx request errors."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:  # botocore ClientError
        code = str((response.get("Error") or {}).get("Code", ""))
        status, _ = _status_and_headers(exc)
        return code in RETRYABLE_AWS_CODES or (status is not None and status in RETRYABLE_STATUS)
    status, _ = _status_and_headers(exc)
    if status is not None:
        return status in RETRYABLE_STATUS
    return isinstance(exc, _connection_error_types())


def backoff_s(policy: RetryPolicy, attempt: int, exc: BaseException | None) -> float:
    """Wait before the next attempt (`attempt` = attempts made so far, from 1)."""
    requested = retry_after_s(exc) if exc is not None else None
    if requested is not None:
        wait = requested * (1.0 + random.uniform(0.0, 0.1))  # spread a herd of clients told the same time
    else:
        base = min(policy.max_backoff_s, policy.initial_backoff_s * 2 ** (attempt - 1))
        wait = base / 2 + random.uniform(0.0, base / 2)
    return min(policy.max_backoff_s, wait)


class CallGate(Protocol):
    """A pause shared by every process of a run (Ray: run/ray_limiter.py): when one model call is
    throttled, the others wait too instead of each hammering the provider into its own 429."""

    async def wait(self) -> None: ...
    def hold(self, seconds: float) -> None: ...


_GATE: CallGate | None = None


def use_call_gate(gate: CallGate | None) -> None:
    """Install (or remove, with None) the process's shared gate; local runs have none."""
    global _GATE
    _GATE = gate


def is_throttle(exc: BaseException | None) -> bool:
    """A rate-limit answer (429 / 529 / Bedrock throttling), as opposed to a 5xx or a dropped connection."""
    if exc is None:
        return False
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return "Throttl" in str((response.get("Error") or {}).get("Code", "")) or "TooMany" in str(response)
    status, _ = _status_and_headers(exc)
    return status in (429, 529)


class RetryKwargs(TypedDict):
    """What `Retrying` / `AsyncRetrying` are built with under a policy."""

    stop: stop_base
    wait: Callable[[RetryCallState], float]
    retry: retry_base
    before_sleep: Callable[[RetryCallState], None]
    reraise: bool


def _retry_kwargs(policy: RetryPolicy, what: str) -> RetryKwargs:
    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return backoff_s(policy, state.attempt_number, exc)

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        sleep = state.next_action.sleep if state.next_action else 0.0
        log.warning("%s failed (attempt %d/%d): %s: %s; retrying in %.2fs", what, state.attempt_number,
                    policy.max_attempts, type(exc).__name__, str(exc)[:200], sleep)
        if _GATE is not None and is_throttle(exc):
            _GATE.hold(sleep)  # every worker of the run backs off, not only this call

    return {"stop": stop_after_attempt(max(1, policy.max_attempts)), "wait": wait,
            "retry": retry_if_exception(is_retryable), "before_sleep": before_sleep, "reraise": True}


async def aretry(fn: Callable[[], Awaitable[Any]], *, policy: RetryPolicy, what: str = "model call") -> Any:
    """Await `fn()` under the policy."""
    async for attempt in AsyncRetrying(**_retry_kwargs(policy, what)):
        with attempt:
            if _GATE is not None:
                await _GATE.wait()
            return await fn()
    raise AssertionError("unreachable")  # reraise=True re-raises the last error


def retry_sync(fn: Callable[[], Any], *, policy: RetryPolicy, what: str = "model call") -> Any:
    for attempt in Retrying(**_retry_kwargs(policy, what)):
        with attempt:
            return fn()
    raise AssertionError("unreachable")


# --- Bedrock's message rule -------------------------------------------------------------------

def _rstrip_content(content: Any) -> Any:
    if isinstance(content, str):
        return content.rstrip()
    if isinstance(content, list) and content:
        blocks = list(content)
        for i in range(len(blocks) - 1, -1, -1):
            block = blocks[i]
            if isinstance(block, str):
                blocks[i] = block.rstrip()
                break
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                blocks[i] = {**block, "text": block["text"].rstrip()}
                break
        return blocks
    return content


def strip_trailing_whitespace(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Bedrock rejects assistant (and final) texts ending in whitespace: strip AI and Human texts."""
    out: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, (AIMessage, HumanMessage)):
            content = _rstrip_content(message.content)
            if content != message.content:
                message = message.model_copy(update={"content": content})
        out.append(message)
    return out


def is_bedrock_model(model: Any) -> bool:
    """True for langchain-aws chat models (also when wrapped by bind / bind_tools)."""
    inner = getattr(model, "bound", model)
    return type(inner).__name__.startswith("ChatBedrock")


# --- the two entry points -------------------------------------------------------------------

async def ainvoke_with_retry(model: Any, messages: Sequence[BaseMessage] | str, *, policy: RetryPolicy,
                             ledger: Any | None = None, role: str = "qa", model_id: str | None = None,
                             provider: str | None = None) -> AIMessage:
    """One model call (QA, judge) under the retry policy; tokens go to `ledger` under `role`."""
    msgs: Any = [HumanMessage(messages)] if isinstance(messages, str) else list(messages)
    if provider == "bedrock" or is_bedrock_model(model):
        msgs = strip_trailing_whitespace(msgs)
    reply = await aretry(lambda: model.ainvoke(msgs), policy=policy, what=f"{role} model call")
    if ledger is not None:
        ledger.record_message(role, model_id or model_name_of(model), reply)
    return reply


def model_name_of(model: Any) -> str:
    """The provider's model id of a chat model (ChatOpenAI.model_name, ChatBedrockConverse.model_id, ...)."""
    inner = getattr(model, "bound", model)
    for attr in ("model_name", "model_id", "model"):
        value = getattr(inner, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(inner).__name__


class RetryMiddleware(AgentMiddleware):
    """Agent middleware: every model call of the memory agent goes through the retry policy."""

    def __init__(self, policy: RetryPolicy):
        super().__init__()
        self.policy = policy

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return retry_sync(lambda: handler(request), policy=self.policy, what="memory agent model call")

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await aretry(lambda: handler(request), policy=self.policy, what="memory agent model call")


class RetryingModel:
    """A chat model seen through the retry policy and the ledger, for callers that only `ainvoke`.

    Judges and graders take any object with `ainvoke`; wrapping keeps 429 storms and token
    counting out of their code. `temperature` is exposed so judges see the model's setting.
    """

    def __init__(self, model: Any, *, policy: RetryPolicy, ledger: Any | None, role: str,
                 model_id: str | None = None, provider: str | None = None):
        self.model = model
        self.policy = policy
        self.ledger = ledger
        self.role = role
        self.model_id = model_id or model_name_of(model)
        self.provider = provider
        self.temperature = getattr(model, "temperature", None)
        self.model_name = self.model_id

    async def ainvoke(self, messages: Sequence[BaseMessage] | str, **_: Any) -> AIMessage:
        return await ainvoke_with_retry(self.model, messages, policy=self.policy, ledger=self.ledger,
                                        role=self.role, model_id=self.model_id, provider=self.provider)
