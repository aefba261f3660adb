"""ScriptedOpenAIServer: an OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

It answers `POST /v1/chat/completions` (plain JSON, or SSE when `"stream": true`, with a final
usage chunk when `stream_options.include_usage`) from a script, and records every request body.

    with ScriptedOpenAIServer([tool_call("add_entry", {...}), reply("Recorded.")]) as server:
        model = ChatOpenAI(model="m", base_url=server.base_url, api_key="dummy", max_retries=0)
        ...
        server.requests      # list of request JSON bodies, in arrival order

A script is a list of specs (consumed in order) or a callable `(request_json) -> spec`. A spec:
- `reply("text")` (or a bare string)               -> an assistant text message
- `tool_call(name, args)` / `tool_calls([(n, a), ...])` -> assistant tool calls
- `http_error(429, "slow down", headers={"Retry-After": "1"})` -> that HTTP error
Any spec may carry `"usage": {"prompt_tokens": .., "completion_tokens": ..}` (default 100/20)
and `"delay_s"`. An exhausted list script answers 418, which no client retries.

Prompt caching and model-backed mode: with `simulate_usage=True` (the default when a `brain` is
given) usage comes from the prompt-cache simulator (`tests.fakes.cache_model`, OpenAI's automatic
prefix caching, keyed by model and `prompt_cache_key`): `prompt_tokens` is the whole prompt,
`prompt_tokens_details.cached_tokens` the cached prefix (multiples of 128, >= 1024), and
`completion_tokens` the token count of the emitted message; a spec's explicit usage still wins.
`ScriptedOpenAIServer(brain=offline_brain())` answers every request with the brain
(`tests.fakes.brain`). `server.usages` holds the usage of every 200 answer.
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
from tests.fakes.brain import brain_spec, openai_request_messages
from tests.fakes.cache_model import PromptCache, count_blocks

Spec = dict[str, Any]
DEFAULT_USAGE = {"prompt_tokens": 100, "completion_tokens": 20}


def llm_judge_toml(base_url: str, key_env: str = "TEST_OPENAI_KEY") -> str:
    """run.toml tables: the offline memory agent and reader, judged by "gpt-judge" on this server."""
    return (f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{base_url}"\n'
            f'api_key_env = "{key_env}"\n[models]\nagent = "offline-memory-agent"\n'
            'qa = "offline-reader"\neval = "gpt-judge"\n[eval]\njudge = "llm"\n')


def last_prompt(request: dict[str, Any]) -> str:
    """The text of a request's last message (a string, or the text parts of a content list)."""
    content = request["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def reply(text: str, **extra: Any) -> Spec:
    return {"text": text, **extra}


def tool_call(name: str, args: dict[str, Any], **extra: Any) -> Spec:
    return {"tool_calls": [(name, args)], **extra}


def tool_calls(calls: list[tuple[str, dict[str, Any]]], **extra: Any) -> Spec:
    return {"tool_calls": list(calls), **extra}


def http_error(status: int, message: str = "error", *, headers: dict[str, str] | None = None,
               error_type: str = "", **extra: Any) -> Spec:
    return {"error": {"status": status, "message": message, "headers": headers or {}, "type": error_type}, **extra}


class Script:
    """Thread-safe source of specs: a list consumed in order or a callable of the request."""

    def __init__(self, script: list[Spec | str] | Callable[[dict[str, Any]], Spec | str]):
        self._script = script
        self._lock = threading.Lock()

    def next(self, request: dict[str, Any]) -> Spec | None:
        with self._lock:
            if callable(self._script):
                spec = self._script(request)
            elif self._script:
                spec = self._script.pop(0)
            else:
                return None
        return {"text": spec} if isinstance(spec, str) else spec


class ScriptedOpenAIServer(FakeServer):
    """OpenAI-compatible fake; `.base_url` is "http://127.0.0.1:PORT/v1".

    script: list of specs / callable (request_json) -> spec (ignored when `brain` is given).
    brain: `(messages, tool_names) -> AIMessage` (tests.fakes.brain); answers every request when given.
    cache: a `PromptCache` to use; else one is made from `min_cacheable_tokens` (OpenAI's 1024),
        `ttl_s` and `clock`.
    simulate_usage: report the simulator's usage (default: only in brain mode).
    """

    SIMULATE_BY_DEFAULT = False

    def __init__(self, script: list[Spec | str] | Callable[[dict[str, Any]], Spec | str] | None = None, *,
                 brain: Callable[[list[Any], list[str]], Any] | None = None, cache: PromptCache | None = None,
                 min_cacheable_tokens: int = 1024, ttl_s: float = 300.0, clock: Callable[[], float] | None = None,
                 simulate_usage: bool | None = None):
        self.script = Script(script if script is not None else [])
        self.brain = brain
        self.cache = cache if cache is not None else PromptCache(openai_min_tokens=min_cacheable_tokens,
                                                                 ttl_s=ttl_s, clock=clock)
        self.simulate_usage = (simulate_usage if simulate_usage is not None
                               else self.SIMULATE_BY_DEFAULT or brain is not None)
        self.requests: list[dict[str, Any]] = []
        self.request_times: list[float] = []
        self.usages: list[dict[str, Any]] = []
        self.brain_errors: list[str] = []
        self._ids = itertools.count(1)
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])
        self._runner = ThreadedUvicorn(app, lifespan="off")
        self.base_url = ""

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.request_times.append(time.monotonic())
        if self.brain is not None:
            spec: Spec | None = await brain_spec(self.brain, openai_request_messages, body, self.brain_errors)
        else:
            spec = self.script.next(body)
        if spec is None:
            return JSONResponse({"error": {"message": "ScriptedOpenAIServer: script exhausted", "type": "test"}},
                                status_code=418)
        if spec.get("delay_s"):
            await asyncio.sleep(spec["delay_s"])
        if "error" in spec:
            err = spec["error"]
            payload = {"error": {"message": err["message"], "type": err.get("type") or "api_error", "code": None}}
            return JSONResponse(payload, status_code=err["status"], headers=err.get("headers") or {})
        message, finish = self._message(spec)
        usage = self._usage(spec, body, message)
        self.usages.append(usage)
        ident = f"chatcmpl-{next(self._ids)}"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(self._sse(ident, body.get("model", ""), message, finish,
                                               usage if include_usage else None), media_type="text/event-stream")
        return JSONResponse({"id": ident, "object": "chat.completion", "created": int(time.time()),
                             "model": body.get("model", ""), "usage": usage,
                             "choices": [{"index": 0, "message": message, "finish_reason": finish,
                                          "logprobs": None}]})

    def _usage(self, spec: Spec, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        given = spec.get("usage") or {}
        if not self.simulate_usage:
            usage = {**DEFAULT_USAGE, **given}
        else:
            emitted = ([{"type": "text", "text": message["content"]}] if message.get("content") else []) + [
                {"type": "function", "function": call["function"]} for call in message.get("tool_calls", [])]
            usage = {**self.cache.openai(body).openai_usage(count_blocks(emitted)), **given}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return usage

    def _message(self, spec: Spec) -> tuple[dict[str, Any], str]:
        calls = [{"id": (rest[0] if rest and rest[0] else f"call_{next(self._ids)}"), "type": "function",
                  "function": {"name": name, "arguments": json.dumps(args)}}
                 for name, args, *rest in spec.get("tool_calls", [])]
        message: dict[str, Any] = {"role": "assistant", "content": spec.get("text")}
        if calls:
            message["tool_calls"] = calls
        return message, "tool_calls" if calls else "stop"

    @staticmethod
    async def _sse(ident: str, model: str, message: dict[str, Any], finish: str, usage: dict[str, Any] | None):
        def chunk(delta: dict[str, Any], finish_reason: str | None = None, **extra: Any) -> str:
            choices = [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]
            data = {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                    "choices": choices, **extra}
            return f"data: {json.dumps(data)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        if message.get("content"):
            yield chunk({"content": message["content"]})
        for i, call in enumerate(message.get("tool_calls", [])):
            yield chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                         "function": {"name": call["function"]["name"],
                                                      "arguments": call["function"]["arguments"]}}]})
        yield chunk({}, finish)
        if usage is not None:
            data = {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                    "choices": [], "usage": usage}
            yield f"data: {json.dumps(data)}\n\n"
        yield "data: [DONE]\n\n"

    def _bound(self, root: str) -> None:
        self.base_url = f"{root}/v1"
