"""Which stored entry records which conversation turn: the matching attribution and the run browser share.

An entry records a turn when its tags name it (session_id + turn_index), else when its text holds the turn's
opening words or most of its content words (scoring/attribution.py's WRITE_MATCH says the same to readers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarker.log.lines import DecisionLine

PREFIX_CHARS = 200
MIN_TEXT_CHARS = 20       # shorter texts ("Thanks!") match too much to count as evidence of anything
WORD_SHARE = 0.5
_WORD = re.compile(r"[^\W_]{3,}")
_WHOLE = re.compile(r"-?[0-9]{1,18}", re.ASCII)
_STOP = frozenset("the and for that this with you your are was were have has had not but can will would could "
                  "should what when where which who how about into from they them their there then than also just "
                  "like some any all our out its it's i'm i've don't".split())


def turn_number(value: Any) -> int | None:
    """A turn index as a whole number, or None for anything else ("x", null, 1.5, true, "²": a damaged line is
    skipped, never a traceback; `"²".isdigit()` is true but int() refuses it)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        return int(value)
    return None


def fold(text: Any) -> str:
    """Case- and whitespace-folded text, the form every containment test compares."""
    return " ".join(str(text or "").casefold().split())


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in _STOP}


@dataclass
class Write:
    """One stored entry (an add_entry that did not fail), as decisions.jsonl logged it."""

    session_id: str | None
    turn: int | None
    raw_entry: str
    summary: str
    tagged: tuple[str, int] | None  # the (session, turn) its tags name

    @classmethod
    def of(cls, decision: DecisionLine) -> Write:
        args = decision.get("args") or {}
        tags = raw_tags if isinstance(raw_tags := args.get("tags"), dict) else {}
        tagged = None
        turn = turn_number(tags.get("turn_index"))
        if tags.get("session_id") is not None and turn is not None:
            tagged = (str(tags["session_id"]), turn)
        raw = args.get("raw_entry") or args.get("rawEntry")
        if raw is None:  # a mapped server's write: every text argument is the entry
            raw = " ".join(str(v) for k, v in args.items() if isinstance(v, str) and k not in ("vault_id", "memory_id"))
        return cls(session_id=decision.get("session_id"), turn=decision.get("turn"), raw_entry=str(raw or ""),
                   summary=str(args.get("summary") or ""), tagged=tagged)

    def covers(self, session_id: str, turn_index: int, text: str) -> str | None:
        """How this entry records the turn ("tags", "text", "words"), or None."""
        if self.tagged == (session_id, turn_index):
            return "tags"
        # Tags are the harness's guess when one agent turn holds several messages: the text can still say which.
        session = self.tagged[0] if self.tagged else self.session_id
        if session is not None and str(session) != session_id:
            return None
        body = fold(self.raw_entry + " " + self.summary)
        turn_text = fold(text)
        if len(turn_text) >= MIN_TEXT_CHARS and turn_text[:PREFIX_CHARS] in body:
            return "text"
        words = content_words(text)
        if len(words) >= 3 and len(words & content_words(body)) >= WORD_SHARE * len(words):
            return "words"
        return None
