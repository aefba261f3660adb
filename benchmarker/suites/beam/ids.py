"""What a BEAM id may look like: conversation ids, evidence message ids and 10M plan keys, checked strictly.

Each check turns a hostile value into one DatasetError naming where it is, instead of a traceback or a
silent loss: `"²".isdigit()` is true but `int("²")` raises, `int()` refuses more than 4,300 digits, and a
100,000-character conversation id is copied into every question id, session id and line of a run (a
10-question run took 64 s instead of 4 s). Two rows with one conversation id used to merge into one case
that answered half the questions the estimate counted.
"""

from __future__ import annotations

import re
from typing import Any

from benchmarker.errors import DatasetError

MAX_CONVERSATION_ID = 200   # characters; BEAM's own ids are 1..20, a Hugging Face export's a few dozen
MAX_ID_DIGITS = 18          # a message id or plan number past this is no id (and int() would refuse 4,301)
_DIGITS = re.compile(rf"[0-9]{{1,{MAX_ID_DIGITS}}}", re.ASCII)
_PLAN_KEY = re.compile(r"plan-([0-9]+)", re.ASCII)


def conversation_id(value: Any, where: str) -> str:
    """A row's `conversation_id` (a string or a whole number) as text, at most MAX_CONVERSATION_ID long."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DatasetError(f"{where}: field `conversation_id` must be a string or a whole number, "
                           f"got {type(value).__name__}")
    text = str(value)
    if not text.strip():
        raise DatasetError(f"{where}: field `conversation_id` is empty")
    if len(text) > MAX_CONVERSATION_ID:
        raise DatasetError(f"{where}: field `conversation_id` is {len(text):,} characters long "
                           f"({text[:20]!r}...); at most {MAX_CONVERSATION_ID} are allowed")
    return text


class SeenConversations:
    """Where each conversation id was first read, so that a second row with it is refused naming both."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}

    def add(self, cid: str, where: str, first_label: str) -> None:
        """Record `cid` read at `where` (`first_label`: how a later duplicate names this place)."""
        if cid in self.first:
            raise DatasetError(f"{where}: conversation_id {cid!r} is also {self.first[cid]}'s; each conversation "
                               f"must appear once (two rows with one id would be run as one conversation)")
        self.first[cid] = first_label

    def __contains__(self, cid: object) -> bool:
        return cid in self.first

    def ids(self) -> set[str]:
        return set(self.first)


def whole_number(text: str) -> int | None:
    """`text` as a message id when it is 1 to MAX_ID_DIGITS ASCII digits (spaces around allowed), else None."""
    stripped = text.strip()
    return int(stripped) if _DIGITS.fullmatch(stripped) else None


def evidence_id(value: str, where: str) -> int:
    """A `source_chat_ids` entry given as a string: ASCII digits, else one line naming the field."""
    number = whole_number(value)
    if number is None:
        raise DatasetError(f"{where}: field `source_chat_ids` holds {value[:40]!r}: expected message ids "
                           f"(whole numbers of up to {MAX_ID_DIGITS} ASCII digits)")
    return number


def plan_number(key: Any, where: str) -> int | None:
    """The k of a 10M `plan-k` key; None for any other key; one line for a plan key with too many digits."""
    found = _PLAN_KEY.fullmatch(key) if isinstance(key, str) else None
    if found is None:
        return None
    number = whole_number(found.group(1))
    if number is None:
        raise DatasetError(f"{where}: plan key `{key[:24]}...` has {len(found.group(1)):,} digits; expected "
                           f"plan-<n> with at most {MAX_ID_DIGITS}")
    return number
