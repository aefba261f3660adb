"""A provider's results file read line by line: every good line kept, a damaged one named in a warning and
skipped (only its own request is sent again); a provider's error as one masked line."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TypeVar, cast

from benchmarker.agent.batch.protocol import BatchReply
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Json
from benchmarker.redact import redact

log = logging.getLogger(__name__)
Row = TypeVar("Row")   # one provider's result line (wire.py)


def error_text(error: object) -> str:
    """A provider's error as one line, masked before it is encoded: a credential in it holding `"`, `\\` or
    non-ASCII would otherwise reach errors.jsonl escaped, where masking no longer recognises it."""
    return json.dumps(redact(error, keys=False), ensure_ascii=False)


def results_rows(text: str, source: str, key: str = "custom_id") -> list[tuple[int, dict[str, Json]]]:
    """A provider's results file, every good line kept with its line number: a damaged line (not JSON,
    or without the request's id) is named in a warning and skipped, so only its own request goes without
    an answer (and is sent again), not the whole batch."""
    rows: list[tuple[int, dict[str, Json]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = load_json(line)
        except json.JSONDecodeError as err:
            log.warning("%s line %d: not valid JSON (%s); skipped: its request is sent again", source, number, err.msg)
            continue
        if not isinstance(row, dict) or not isinstance(row.get(key), str):
            log.warning("%s line %d: no %s; skipped: its request is sent again", source, number, key)
            continue
        rows.append((number, row))
    return rows


def good_replies(text: str, source: str, reply: Callable[[Row], BatchReply],
             key: str = "custom_id") -> list[BatchReply]:
    """Each good line of a results file as a reply. A line of the wrong shape (a string where an object
    belongs, a token count that is no number) is named and skipped like a line that is not JSON: one
    bad line must not throw away the batch's other answers (the next run would pay for all of them)."""
    replies = []
    for number, row in results_rows(text, source, key):
        try:
            replies.append(reply(cast(Row, row)))   # of this shape, or it raises and is skipped below
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as err:
            log.warning("%s line %d: not a result of the expected shape (%s: %s); skipped: its request is sent "
                        "again", source, number, type(err).__name__, str(err)[:200])
    return replies
