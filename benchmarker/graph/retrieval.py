"""The reader's context at QA time: the memory's contexts and the ranked hits, with session dates.

Waiting for the index, searching and mapping hits back to sessions and turns is the memory
driver's (memory/drivers/); this builds what the reader sees from what search returned.
"""

from __future__ import annotations

from typing import Any

from benchmarker.memory.placeholder import is_placeholder_context


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
