"""Group 2's floods: huge bodies, unclosed MCP sessions, idle and slowloris connections.

Huge bodies are streamed over raw sockets while the answer is read concurrently: a service that
refuses early (413) may close the connection mid-upload, and that must not read as a crash.
A 429 or 503 under a flood is load shedding, so it counts as a clean refusal. How many idle and
slowloris connections are still open after the hold is reported, not judged: the right timeout
is the service's policy; a health probe during the hold is judged (the service must still answer).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import httpx

from bench.fuzz.outcome import Tally, rss_kb
from bench.fuzz.rawmcp import open_session, session_headers
from bench.fuzz.target import http_client

if TYPE_CHECKING:
    from bench.fuzz.http_attack import HttpSizes
    from bench.fuzz.target import ServiceHandle

CHUNK = 1 << 20
SHED = (429, 503)


def _judge_answer(status: int, body: bytes) -> tuple[str, str]:
    if status in SHED:
        return "clean", ""
    if status >= 500:
        return "5xx", f"HTTP {status}"
    if status >= 400:
        return "clean", ""
    try:
        parsed = json.loads(body.decode("utf-8", "replace").split("data:")[-1])
    except ValueError:
        parsed = None
    result = parsed.get("result") if isinstance(parsed, dict) else None
    refused = isinstance(parsed, dict) and ("error" in parsed or (isinstance(result, dict) and result.get("isError")))
    return ("clean", "") if refused else ("accepted", f"HTTP {status}: a huge body was processed")


async def upload(target: "ServiceHandle", path: str, headers: dict[str, str], body: bytes,
                 timeout_s: float) -> tuple[str, str]:
    """POST `body` in 1 MiB chunks, stopping as soon as the service answers."""
    host, port = target.host_port
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(body)}", "Connection: close",
             *[f"{k}: {v}" for k, v in headers.items() if k.lower() not in ("host", "content-length")]]
    sent, writer = 0, None
    try:
        reader, writer = await asyncio.open_connection(host, port)
        answer = asyncio.create_task(reader.read())
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        view = memoryview(body)
        try:
            while sent < len(body) and not answer.done():
                writer.write(view[sent:sent + CHUNK])
                await writer.drain()
                sent += min(CHUNK, len(body) - sent)
        except OSError:
            pass  # the service stopped reading; its answer (if any) says why
        data = await asyncio.wait_for(answer, timeout_s)
    except (OSError, asyncio.TimeoutError) as err:
        alive = await target.healthy()
        if alive and isinstance(err, ConnectionError):
            return "clean", f"connection closed after {sent >> 20} MiB without an answer (service up)"
        return "crash", f"{type(err).__name__} after {sent >> 20} MiB (service {'up' if alive else 'down'})"
    finally:
        if writer is not None:
            writer.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        if await target.healthy():
            return "clean", f"closed after {sent >> 20} MiB without an answer (service up)"
        return "crash", f"no answer after {sent >> 20} MiB and the service is down"
    return _judge_answer(status, rest)


async def huge_bodies(target: "ServiceHandle", tally: Tally, sizes: "HttpSizes", *, memory_id: str,
                      timeout_s: float) -> None:
    """`sizes.bodies` concurrent posts of `sizes.body_mib` MiB to /mcp and then to /v0/search."""
    size = sizes.body_mib << 20
    async with http_client(timeout_s=timeout_s) as http:
        _, session_id = await open_session(http, target)
    filler = "x" * size
    routes = {
        "/mcp": (session_headers(target, session_id), json.dumps(
            {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "add_entry", "arguments": {
                "vault_id": "v", "memory_id": memory_id, "raw_entry": filler, "summary": "s"}}}).encode()),
        "/v0/search": ({"Content-Type": "application/json", **target.headers},
                       json.dumps({"memoryId": memory_id, "query": filler}).encode()),
    }
    del filler
    peaks = {}
    for path, (headers, body) in routes.items():
        results = await asyncio.gather(*(upload(target, path, headers, body, timeout_s)
                                         for _ in range(sizes.bodies)))
        for outcome, detail in results:
            tally.add(outcome, f"body.{sizes.body_mib}MiB{path}", detail)
        peaks[path] = rss_kb(target.pid)["peak"]
    tally.extra["huge_bodies"] = {"count_per_route": sizes.bodies, "mib_each": sizes.body_mib, "rss_peak_kb": peaks}


async def session_flood(target: "ServiceHandle", tally: Tally, sizes: "HttpSizes", *, memory_id: str,
                        timeout_s: float) -> None:
    """Open `sizes.sessions` MCP sessions and never close them; then check the first still works."""
    opened: list[str] = []
    gate = asyncio.Semaphore(8)
    async with http_client(timeout_s=timeout_s, fresh_connections=True) as http:
        async def one() -> None:
            async with gate:
                try:
                    response, session_id = await open_session(http, target)
                except httpx.HTTPError as err:
                    tally.add("crash", "sessions.open", f"{type(err).__name__}: {err}")
                    return
            if response.status_code == 200 and session_id:
                opened.append(session_id)
                tally.add("ok", "sessions.open")
            else:
                outcome, _ = _judge_answer(response.status_code, response.content)
                tally.add(outcome, "sessions.open", f"HTTP {response.status_code}")

        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.gather(*(one() for _ in range(sizes.sessions)))
        rss_full = rss_kb(target.pid)["rss"]
        first_alive = None
        if opened:
            probe = await http.post(target.mcp_url, content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                                    headers=session_headers(target, opened[0]))
            first_alive = probe.status_code == 200
        tally.extra["sessions"] = {"tried": sizes.sessions, "opened": len(opened), "rss_kb_with_all_open": rss_full,
                                   "first_still_alive": first_alive,
                                   "first_probed_after_s": round(loop.time() - started, 1)}
        for session_id in opened:  # clean up, or later groups would meet the service's session cap
            try:
                await http.delete(target.mcp_url, headers=session_headers(target, session_id))
            except httpx.HTTPError:
                pass


async def _open(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    try:
        return await asyncio.wait_for(asyncio.open_connection(host, port), 5.0)
    except (OSError, asyncio.TimeoutError):
        return None


async def _is_open(reader: asyncio.StreamReader) -> bool:
    """Still open and silent: no answer (a 408 would be one) and no close."""
    try:
        await asyncio.wait_for(reader.read(1024), 0.05)
    except asyncio.TimeoutError:
        return True
    except OSError:
        return False
    return False


async def hold_connections(target: "ServiceHandle", tally: Tally, sizes: "HttpSizes", *, memory_id: str,
                           timeout_s: float) -> None:
    """Idle sockets that never send, and slowloris sockets that send headers one byte at a time."""
    host, port = target.host_port
    idle = [c for c in await asyncio.gather(*(_open(host, port) for _ in range(sizes.idle))) if c]
    slow = [c for c in await asyncio.gather(*(_open(host, port) for _ in range(sizes.slow))) if c]
    head = f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: ".encode()
    dripping = {i: head for i in range(len(slow))}  # bytes still to send before the endless header value
    closed_slow: set[int] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + sizes.hold_s
    probed = False
    while loop.time() < deadline:
        for i, (_, writer) in enumerate(slow):
            if i in closed_slow:
                continue
            pending = dripping[i] or b"a"
            try:
                writer.write(pending[:1])
                await writer.drain()
            except OSError:
                closed_slow.add(i)
            dripping[i] = pending[1:] if dripping[i] else b""
        if not probed and loop.time() > deadline - sizes.hold_s / 2:
            probed = True
            await _health_during_hold(target, tally)
        await asyncio.sleep(min(0.25, max(0.0, deadline - loop.time())))
    await _health_during_hold(target, tally)
    idle_open = sum(await asyncio.gather(*(_is_open(reader) for reader, _ in idle)))
    slow_open = sum(await asyncio.gather(*(_is_open(reader) for i, (reader, _) in enumerate(slow)
                                           if i not in closed_slow)))
    for _, writer in idle + slow:
        writer.close()
    tally.extra["held_connections"] = {
        "hold_s": sizes.hold_s, "idle_tried": sizes.idle, "idle_connected": len(idle),
        "idle_open_after_hold": idle_open, "slowloris_tried": sizes.slow, "slowloris_connected": len(slow),
        "slowloris_open_after_hold": slow_open}


async def _health_during_hold(target: "ServiceHandle", tally: Tally) -> None:
    try:
        async with http_client(timeout_s=10.0) as http:
            response = await http.get(target.health_url, headers=target.headers)
    except httpx.HTTPError as err:
        tally.add("crash", "hold.health", f"{type(err).__name__}: {err}")
        return
    status = response.status_code
    outcome = "ok" if status == 200 else "clean" if status in SHED else "5xx" if status >= 500 else "unclear"
    tally.add(outcome, "hold.health", f"HTTP {status}")
