"""MCP's JSON-RPC over plain httpx, for the bytes the SDK client cannot send (NaN, lone surrogates).

Every request goes on a fresh connection: after a server error uvicorn may drop a kept-alive
connection, and a reset on reuse must not be mistaken for the service crashing.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from mcp.types import LATEST_PROTOCOL_VERSION

from bench.fuzz.target import JSON_HEADERS, ServiceHandle, http_client


def rpc_body(response: httpx.Response) -> dict[str, Any] | None:
    """The JSON-RPC message in a response (plain JSON or the last SSE `data:` line); None if neither."""
    text = response.text
    if "text/event-stream" in response.headers.get("content-type", ""):
        data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = data[-1] if data else ""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def initialize_body(request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": {"protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
                       "clientInfo": {"name": "fuzz-service", "version": "1"}}}


def session_headers(target: ServiceHandle, session_id: str | None = None, **extra: str) -> dict[str, str]:
    """What a client sends on /mcp: JSON + SSE accept, protocol version, auth, the session id."""
    out = {**JSON_HEADERS, **target.headers, "mcp-protocol-version": LATEST_PROTOCOL_VERSION}
    if session_id:
        out["mcp-session-id"] = session_id
    out.update(extra)
    return out


async def open_session(http: httpx.AsyncClient, target: ServiceHandle) -> tuple[httpx.Response, str | None]:
    """initialize + notifications/initialized; (the initialize response, the session id if one was given)."""
    response = await http.post(target.mcp_url, json=initialize_body(), headers=session_headers(target))
    session_id = response.headers.get("mcp-session-id")
    if response.status_code == 200 and session_id:
        await http.post(target.mcp_url, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                        headers=session_headers(target, session_id))
    return response, session_id


class RawMcp:
    """One MCP session driven by hand: initialize, send raw request bytes, terminate."""

    def __init__(self, target: ServiceHandle, timeout_s: float = 30.0):
        self.target = target
        self.session_id: str | None = None
        self._next_id = 1
        self._http = http_client(timeout_s=timeout_s, fresh_connections=True)

    def headers(self, **extra: str) -> dict[str, str]:
        return session_headers(self.target, self.session_id, **extra)

    async def open(self) -> httpx.Response:
        """Initialize (the response is returned so a caller can count refusals)."""
        response, self.session_id = await open_session(self._http, self.target)
        return response

    async def post(self, body: bytes, **headers: str) -> httpx.Response:
        return await self._http.post(self.target.mcp_url, content=body, headers=self.headers(**headers))

    async def call_tool(self, name: str, arguments_json: str) -> httpx.Response:
        """tools/call with `arguments_json` spliced in verbatim (it may hold NaN or \\ud800)."""
        self._next_id += 1
        body = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s}}'
                % (self._next_id, json.dumps(name), arguments_json))
        return await self.post(body.encode("utf-8"))

    async def close(self) -> None:
        """Terminate the session (DELETE) and drop the client; errors ignored (it may be gone)."""
        try:
            if self.session_id:
                await self._http.delete(self.target.mcp_url, headers=self.headers())
        except httpx.HTTPError:
            pass
        finally:
            await self._http.aclose()
