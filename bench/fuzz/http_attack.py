"""Group 2: raw HTTP abuse. The one-request cases (http_cases.py), then the floods (http_floods.py).

Every request goes on its own connection, so a reset belongs to the request that caused it.
A failed request is followed by a health probe: the detail says whether the service survived.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass

import httpx

from bench.fuzz import http_floods
from bench.fuzz.http_cases import HttpCase, auth_cases, mcp_cases, origin_cases, rest_cases, socket_cases
from bench.fuzz.outcome import Tally, rss_kb
from bench.fuzz.rawmcp import RawMcp, session_headers
from bench.fuzz.target import ServiceHandle, http_client, mcp_session, tool_text


@dataclass(frozen=True)
class HttpSizes:
    """How hard the floods push (quick mode: small enough for CI)."""

    body_mib: int = 50
    bodies: int = 8
    sessions: int = 2000
    idle: int = 200
    slow: int = 100
    hold_s: float = 15.0


QUICK = HttpSizes(body_mib=5, bodies=2, sessions=30, idle=20, slow=10, hold_s=1.0)


def judge(expect: str, status: int, text: str) -> tuple[str, str]:
    """(outcome, detail) of an HTTP answer; a JSON-RPC error or isError result in a 200 is a refusal."""
    if status == 505 and expect == "reject":  # "HTTP Version Not Supported" is the right refusal
        return "clean", ""
    if status >= 500:
        return "5xx", f"HTTP {status}: {text[:160]}"
    refused = status >= 300 or _rpc_refusal(text)
    if expect == "any":
        return "ok", ""
    if expect == "accept":
        return ("wrong", f"HTTP {status}: {text[:160]}") if refused else ("ok", "")
    return ("clean", "") if refused else ("accepted", f"HTTP {status}: {text[:160]}")


def _rpc_refusal(text: str) -> bool:
    for line in reversed(text.splitlines() or [""]):  # plain JSON, or the last SSE data line
        line = line[5:].strip() if line.startswith("data:") else line.strip()
        try:
            body = json.loads(line)
        except ValueError:
            continue
        if isinstance(body, dict):
            result = body.get("result")
            return "error" in body or (isinstance(result, dict) and bool(result.get("isError")))
    return False


def request_headers(target: ServiceHandle, case: HttpCase, session_id: str | None) -> dict[str, str]:
    """The client's usual headers, then the case's overrides (an empty value drops a header)."""
    headers = session_headers(target, session_id if case.session else None)
    if not case.auth:
        headers.pop("Authorization", None)
    for name, value in case.headers.items():
        for existing in [k for k in headers if k.lower() == name.lower()]:
            del headers[existing]
        if value:
            headers[name] = value
    return headers


async def send(http: httpx.AsyncClient, target: ServiceHandle, case: HttpCase, session_id: str | None,
               timeout_s: float) -> tuple[str, str]:
    """One case; `http` must open a fresh connection per request (target.http_client(fresh_connections=True))."""
    if case.raw is not None:
        return await send_socket(target, case, timeout_s)
    try:
        response = await http.request(case.method, target.base_url + case.path, content=case.body,
                                      headers=request_headers(target, case, session_id))
    except httpx.LocalProtocolError:
        raise  # the client refused to send it: a bad case, not a finding
    except httpx.HTTPError as err:
        return "crash", f"{type(err).__name__}: {err} (service {'up' if await target.healthy() else 'down'})"
    return judge(case.expect, response.status_code, response.text)


async def send_socket(target: ServiceHandle, case: HttpCase, timeout_s: float) -> tuple[str, str]:
    """Write the bytes, half-close, read the status line; a close without an answer is a refusal."""
    assert case.raw is not None
    host, port = target.host_port
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
        writer.write(case.raw)
        await writer.drain()
        writer.write_eof()
        answer = await asyncio.wait_for(reader.read(65536), timeout_s)
    except (OSError, asyncio.TimeoutError) as err:
        alive = await target.healthy()
        return "crash", f"{type(err).__name__}: {err} (service {'up' if alive else 'down'})"
    finally:
        if writer is not None:
            writer.close()
    if not answer:
        return ("ok", "") if case.expect == "any" else ("clean", "closed without an answer")
    head, _, body = answer.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return "unclear", f"not an HTTP answer: {answer[:80]!r}"
    return judge(case.expect, status, body.decode("utf-8", "replace"))


async def fixture_memory(target: ServiceHandle) -> str:
    """A memory with one entry, for the cases that need a real memoryId."""
    async with mcp_session(target) as session:
        async def call(tool: str, **args: object) -> dict:
            result = await session.call_tool(tool, args)
            if result.isError:
                raise RuntimeError(f"fixture call {tool} failed: {tool_text(result)}")
            return json.loads(tool_text(result))

        vault = (await call("create_vault", title=f"fzhttp-{secrets.token_hex(3)}"))["vaultId"]
        memory = (await call("create_memory_in_vault", vault_id=vault, title="fzhttp", memory_type="NOTES"))["memoryId"]
        await session.call_tool("add_entry", {"vault_id": vault, "memory_id": memory, "raw_entry": "fuzz entry",
                                              "summary": "fuzz"})
        await session.call_tool("await_consistency", {"memory_id": memory})
    return memory


def all_cases(target: ServiceHandle, memory_id: str) -> list[HttpCase]:
    host, port = target.host_port
    cases = mcp_cases(memory_id) + rest_cases(memory_id) + origin_cases(memory_id, host, port)
    if target.api_key:
        cases += auth_cases(memory_id, target.api_key)
    return cases + socket_cases(host, port)


async def run(target: ServiceHandle, tally: Tally, sizes: HttpSizes, *, timeout_s: float = 30.0) -> Tally:
    memory_id = await fixture_memory(target)
    raw = RawMcp(target, timeout_s)
    await raw.open()
    try:
        async with http_client(timeout_s=timeout_s, fresh_connections=True) as http:
            for case in all_cases(target, memory_id):
                outcome, detail = await send(http, target, case, raw.session_id, timeout_s)
                tally.add(outcome, case.label, detail)
                if outcome == "crash":
                    target.revive()
    finally:
        await raw.close()
    tally.extra["auth_cases"] = "run" if target.api_key else "skipped: no API key known for this service"
    rss_after = {"requests": rss_kb(target.pid)["rss"]}
    floods = {"bodies": http_floods.huge_bodies, "sessions": http_floods.session_flood,
              "connections": http_floods.hold_connections}
    for name, flood in floods.items():
        await flood(target, tally, sizes, memory_id=memory_id, timeout_s=timeout_s)
        rss_after[name] = rss_kb(target.pid)["rss"]
    tally.extra["rss_kb_after_step"] = rss_after
    return tally
