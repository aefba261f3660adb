"""How one dataset message becomes one memory entry when the harness writes it itself (retrieval
mode): dated and attributed, cut to Mycelian's limits."""

from __future__ import annotations

from benchmarker.datasets.schema import Message, Session
from benchmarker.memory.limits import RAW_ENTRY_CHARS, SUMMARY_CHARS
from benchmarker.redact import clean_cut


def entry_text(session: Session, message: Message) -> tuple[str, str]:
    """(raw_entry, summary) of one message."""
    # Cut before a credential, never inside one: what stores or writes the entry then masks it whole.
    raw = clean_cut(f"[{session.date}] {message.role}: {message.content}", RAW_ENTRY_CHARS)
    return raw, clean_cut(raw, SUMMARY_CHARS)
