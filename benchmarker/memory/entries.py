"""How one dataset message becomes one memory entry when the harness writes it itself (retrieval
mode): dated and attributed, cut to Mycelian's limits."""

from __future__ import annotations

from benchmarker.datasets.schema import Message, Session
from benchmarker.memory.limits import RAW_ENTRY_CHARS, SUMMARY_CHARS


def entry_text(session: Session, message: Message) -> tuple[str, str]:
    """(raw_entry, summary) of one message."""
    raw = f"[{session.date}] {message.role}: {message.content}"[:RAW_ENTRY_CHARS]
    return raw, raw[:SUMMARY_CHARS]
