"""AnthropicServer: Anthropic's Messages API (`POST /v1/messages`) on 127.0.0.1, with prompt caching.

Answers come from a script (the specs of `tests.fakes.openai_server`: `reply`, `tool_call`,
`tool_calls`, `http_error`, a bare string, or a callable `(request_json) -> spec`) or, in
model-backed mode, from a brain (`tests.fakes.brain`): `AnthropicServer(brain=offline_brain())`.

Usage is computed by the prompt-cache simulator (`tests.fakes.cache_model.PromptCache`): cache
breakpoints (`cache_control` on tools, system blocks and message blocks, and the top-level
`cache_control` of automatic caching) give `cache_creation_input_tokens`,
`cache_read_input_tokens` and `cache_creation.ephemeral_5m/1h_input_tokens` as the real API does;
`input_tokens` is the uncached rest and `output_tokens` the token count of the emitted content
blocks. A spec's explicit `usage` (`prompt_tokens` / `completion_tokens`, or any Anthropic usage
key) overrides the simulated numbers. With `simulate_usage=False` the usage is the fixed
`DEFAULT_USAGE` (100 in / 20 out) unless a spec says otherwise (the legacy `ScriptedAnthropicServer`).
More than 4 breakpoints is a 400 `invalid_request_error` (the script is not consumed).

`"stream": true` requests get Anthropic's SSE events (message_start, content_block_*,
message_delta carrying the full usage, message_stop).

    with AnthropicServer(brain=offline_brain(), min_cacheable_tokens=2048) as server:
        model = init_chat_model("claude-test", model_provider="anthropic", api_key="x",
                                base_url=server.base_url, max_retries=0)
        server.requests   # request bodies, in arrival order
        server.usages     # the usage object of every 200 answer
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.fakes import FakeServer, ThreadedUvicorn
from tests.fakes.brain import Brain, anthropic_request_messages, brain_spec
from tests.fakes.cache_model import CacheRequestError, PromptCache, count_blocks
from tests.fakes.openai_server import DEFAULT_USAGE, Script, Spec

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
               529: "overloaded_error"}
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
              "cache_creation")


class AnthropicServer(FakeServer):
    """Messages API fake with prompt-cache usage; `.base_url` is "http://127.0.0.1:PORT".

    script: list of specs / callable (request_json) -> spec (ignored when `brain` is given).
    brain: `(messages, tool_names) -> AIMessage`; answers every request when given.
    cache: a `PromptCache` to use (shared between servers, or with a `FakeClock`); else one is made
        from `min_cacheable_tokens`, `ttl_s` and `clock`.
    simulate_usage: report the simulator's usage (default True here).
    """

    SIMULATE_BY_DEFAULT = True

    def __init__(self, script: list[Spec | str] | Callable[[dict[str, Any]], Spec | str] | None = None, *,
                 brain: Brain | None = None, cache: PromptCache | None = None, min_cacheable_tokens: int = 1024,
                 ttl_s: float = 300.0, clock: Callable[[], float] | None = None,
                 simulate_usage: bool | None = None):
        self.script = Script(script if script is not None else [])
        self.brain = brain
        self.cache = cache if cache is not None else PromptCache(min_cacheable_tokens=min_cacheable_tokens,
                                                                 ttl_s=ttl_s, clock=clock)
        self.simulate_usage = (simulate_usage if simulate_usage is not None
                               else self.SIMULATE_BY_DEFAULT or brain is not None)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self.usages: list[dict[str, Any]] = []
        self.brain_errors: list[str] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._runner = ThreadedUvicorn(Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])]),
                                       lifespan="off")
        self.base_url = ""

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            self.request_times.append(time.monotonic())
        prompt = None
        if self.simulate_usage:
            try:
                prompt = self.cache.parse_anthropic(body)
            except CacheRequestError as exc:
                return self._error(400, str(exc), {})
        if self.brain is not None:
            spec: Spec | None = await brain_spec(self.brain, anthropic_request_messages, body, self.brain_errors)
        else:
            spec = self.script.next(body)
        if spec is None:
            spec = {"error": {"status": 418, "message": "script exhausted", "headers": {}, "type": ""}}
        if spec.get("delay_s"):
            await asyncio.sleep(spec["delay_s"])
        if "error" in spec:
            err = spec["error"]
            return self._error(err["status"], err["message"], err.get("headers") or {}, err.get("type") or None)
        content: list[dict[str, Any]] = []
        if spec.get("text"):
            content.append({"type": "text", "text": spec["text"]})
        for name, args, *rest in spec.get("tool_calls", []):
            ident = rest[0] if rest and rest[0] else f"toolu_{next(self._ids):04d}"
            content.append({"type": "tool_use", "id": ident, "name": name, "input": args})
        usage = self._usage(spec, prompt, content)
        with self._lock:
            self.usages.append(usage)
        message = {"id": f"msg_{next(self._ids):04d}", "type": "message", "role": "assistant",
                   "model": body.get("model"), "content": content,
                   "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
                   "stop_sequence": None, "usage": usage}
        if body.get("stream"):
            return StreamingResponse(self._sse(message), media_type="text/event-stream")
        return JSONResponse(message)

    def _usage(self, spec: Spec, prompt: Any, content: list[dict[str, Any]]) -> dict[str, Any]:
        given = spec.get("usage") or {}
        output = count_blocks({k: v for k, v in b.items() if k != "id"} for b in content)
        if prompt is None:
            usage: dict[str, Any] = {"input_tokens": DEFAULT_USAGE["prompt_tokens"],
                                     "output_tokens": DEFAULT_USAGE["completion_tokens"]}
        else:
            usage = self.cache.apply(prompt).anthropic_usage(output)
        if "prompt_tokens" in given:
            usage["input_tokens"] = given["prompt_tokens"]
        if "completion_tokens" in given:
            usage["output_tokens"] = given["completion_tokens"]
        usage.update({k: given[k] for k in USAGE_KEYS if k in given})
        return usage

    def _error(self, status: int, message: str, headers: dict[str, str], kind: str | None = None) -> Response:
        kind = kind or ERROR_TYPES.get(status, "api_error")
        return JSONResponse({"type": "error", "error": {"type": kind, "message": message}},
                            status_code=status, headers=headers)

    @staticmethod
    async def _sse(message: dict[str, Any]):
        def event(kind: str, data: dict[str, Any]) -> str:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

        usage = message["usage"]
        start = {**message, "content": [], "stop_reason": None,
                 "usage": {**usage, "output_tokens": min(1, usage.get("output_tokens", 0))}}
        yield event("message_start", {"message": start})
        for i, block in enumerate(message["content"]):
            if block["type"] == "text":
                yield event("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
                yield event("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": block["text"]}})
            else:
                yield event("content_block_start", {"index": i, "content_block": {**block, "input": {}}})
                yield event("content_block_delta", {"index": i, "delta": {"type": "input_json_delta",
                                                                          "partial_json": json.dumps(block["input"])}})
            yield event("content_block_stop", {"index": i})
        yield event("message_delta", {"delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                      "usage": usage})
        yield event("message_stop", {})

    def _bound(self, root: str) -> None:
        self.base_url = f"{root}"
