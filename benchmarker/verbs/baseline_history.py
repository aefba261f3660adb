"""The full-context baseline's reader context: a case's whole history, every session in date order with its
date, cut to `[baselines] full_context_tokens` by dropping the oldest sessions first.

The history is rebuilt from the dataset the run recorded (its manifest's config: the same file, or the sample
suite's data regenerated into RUN_DIR/data), so it is the material the memory agent was given. Each message
is one line in the form the harness stores a message (`[session date] speaker: text`, as the oracle reader
sees its evidence), so the offline reader reads it like retrieved entries. Tokens are cl100k_base
(`benchmarker.token_count`), counted once per session, so a LoCoMo conversation's 300 turns are encoded
once for all of its questions, and every question of one case gets the byte-identical history: the
cacheable prefix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from benchmarker.datasets.schema import Case, Session
from benchmarker.token_count import count_tokens

if TYPE_CHECKING:
    from benchmarker.verbs.rescore import CaseRebuild


class HistoryCut(TypedDict):
    """A baseline answers line's `history_cut`: how much of the case's history the reader lost."""

    sessions: int
    sessions_dropped: int
    messages_dropped: int
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class History:
    """One case's history as the full-context reader sees it, and how it was cut."""

    text: str
    sessions: int            # sessions in the case
    sessions_dropped: int    # the oldest ones left out to fit the budget
    tokens_before: int       # the whole history (every session)
    tokens_after: int        # what the reader got (the text above)
    messages_dropped: int = 0  # the newest session alone was over the budget: its oldest messages left out

    def cut(self) -> HistoryCut:
        """What an answers line records of the cut."""
        return {"sessions": self.sessions, "sessions_dropped": self.sessions_dropped,
                "messages_dropped": self.messages_dropped, "tokens_before": self.tokens_before,
                "tokens_after": self.tokens_after}


def session_text(session: Session, index: int, total: int, skip: int = 0) -> str:
    header = f"--- session {index} of {total} ({session.date or 'date unknown'}) ---"
    return "\n".join([header, *(f"[{session.date}] {m.role}: {m.content}" for m in session.messages[skip:])])


def _join(blocks: list[str], dropped: int, total: int, limit: int) -> str:
    note = [f"({dropped} older session(s) of {total} left out to fit {limit:,} tokens)"] if dropped else []
    return "\n\n".join(note + blocks[dropped:])


def build_history(case: Case, limit: int) -> History:
    """Every session oldest first; while over `limit` tokens the oldest session is dropped (whole sessions),
    a note at the start saying how many; if the newest alone is over, its oldest messages go the same way."""
    total = len(case.sessions)
    blocks = [session_text(s, i, total) for i, s in enumerate(case.sessions, start=1)]
    sizes = [count_tokens(b) for b in blocks]
    whole = "\n\n".join(blocks)
    before = count_tokens(whole)
    dropped, used = 0, sum(sizes)
    while dropped < total - 1 and used > limit:  # per-session counts pick the cut; the exact count checks it
        used -= sizes[dropped]
        dropped += 1
    text = whole if dropped == 0 else _join(blocks, dropped, total, limit)
    while dropped < total - 1 and count_tokens(text) > limit:  # the joins and the note tipped it over
        dropped += 1
        text = _join(blocks, dropped, total, limit)
    skipped = 0
    if total and count_tokens(text) > limit:  # per-message counts pick the cut, the exact count checks it
        last = case.sessions[-1]
        excess = count_tokens(text) - limit
        sizes = [count_tokens(f"[{last.date}] {m.role}: {m.content}") for m in last.messages]
        while skipped < len(sizes) - 1 and excess > 0:
            excess -= sizes[skipped]
            skipped += 1
        while True:
            blocks[-1] = session_text(last, total, total, skipped)
            text = _join(blocks, dropped, total, limit)
            if skipped >= len(last.messages) or count_tokens(text) <= limit:
                break
            skipped += 1
    return History(text, total, dropped, before, count_tokens(text), skipped)


def history_cases(rebuild: CaseRebuild, run_dir: Path, case_ids: Iterable[str]) -> dict[str, Case]:
    """The run's cases (its sessions) by id, rebuilt from the dataset its config names."""
    from benchmarker.verbs.rescore import cases_named

    return cases_named(rebuild, run_dir, set(case_ids), "baselines")
