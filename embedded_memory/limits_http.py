"""Request bodies: a size cap on every route, and JSON that cannot crash the handlers behind it.

The cap is checked on Content-Length before reading and again while counting chunked bytes, so
an oversized body is refused (413) without being held in memory. Bodies POSTed to /mcp and
/v0/search are then parsed once here (and tool arguments checked, finite_args.py): bytes that are
not UTF-8 and deep nesting raised
UnicodeDecodeError / RecursionError inside the MCP SDK and the search route (HTTP 500); here they
are a 400 (on /mcp a JSON-RPC parse error, -32700). Depth is capped well below the recursion
limit because the SDK parses again from a deeper stack: a body that just passes json.loads here
could still overflow there.
"""

from __future__ import annotations

import json
from collections import deque

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from embedded_memory.connections import MAX_HEADER_BYTES
from embedded_memory.finite_args import refusal
from embedded_memory.security import send_json

JSON_PATHS = frozenset({"/mcp", "/v0/search"})
PARSE_ERROR = -32700  # JSON-RPC 2.0
INVALID_REQUEST = -32600
MAX_JSON_DEPTH = 100  # a tool call nests ~5 levels (envelope, params, arguments, tags)


def rpc_id_problem(value: object) -> str | None:
    """Why a JSON-RPC message's `id` is invalid (2.0: a string, an integer or null), or None.

    The MCP SDK reads a message with an object, NaN or 1e400 id as a notification and answers
    202, so the caller never learns its request was dropped.
    """
    for message in value if isinstance(value, list) else [value]:
        if not isinstance(message, dict) or "id" not in message:
            continue
        rpc_id = message["id"]
        if rpc_id is None or isinstance(rpc_id, str) or (isinstance(rpc_id, int) and not isinstance(rpc_id, bool)):
            continue
        return f"id must be a string, an integer or null, got {json.dumps(rpc_id)[:40]}"
    return None


def parse_json(body: bytes) -> tuple[object, str | None]:
    """(value, None) when `body` is one JSON text, else (None, why not)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, f"body is not UTF-8 (byte {err.start}: {body[err.start:err.start + 1]!r})"
    try:
        value = json.loads(text)
    except RecursionError:
        return None, f"body is nested deeper than {MAX_JSON_DEPTH} levels"
    except ValueError as err:
        return None, f"body is not JSON ({err})"
    if _deeper_than(value, MAX_JSON_DEPTH):
        return None, f"body is nested deeper than {MAX_JSON_DEPTH} levels"
    return value, None


def _deeper_than(value: object, limit: int) -> bool:
    """Whether arrays/objects nest more than `limit` levels (iterative: no recursion of our own)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


class _TooLarge(Exception):
    pass


class BodyGuard:
    """413 JSON above `max_bytes`; 400 for unparsable JSON on the JSON routes; otherwise replay the body."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "DELETE", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(send)
            return
        try:
            body = await self._read(receive)
        except _TooLarge:
            await self._too_large(send)
            return
        if body is None:
            return  # the client went away before its body was complete: nobody to answer
        path = scope["path"].rstrip("/") or "/"
        if scope["method"] == "POST" and path in JSON_PATHS:
            value, problem = parse_json(body)
            if problem is not None:
                await self._bad_json(path, problem, send)
                return
            if path == "/mcp":
                problem = rpc_id_problem(value)
                if problem is not None:
                    await send_json(send, 400, {"jsonrpc": "2.0", "id": None, "error": {
                        "code": INVALID_REQUEST, "message": f"Invalid Request: {problem}"}})
                    return
                answer = refusal(value)  # NaN / Infinity / a bad key in tool arguments, before the SDK
                if answer is not None:
                    await send_json(send, 200, answer)
                    return
        await self.app(scope, replay_body(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body (None if the client disconnected first); _TooLarge past `max_bytes`."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _too_large(self, send: Send) -> None:
        await send_json(send, 413, {"error": f"request body over {self.max_bytes} bytes (serve-memory "
                                             "--max-body-bytes)"}, {"Connection": "close"})

    @staticmethod
    async def _bad_json(path: str, problem: str, send: Send) -> None:
        if path == "/mcp":
            error = {"code": PARSE_ERROR, "message": f"Parse error: {problem}"}
            body: object = {"jsonrpc": "2.0", "id": None, "error": error}
        else:
            body = {"error": f"{problem}; expected a JSON object {{memoryId, query, topK}}"}
        await send_json(send, 400, body)


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A receive() that hands the app the body already read, then whatever comes next (a disconnect)."""
    queue: deque[Message] = deque([{"type": "http.request", "body": body, "more_body": False}])

    async def replay() -> Message:
        return queue.popleft() if queue else await receive()

    return replay


class ProtocolGuard:
    """505 for an HTTP version we do not speak, 431 for a request head over MAX_HEADER_BYTES.

    h11 parses `HTTP/9.9` as a request, and its size limit applies only while a head is still
    incomplete, so a 100 KB head that arrives in one read went through; both are refused here,
    before any other middleware spends time on them.
    """

    VERSIONS = frozenset({"1.0", "1.1"})

    def __init__(self, app: ASGIApp, max_header_bytes: int = MAX_HEADER_BYTES):
        self.app = app
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if scope.get("http_version") not in self.VERSIONS:
                await send_json(send, 505, {"error": f"HTTP/{scope.get('http_version')} is not supported; "
                                                     "use HTTP/1.1"}, {"Connection": "close"})
                return
            size = sum(len(name) + len(value) + 4 for name, value in scope.get("headers", ()))
            if size > self.max_header_bytes:
                await send_json(send, 431, {"error": f"request headers are {size} bytes; the limit is "
                                                     f"{self.max_header_bytes}"}, {"Connection": "close"})
                return
        await self.app(scope, receive, send)
