"""NaN and Infinity in MCP tool arguments: refused naming the argument, before the MCP SDK sees them.

Python's JSON parser reads NaN, Infinity and numbers too large for a double (1e400) as floats,
and the SDK then re-serialises every request with pydantic, which writes them as null: top_k=NaN
silently became the default and tags {"a": NaN} were stored as {"a": null}. This middleware
answers such a tools/call itself with the tool error validation.py gives for the same value on
the REST API (`search_memories: top_k: must be a finite number, got NaN`); every other request
passes through untouched.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from benchmarker.memory.service import validation as check
from benchmarker.memory.service.errors import ServiceError
from benchmarker.memory.service.limits_http import replay_body

MCP_PATH = "/mcp"


def refusal(body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC answer for a tools/call whose arguments hold a non-finite number, else None."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None  # not ours to judge: the SDK answers with a parse error
    if not isinstance(message, dict) or message.get("method") != "tools/call" or "id" not in message:
        return None
    params = message.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return None
    try:
        for name, value in arguments.items():
            check.finite(str(name), value)
            _well_formed_keys(str(name), value)
    except ServiceError as err:
        text = f"{params.get('name')}: {err}"
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": True}}
    return None


def _well_formed_keys(argument: str, value: Any) -> None:
    """A lone surrogate in an object key (tags) made the SDK answer "Invalid request parameters",
    naming nothing; values are checked by validation.py, keys here."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                check.utf8_size(argument, str(key))
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)


class RefuseNonFiniteArguments:
    """ASGI middleware: POST /mcp bodies are read once, checked, then replayed to the app."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body was complete
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        answer = refusal(body)
        if answer is None:
            await self.app(scope, replay_body(body, receive), send)
            return
        payload = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


