"""Concurrent writers and the check that every acknowledged write is listed and searchable.

A write is acknowledged when add_entry answered "enqueued" without isError. Each entry carries
a unique token word, so listing finds it by text and a keyword search for the token must rank
it first (or near). Used by group 3 (writers racing) and group 4 (writers killed with SIGKILL).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.fuzz.outcome import Tally
from bench.fuzz.target import ServiceHandle, mcp_session, tool_text

TOKEN = re.compile(r"\btok[0-9a-f]{12}\b")
PAGE = 50  # list_entries' maximum limit


@dataclass(frozen=True)
class Write:
    vault_id: str
    memory_id: str
    token: str


@dataclass
class WriteLog:
    """What writers did: acknowledged writes, refusals, and failures (the service broke or was killed)."""

    acked: list[Write] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


async def call_json(session: Any, tool: str, **args: Any) -> Any:
    result = await session.call_tool(tool, args)
    text = tool_text(result)
    if result.isError:
        raise RuntimeError(f"{tool} failed: {text}")
    try:
        return json.loads(text)
    except ValueError:
        return text


async def new_memories(target: ServiceHandle, count: int, prefix: str) -> tuple[str, list[str]]:
    """A fresh vault holding `count` memories."""
    token = secrets.token_hex(3)
    async with mcp_session(target) as session:
        vault = (await call_json(session, "create_vault", title=f"{prefix}-{token}"))["vaultId"]
        memories = [(await call_json(session, "create_memory_in_vault", vault_id=vault, title=f"{prefix}-{token}-{i}",
                                     memory_type="NOTES"))["memoryId"] for i in range(count)]
    return vault, memories


async def writer(target: ServiceHandle, vault_id: str, memory_id: str, log: WriteLog, *, entries: int | None,
                 timeout_s: float = 30.0) -> None:
    """add_entry `entries` times (None: until the service fails, e.g. is killed)."""
    written = 0
    try:
        async with mcp_session(target, timeout_s) as session:
            while entries is None or written < entries:
                token = f"tok{secrets.token_hex(6)}"
                args = {"vault_id": vault_id, "memory_id": memory_id, "summary": f"note {token}",
                        "raw_entry": f"Writer note {written}: the keyword is {token}; the rest is filler text."}
                try:
                    result = await asyncio.wait_for(session.call_tool("add_entry", args), timeout_s)
                except Exception as err:  # the service went away (or was killed) mid-call: not acknowledged
                    log.failed.append((token, f"{type(err).__name__}: {err}"))
                    return
                written += 1
                if result.isError:
                    log.refused.append((token, tool_text(result)))
                else:
                    log.acked.append(Write(vault_id, memory_id, token))
    except Exception as err:  # opening or closing the session failed
        log.failed.append(("(session)", f"{type(err).__name__}: {err}"))


async def listed_tokens(session: Any, vault_id: str, memory_id: str) -> Counter[str]:
    """Every token in the memory's entries, by paging list_entries back to the oldest."""
    seen: Counter[str] = Counter()
    before = None
    while True:
        args: dict[str, Any] = {"vault_id": vault_id, "memory_id": memory_id, "limit": PAGE}
        if before:
            args["before"] = before
        page = await call_json(session, "list_entries", **args)
        for entry in page["entries"]:
            seen.update(TOKEN.findall(entry["rawEntry"]))
        before = page.get("next_before")
        if not before or not page["entries"]:
            return seen


async def searchable(session: Any, write: Write, *, retry_s: float = 0.0) -> bool:
    """A keyword search for the token finds its entry (retried for `retry_s` while the index lags)."""
    deadline = asyncio.get_running_loop().time() + retry_s
    while True:
        hits = await call_json(session, "search_memories", memory_id=write.memory_id, query=write.token, top_k=5)
        if any(write.token in hit["rawEntry"] for hit in hits["entries"]):
            return True
        if asyncio.get_running_loop().time() >= deadline:
            return False
        await asyncio.sleep(0.2)


async def check(target: ServiceHandle, acked: list[Write], *, search: bool = True, retry_s: float = 0.0,
                readers: int = 4) -> tuple[dict[str, str], Counter[str]]:
    """{token: "" if present (and searchable) else why not}, and every token the memories list."""
    memories = sorted({(w.vault_id, w.memory_id) for w in acked})
    listed: Counter[str] = Counter()
    async with mcp_session(target) as session:
        for vault_id, memory_id in memories:
            await call_json(session, "await_consistency", memory_id=memory_id)
            listed += await listed_tokens(session, vault_id, memory_id)
    status = {w.token: "" if listed[w.token] else "not listed" for w in acked}
    if search:
        pending = [w for w in acked if not status[w.token]]

        async def reader(part: list[Write]) -> None:
            async with mcp_session(target) as session:
                for write in part:
                    if not await searchable(session, write, retry_s=retry_s):
                        status[write.token] = "listed but not searchable"

        await asyncio.gather(*(reader(pending[i::readers]) for i in range(readers)))
    return status, listed


def count_checked(tally: Tally, label: str, status: dict[str, str]) -> None:
    for token, problem in status.items():
        tally.add("lost" if problem else "ok", label, f"{token}: {problem}" if problem else "")


async def run(target: ServiceHandle, tally: Tally, *, writers: int = 16, entries: int = 100) -> Tally:
    """Group 3: `writers` sessions racing on one memory, then one memory each; nothing acked may be lost."""
    loop = asyncio.get_running_loop()
    for phase, spread in (("one-memory", False), ("across-memories", True)):
        vault, memories = await new_memories(target, writers if spread else 1, f"fz{phase}")
        log = WriteLog()
        started = loop.time()
        await asyncio.gather(*(writer(target, vault, memories[i % len(memories)], log, entries=entries)
                               for i in range(writers)))
        seconds = loop.time() - started
        for token, text in log.refused:
            tally.add("wrong", f"{phase}.add_entry", f"{token}: refused: {text}")
        for token, text in log.failed:
            tally.add("crash", f"{phase}.add_entry", f"{token}: {text}")
        status, listed = await check(target, log.acked)
        count_checked(tally, f"{phase}.acknowledged", status)
        tally.extra[phase] = {"writers": writers, "memories": len(memories), "entries_per_writer": entries,
                              "acknowledged": len(log.acked), "write_s": round(seconds, 2),
                              "writes_per_s": round(len(log.acked) / seconds, 1) if seconds else None,
                              "duplicates": sum(1 for n in listed.values() if n > 1)}
    return tally
