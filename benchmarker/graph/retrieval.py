"""Retrieval at QA time: wait for the index, search, map hits back to sessions and turns, build context.

Against a server whose search hits carry no tags (a real Mycelian stack may not return them),
entry ids are mapped back through list_entries, whose entries do carry the harness's tags.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from benchmarker.graph.context import RunContext

PREVIEW_CHARS = 300


def _placeholder_texts() -> tuple[str, ...]:
    try:
        from benchmarker.memory.service.settings import PLACEHOLDER_CONTEXT
        return (PLACEHOLDER_CONTEXT.strip(),)
    except ImportError:  # pragma: no cover - the service package ships with the harness
        return ()


PLACEHOLDER_MARKERS = ("this is default context",)


def is_placeholder_context(text: str | None) -> bool:
    """Mycelian seeds new memories with a placeholder context; it must never reach the reader."""
    if not text or not text.strip():
        return True
    stripped = text.strip()
    if stripped in _placeholder_texts() or stripped in ("{}", "null"):
        return True
    lowered = stripped.lower()
    return any(marker in lowered for marker in PLACEHOLDER_MARKERS)


async def wait_until_searchable(ctx: RunContext, vault_id: str, memory_id: str, timeout_s: float) -> bool:
    """await_consistency, then poll until the newest entry is searchable (an index may lag)."""
    await ctx.client.await_consistency(memory_id)
    newest = await ctx.client.call_json("list_entries", {"vault_id": vault_id, "memory_id": memory_id, "limit": 1})
    entries = newest.get("entries") or []
    if not entries:
        return True
    target = entries[0]
    query = (target.get("summary") or target.get("rawEntry") or "")[:200]
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        found = await ctx.client.search(memory_id, query, top_k=100, alpha=ctx.search.alpha)
        if any(hit.get("entryId") == target.get("entryId") for hit in found.get("entries") or []):
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


async def entry_tag_index(ctx: RunContext, vault_id: str, memory_id: str) -> dict[str, dict[str, Any]]:
    """entryId -> tags, for servers whose search hits do not echo tags."""
    entries = await ctx.client.list_all_entries(vault_id, memory_id)
    return {e["entryId"]: _as_dict(e.get("tags")) for e in entries if e.get("entryId")}


def _as_dict(tags: Any) -> dict[str, Any]:
    if isinstance(tags, dict):
        return tags
    if isinstance(tags, str) and tags.strip().startswith("{"):
        try:
            return json.loads(tags)
        except json.JSONDecodeError:
            return {}
    return {}


async def map_hits(ctx: RunContext, vault_id: str, memory_id: str, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ranked hits in the results.jsonl shape, with session id / date / turn / role from tags."""
    index: dict[str, dict[str, Any]] | None = None
    mapped = []
    for rank, hit in enumerate(hits, start=1):
        tags = _as_dict(hit.get("tags"))
        if "session_id" not in tags:
            if index is None:
                index = await entry_tag_index(ctx, vault_id, memory_id)
            tags = index.get(hit.get("entryId", ""), {})
        turn = tags.get("turn_index")
        mapped.append({
            "entry_id": hit.get("entryId"),
            "score": hit.get("score"),
            "rank": rank,
            "session_id": tags.get("session_id"),
            "session_date": tags.get("session_date"),
            "turn_index": int(turn) if isinstance(turn, (int, float, str)) and str(turn).lstrip("-").isdigit() else None,
            "role": tags.get("role"),
            "summary": hit.get("summary") or "",
            "raw_preview": (hit.get("rawEntry") or "")[:PREVIEW_CHARS],
            "raw_entry": hit.get("rawEntry") or "",
        })
    return mapped


def build_context(search_result: dict[str, Any], hits: list[dict[str, Any]], max_chars: int) -> str:
    """latestContext + bestContext (when different) + top-K entries with their session dates."""
    parts: list[str] = []
    latest = search_result.get("latestContext")
    best = search_result.get("bestContext")
    if not is_placeholder_context(latest):
        stamp = search_result.get("contextTimestamp") or ""
        parts.append(f"## Memory context (latest{', saved ' + stamp if stamp else ''})\n{(latest or '').strip()}")
    if not is_placeholder_context(best) and (best or "").strip() != (latest or "").strip():
        stamp = search_result.get("bestContextTimestamp") or ""
        parts.append(f"## Most relevant earlier context{' (saved ' + stamp + ')' if stamp else ''}\n{(best or '').strip()}")
    lines = []
    for hit in hits:
        date = hit.get("session_date") or "unknown date"
        role = hit.get("role") or "unknown"
        text = (hit.get("raw_entry") or hit.get("summary") or "").strip()
        lines.append(f"[{hit['rank']}] (session date: {date}; {role}) {text}")
    if lines:
        parts.append("## Retrieved memory entries (most relevant first)\n" + "\n".join(lines))
    context = "\n\n".join(parts) if parts else "(memory returned nothing)"
    if len(context) > max_chars:
        context = context[:max_chars].rsplit("\n", 1)[0] + "\n[... context truncated ...]"
    return context
