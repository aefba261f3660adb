"""Lazy JSONL reading: one scan keeps each line's byte offset (and a few light fields), never the lines.

A file is scanned once; while a run appends to it, later reads scan only the new tail (same inode, not
shorter); a rewritten file is scanned again. An unterminated last line counts once it parses (a writer
mid-line leaves a torn one, skipped until it is whole); undecodable and blank lines are skipped.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarker.log.jsonl import lines_at, parse_object

parse = parse_object  # a torn or damaged line is skipped (None)


class _Tail:
    """The complete lines a file gained since the last `read` (all of them after a rewrite)."""

    def __init__(self, path: Path):
        self.path = path
        self._stamp: tuple[int, int, int, int] | None = None  # dev, inode, size, mtime
        self._end = 0

    def read(self) -> tuple[bool, Iterator[tuple[int, bytes]]]:
        """(whether the file was replaced, so earlier lines are void; the new (offset, line) pairs, read
        as they are consumed: the caller holds its lock until it has taken them all)."""
        try:
            st = os.stat(self.path)
        except OSError:
            replaced, self._stamp, self._end = self._stamp is not None, None, 0
            return replaced, iter(())
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return False, iter(())
        replaced = self._stamp is None or stamp[:2] != self._stamp[:2] or st.st_size < self._end
        if replaced:
            self._end = 0
        self._stamp = stamp
        return replaced, self._scan()

    def _scan(self) -> Iterator[tuple[int, bytes]]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self._end)
                offset = self._end
                for raw in f:
                    if not raw.endswith(b"\n") and parse(raw) is None:
                        break  # torn or still being written: read again next time
                    self._end = offset + len(raw)
                    if raw.strip():
                        yield offset, raw
                    offset = self._end
        except BaseException:
            # A scan that failed part-way leaves the stamp void, so the next read scans the whole file
            # again (a stored stamp showed "0 of 0 questions" until the file changed).
            self._stamp, self._end = None, 0
            raise


@dataclass(frozen=True)
class Row:
    """What the question list filters and sorts on; the line itself is read again by offset."""

    qid: str
    case_id: str
    qtype: str
    label: bool | None
    stage: str
    question: str
    seen: str | None
    written: str | None
    text: str  # question, answer and hypothesis, case-folded: the free-text filter searches it
    offset: int


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _row(offset: int, raw: bytes) -> Row | None:
    line = parse(raw)
    if line is None or line.get("question_id") is None:
        return None
    label = line.get("label")
    question = _text(line.get("question") or "")
    text = " ".join(_text(line.get(k) or "") for k in ("question", "answer", "hypothesis")).casefold()
    return Row(qid=str(line["question_id"]), case_id=str(line.get("case_id") or line["question_id"]),
               qtype=str(line.get("question_type") or "unknown"), label=label if isinstance(label, bool) else None,
               stage=str(line.get("attribution") or ""), question=question[:300], seen=line.get("evidence_seen"),
               written=line.get("evidence_written"), text=text, offset=offset)


class ResultsIndex:
    """A results-shaped file's questions, the last line of a question winning (a re-judged line is appended)."""

    def __init__(self, path: Path):
        self.path = path
        self._tail = _Tail(path)
        self._rows: dict[str, Row] = {}
        self._lock = threading.Lock()

    def rows(self) -> dict[str, Row]:
        with self._lock:
            replaced, new = self._tail.read()
            rows = {} if replaced else self._rows
            for offset, raw in new:
                if (row := _row(offset, raw)) is not None:
                    if rows is self._rows:
                        rows = dict(rows)  # pages holding the old dict keep a consistent one
                    rows[row.qid] = row
            self._rows = rows
            return self._rows

    def line(self, qid: str) -> dict[str, Any] | None:
        row = self.rows().get(qid)
        return None if row is None else read_lines(self.path, [row.offset])[0]


class KeyIndex:
    """Offsets of a JSONL file's lines grouped by one top-level string field (decisions by case_id).

    The field is read off the line's start by a regex when it is the first key (or follows
    schema_version), as the run writers put it; any other line is parsed."""

    def __init__(self, path: Path, field: str):
        self.path = path
        self.field = field
        self._head = re.compile(rb'\{(?:"schema_version": \d+, )?"' + re.escape(field.encode()) + rb'": "((?:[^"\\]|\\.)*)"')
        self._tail = _Tail(path)
        self._offsets: dict[str, list[int]] = {}
        self._names: dict[bytes, str] = {}  # a key as written -> decoded (a few thousand cases, 250k lines)
        self._lock = threading.Lock()

    def offsets(self, key: str) -> list[int]:
        with self._lock:
            replaced, new = self._tail.read()
            if replaced:
                self._offsets = {}
            for offset, raw in new:
                found = self._key(raw)
                if found is not None:
                    self._offsets.setdefault(found, []).append(offset)
            return list(self._offsets.get(key, ()))

    def _key(self, raw: bytes) -> str | None:
        match = self._head.match(raw)
        if match:
            written = match.group(1)
            name = self._names.get(written)
            if name is None:
                name = self._names[written] = str(json.loads(b'"' + written + b'"'))
            return name
        line = parse(raw)
        return None if line is None or line.get(self.field) is None else str(line[self.field])


read_raw = lines_at  # the lines at these offsets, in the order given


def read_lines(path: Path, offsets: list[int]) -> list[dict[str, Any] | None]:
    return [parse(raw) for raw in read_raw(path, offsets)]


class Indexes:
    """One index per (kind, file), kept for the life of the server: each is cheap to keep (offsets only)."""

    def __init__(self) -> None:
        self._results: dict[Path, ResultsIndex] = {}
        self._keys: dict[tuple[Path, str], KeyIndex] = {}
        self._lock = threading.Lock()

    def results(self, path: Path) -> ResultsIndex:
        with self._lock:
            return self._results.setdefault(path, ResultsIndex(path))

    def keyed(self, path: Path, field: str) -> KeyIndex:
        with self._lock:
            return self._keys.setdefault((path, field), KeyIndex(path, field))
