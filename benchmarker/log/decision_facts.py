"""The few keys of decisions.jsonl that run-level figures read, without the texts written.

The summary's speed block (tool latency by tool) and the validity verdict (failed searches and
writes) read every line of decisions.jsonl, but never the arguments or result previews: on a
LongMemEval_S-size retrieval run those are ~700 MB (each of 275,000 writes carries its message
twice), and holding every parsed line made the harness peak at 3.5 GB at the end of a 500-question
run. A fact line keeps six small values, with the repeated strings shared.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.lines import DecisionLine

FACT_KEYS = ("case_id", "question_id", "caller", "tool", "latency_ms", "error")
_SHARED = ("case_id", "question_id", "caller", "tool")  # few distinct values, repeated on every line


def decision_facts(path: Path) -> Iterator[DecisionLine]:
    """Each decisions.jsonl line (read one at a time) as its FACT_KEYS that are set."""
    for line in read_jsonl(path):
        fact: dict[str, str | float] = {}  # ids, caller and tool, error text; latency_ms
        for key in FACT_KEYS:
            value = line.get(key)
            if value is None:
                continue
            fact[key] = sys.intern(value) if key in _SHARED and isinstance(value, str) else value
        yield cast(DecisionLine, fact)
