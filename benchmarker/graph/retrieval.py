"""The reader's context at QA time: the memory's contexts and the ranked hits, with session dates.

Waiting for the index, searching and mapping hits back to sessions and turns is the memory
driver's (memory/drivers/); this builds what the reader sees from what search returned.
"""

from __future__ import annotations

from benchmarker.log.lines import Json
from benchmarker.memory.placeholder import is_placeholder_context


def build_context(search_result: dict[str, Json], hits: list[dict[str, Json]], max_chars: int) -> str:
    """latestContext + bestContext (when different) + top-K entries with their session dates."""
    parts: list[str] = []
    latest = _text(search_result.get("latestContext"))
    best = _text(search_result.get("bestContext"))
    if not is_placeholder_context(latest):
        stamp = _text(search_result.get("contextTimestamp")) or ""
        parts.append(f"## Memory context (latest{', saved ' + stamp if stamp else ''})\n{(latest or '').strip()}")
    if not is_placeholder_context(best) and (best or "").strip() != (latest or "").strip():
        stamp = _text(search_result.get("bestContextTimestamp")) or ""
        parts.append(f"## Most relevant earlier context{' (saved ' + stamp + ')' if stamp else ''}\n{(best or '').strip()}")
    lines = []
    for hit in hits:
        date = hit.get("session_date") or "unknown date"
        role = hit.get("role") or "unknown"
        text = (_text(hit.get("raw_entry")) or _text(hit.get("summary")) or "").strip()
        lines.append(f"[{hit['rank']}] (session date: {date}; {role}) {text}")
    if lines:
        parts.append("## Retrieved memory entries (most relevant first)\n" + "\n".join(lines))
    context = "\n\n".join(parts) if parts else "(memory returned nothing)"
    if len(context) > max_chars:
        context = context[:max_chars].rsplit("\n", 1)[0] + "\n[... context truncated ...]"
    return context


def _text(value: Json) -> str | None:
    """A text field of the server's reply; anything else (absent, null) is no text."""
    return value if isinstance(value, str) else None
