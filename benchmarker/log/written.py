"""What the memory agent wrote, read from its logged tool calls (decisions.jsonl / DecisionRecords).

An ingestion turn's "extracted output" for the online judge is the entries it added: each
`add_entry`'s summary (else its raw text), in order; context documents (`put_context`) are the
agent's notes about the conversation, not entries, and are left out. Harness events (tools whose
name starts with `_`) and failed calls wrote nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

WRITE_TOOL = "add_entry"


def written_texts(calls: Iterable[Any]) -> list[str]:
    """The text of every successful `add_entry` among `calls` (DecisionRecords or their JSON lines)."""
    out: list[str] = []
    for call in calls:
        tool = call.get("tool") if isinstance(call, dict) else call.tool
        error = call.get("error") if isinstance(call, dict) else call.error
        args = (call.get("args") if isinstance(call, dict) else call.args) or {}
        if tool != WRITE_TOOL or error:
            continue
        text = args.get("summary") or args.get("raw_entry") or args.get("rawEntry") or ""
        if str(text).strip():
            out.append(str(text).strip())
    return out
