"""Group 1: bad tool calls over every MCP tool, through the real SDK client (raw JSON-RPC when it can't).

The tools are discovered with list_tools and the cases generated from their schemas
(tool_cases.py). A refusal must be an isError result naming the argument; a tricky-but-valid
value must be accepted and read back verbatim. When the SDK path fails outright, the same case
is replayed on raw JSON-RPC to see what the server answered (a 5xx, or nothing: a crash).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from contextlib import AsyncExitStack
from typing import Any

import anyio
import httpx
from mcp.shared.exceptions import McpError
from mcp.types import INTERNAL_ERROR

from bench.fuzz.outcome import Tally
from bench.fuzz.rawmcp import RawMcp, rpc_body
from bench.fuzz.target import ServiceHandle, mcp_session, tool_text
from bench.fuzz.tool_cases import RawJson, ToolCase, all_cases, encode


class Clients:
    """The SDK session and the raw session, reopened together after a failure."""

    def __init__(self, target: ServiceHandle, timeout_s: float):
        self.target, self.timeout_s = target, timeout_s
        self.stack: AsyncExitStack | None = None
        self.sdk: Any = None
        self.raw: RawMcp | None = None
        self.broken: list[str] = []  # cases after which the SDK session had to be reopened

    async def open(self) -> None:
        self.stack = AsyncExitStack()
        self.sdk = await self.stack.enter_async_context(mcp_session(self.target, self.timeout_s))
        self.raw = RawMcp(self.target, self.timeout_s)
        await self.raw.open()

    async def close(self) -> None:
        if self.raw is not None:
            await self.raw.close()
        if self.stack is not None:
            try:
                await self.stack.aclose()
            except Exception:  # a session torn down by a failed request may fail to close; that was counted
                pass
        self.stack = self.sdk = self.raw = None

    async def reopen(self) -> None:
        await self.close()
        self.target.revive()
        await self.open()


async def text_call(session: Any, tool: str, **args: Any) -> str:
    """A call that must succeed (fixtures, read-backs): its text."""
    result = await session.call_tool(tool, args)
    text = tool_text(result)
    if result.isError:
        raise RuntimeError(f"fixture call {tool} failed: {text}")
    return text


async def ok_call(session: Any, tool: str, **args: Any) -> Any:
    """A call that must succeed and answers JSON."""
    return json.loads(await text_call(session, tool, **args))


async def fixtures(session: Any, token: str) -> dict[str, str]:
    """A vault with two memories (one entry each) and a second vault: the valid ids cases build on."""
    vault = (await ok_call(session, "create_vault", title=f"fz{token}-main"))["vaultId"]
    other_vault = (await ok_call(session, "create_vault", title=f"fz{token}-other"))["vaultId"]
    memories = []
    for title in ("m1", "m2"):
        memory = (await ok_call(session, "create_memory_in_vault", vault_id=vault, title=f"fz{token}-{title}",
                                memory_type="NOTES"))["memoryId"]
        await text_call(session, "add_entry", vault_id=vault, memory_id=memory, raw_entry="fixture", summary="fixture")
        memories.append(memory)
    listed = await ok_call(session, "list_entries", vault_id=vault, memory_id=memories[0], limit=1)
    return {"vault_id": vault, "memory_id": memories[0], "entry_id": listed["entries"][0]["entryId"],
            "other_vault_id": other_vault, "other_memory_id": memories[1]}


def judge(case: ToolCase, is_error: bool, text: str) -> tuple[str, str]:
    """(outcome, detail) of an answered call."""
    if case.expect == "reject":
        if not is_error:
            return "accepted", f"answered {text[:120]!r}"
        return ("clean", "") if case.names in text else ("unclear", f"error does not name {case.names!r}: {text}")
    return ("wrong", f"refused: {text}") if is_error else ("ok", "")


def judge_raw(case: ToolCase, response: httpx.Response) -> tuple[str, str]:
    status = response.status_code
    if status >= 500:
        return "5xx", f"HTTP {status}: {response.text[:160]}"
    if status >= 400:
        return ("clean", "") if case.expect == "reject" else ("wrong", f"HTTP {status}")
    body = rpc_body(response) or {}
    if "error" in body:
        error = body["error"] if isinstance(body["error"], dict) else {}
        if error.get("code") == INTERNAL_ERROR:
            return "5xx", f"JSON-RPC internal error: {error.get('message')}"
        return judge(case, True, str(error.get("message", "")))
    result = body.get("result")
    if not isinstance(result, dict):
        return "unclear", f"HTTP {status} without a JSON-RPC result: {response.text[:160]}"
    text = "".join(c.get("text", "") for c in result.get("content", []) if isinstance(c, dict))
    return judge(case, bool(result.get("isError")), text)


async def read_back(session: Any, case: ToolCase, text: str) -> str | None:
    """Where the stored value differs from the one sent (None: verbatim)."""
    args = case.args
    assert isinstance(args, dict)
    if case.tool == "add_entry":
        newest = (await ok_call(session, "list_entries", vault_id=args["vault_id"], memory_id=args["memory_id"],
                                limit=1))["entries"][0]
        got = {"raw_entry": newest["rawEntry"], "summary": newest["summary"], "tags": newest["tags"]}
        sent = {"raw_entry": args["raw_entry"], "summary": args["summary"], "tags": args.get("tags") or {}}
    elif case.tool == "add_entries":
        count = len(args["entries"])
        newest = (await ok_call(session, "list_entries", vault_id=args["vault_id"], memory_id=args["memory_id"],
                                limit=count))["entries"]
        got = {"entries": [{"raw_entry": e["rawEntry"], "summary": e["summary"], "tags": e["tags"]}
                           for e in reversed(newest)]}
        sent = {"entries": [{"raw_entry": e["raw_entry"], "summary": e["summary"], "tags": e.get("tags") or {}}
                            for e in args["entries"]]}
    elif case.tool in ("create_vault", "create_memory_in_vault"):
        stored = json.loads(text)
        got = {"description": stored.get("description"), "memory_type": stored.get("memoryType")}
        sent = {"description": args.get("description") or "", "memory_type": args.get("memory_type")}
        if case.tool == "create_vault":
            got.pop("memory_type"), sent.pop("memory_type")
    elif case.tool == "put_context":
        ids = {"vault_id": args["vault_id"], "memory_id": args["memory_id"]}
        got = {"content": await text_call(session, "get_context", **ids)}
        sent = {"content": args["content"]}
    else:
        return None
    diff = [f"{k}: sent {sent[k]!r:.60} stored {got[k]!r:.60}" for k in sent if got[k] != sent[k]]
    return "; ".join(diff) or None


async def run_case(clients: Clients, case: ToolCase, timeout_s: float) -> tuple[str, str]:
    """Send one case and judge it; transport failures are replayed raw to tell a 5xx from a crash."""
    if case.raw or isinstance(case.args, RawJson):
        return await _raw_case(clients, case, timeout_s)
    try:
        with anyio.fail_after(timeout_s):
            result = await clients.sdk.call_tool(case.tool, case.args)
    except McpError as err:
        if err.error.code == INTERNAL_ERROR:
            return "5xx", f"JSON-RPC internal error: {err.error.message}"
        return judge(case, True, err.error.message)
    except Exception as err:  # the session broke: find out what the server said to this exact call
        clients.broken.append(f"{case.label}: {type(err).__name__}: {err}"[:200])
        await clients.reopen()
        outcome, detail = await _raw_case(clients, case, timeout_s)
        return outcome, f"SDK call failed ({type(err).__name__}); raw replay: {detail or outcome}"
    text = tool_text(result)
    outcome, detail = judge(case, bool(result.isError), text)
    if outcome == "ok" and case.verbatim:
        mismatch = await read_back(clients.sdk, case, text)
        if mismatch:
            return "wrong", f"not stored verbatim: {mismatch}"
    return outcome, detail


async def _raw_case(clients: Clients, case: ToolCase, timeout_s: float) -> tuple[str, str]:
    assert clients.raw is not None
    try:
        with anyio.fail_after(timeout_s):
            response = await clients.raw.call_tool(case.tool, encode(case.args))
    except (httpx.HTTPError, TimeoutError) as err:
        alive = await clients.target.healthy()
        await clients.reopen()
        return "crash", f"{type(err).__name__}: {err} (service {'still up' if alive else 'down'})"
    return judge_raw(case, response)


async def run(target: ServiceHandle, tally: Tally, *, timeout_s: float = 30.0, workers: int = 3) -> Tally:
    """Every generated case once: `workers` sessions share the refusals, then the verbatim checks
    run alone (each reads back "the newest entry", which a concurrent accepted call would change)."""
    token = secrets.token_hex(3)
    async with mcp_session(target, timeout_s) as session:
        listed = await session.list_tools()
        ids = await fixtures(session, token)
    cases = all_cases([(t.name, t.inputSchema) for t in listed.tools], ids, token)
    tally.extra.update(tools=len(listed.tools), cases=len(cases), raw_json_cases=sum(1 for c in cases if c.raw))
    shared = [c for c in cases if not c.verbatim]
    await asyncio.gather(*(_work(target, shared[i::workers], tally, timeout_s) for i in range(workers)))
    await _work(target, [c for c in cases if c.verbatim], tally, timeout_s)
    tally.extra["service_restarts"] = target.restarts
    return tally


async def _work(target: ServiceHandle, cases: list[ToolCase], tally: Tally, timeout_s: float) -> None:
    """One worker: its own sessions, opened and closed in this task (anyio's cancel scopes insist)."""
    clients = Clients(target, timeout_s)
    await clients.open()
    try:
        for case in cases:
            outcome, detail = await run_case(clients, case, timeout_s)
            tally.add(outcome, case.label, detail)
    finally:
        await clients.close()
        tally.extra.setdefault("sdk_session_broken_by", []).extend(clients.broken)
