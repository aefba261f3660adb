"""One case's tool calls out of decisions.jsonl (250 MB on a real run): found by the byte-offset index of
its lines, never by reading the file whole, and only the first TIMELINE lines and the writes parsed."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.scoring.attribution import WRITE_TOOLS, Write, case_writes
from benchmarker.view.lines import Indexes, decision_lines, parse

TIMELINE = 500
CACHED_CASES = 16  # a LoCoMo run has 10 conversations
_WRITE_MARKS = tuple(f'"{tool}"'.encode() for tool in WRITE_TOOLS)


@dataclass
class CaseCalls:
    timeline: list[dict[str, Any]] = field(default_factory=list)
    more: int = 0  # calls left out of the timeline
    writes: list[Write] = field(default_factory=list)


class Decisions:
    """Case calls, the last few cases kept (a LoCoMo conversation's questions share one case)."""

    def __init__(self, indexes: Indexes):
        self._indexes = indexes
        self._cache: OrderedDict[tuple[Path, int, int, str], CaseCalls] = OrderedDict()
        self._lock = threading.Lock()

    def of_case(self, path: Path | None, case_id: str) -> CaseCalls:
        if path is None:
            return CaseCalls()
        try:
            st = os.stat(path)
        except OSError:
            return CaseCalls()
        key = (path, st.st_size, st.st_mtime_ns, case_id)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        calls = _read(self._indexes.keyed(path, "case_id").lines(case_id))
        with self._lock:
            self._cache[key] = calls
            while len(self._cache) > CACHED_CASES:
                self._cache.popitem(last=False)
        return calls


def _read(raws: list[bytes]) -> CaseCalls:
    timeline = [line for raw in raws[:TIMELINE] if (line := parse(raw)) is not None]
    writes = (line for raw in raws if any(m in raw for m in _WRITE_MARKS) and (line := parse(raw)) is not None)
    return CaseCalls(timeline, max(0, len(raws) - TIMELINE),
                     [w for ws in case_writes(decision_lines(writes)).values() for w in ws])
