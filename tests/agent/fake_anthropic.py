"""ScriptedAnthropicServer: Anthropic's Messages API (`POST /v1/messages`, non-streaming) on 127.0.0.1.

Same script specs as `tests.fakes.openai_server` (reply / tool_call / http_error); errors use
Anthropic's error body, and a 429 spec should carry Anthropic's `retry-after` header.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import ThreadedUvicorn
from tests.fakes.openai_server import DEFAULT_USAGE, Script


class ScriptedAnthropicServer:
    """`.base_url` is "http://127.0.0.1:PORT" (the SDK appends /v1/messages)."""

    def __init__(self, script: Any):
        self.script = Script(script)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self._ids = itertools.count(1)
        self._runner = ThreadedUvicorn(Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])]),
                                       lifespan="off")
        self.base_url = ""

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        self.request_times.append(time.monotonic())
        spec = self.script.next(body)
        if spec is None:
            spec = {"error": {"status": 418, "message": "script exhausted", "headers": {}, "type": ""}}
        if "error" in spec:
            err = spec["error"]
            kind = {429: "rate_limit_error", 400: "invalid_request_error", 529: "overloaded_error"}.get(
                err["status"], "api_error")
            return JSONResponse({"type": "error", "error": {"type": kind, "message": err["message"]}},
                                status_code=err["status"], headers=err.get("headers") or {})
        content: list[dict[str, Any]] = []
        if spec.get("text"):
            content.append({"type": "text", "text": spec["text"]})
        for name, args in spec.get("tool_calls", []):
            content.append({"type": "tool_use", "id": f"toolu_{next(self._ids)}", "name": name, "input": args})
        usage = {**DEFAULT_USAGE, **(spec.get("usage") or {})}
        return JSONResponse({
            "id": f"msg_{next(self._ids)}", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": content, "stop_reason": "tool_use" if spec.get("tool_calls") else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]}})

    def __enter__(self) -> "ScriptedAnthropicServer":
        self._runner.start()
        self.base_url = f"http://127.0.0.1:{self._runner.port}"
        return self

    def __exit__(self, *exc: Any) -> None:
        self._runner.stop()
