"""Lazy JSONL reading: one scan keeps each line's byte offset (and a few light fields), never the lines.

A file is scanned once; while a run appends to it, later reads scan only the new tail (same inode, not
shorter, the bytes before the old end unchanged); a rewritten file is scanned again, and so is one whose
line read by offset turns out to be another question's (a rewrite in place that kept size and stamp). An
unterminated last line counts once it parses (a writer mid-line leaves a torn one, skipped until it is
whole); undecodable and blank lines are skipped, and so is a line over MAX_LINE_BYTES, which is never held
whole in memory (a 1 GB line cost 6.4 GB and made a 1 GB page).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

from benchmarker.log.jsonl import lines_at, parse_object
from benchmarker.log.lines import DecisionLine, Json, ResultLine
from benchmarker.redact import masked_preview  # whole, then cut: a cut key is not recognised

parse = parse_object  # a torn or damaged line is skipped (None)
MAX_LINE_BYTES = 32 * 2**20  # a LongMemEval-M full-context line (the whole haystack as reader_context) is ~6 MB
TEXT_CHARS = 20_000          # of each field the free-text filter searches
_SEAL = 64                   # bytes before a scan's end that must be unchanged for an append


def bounded_readline(handle: BinaryIO, limit: int) -> bytes:
    """At most limit + 1 bytes of the next line: longer than `limit` means over the cap."""
    return handle.readline(limit + 1)


def _skip_rest(handle: BinaryIO) -> bool:
    """Read past the rest of an over-long line a megabyte at a time; whether its newline was found."""
    while part := handle.readline(2**20):
        if part.endswith(b"\n"):
            return True
    return False


def read_line(handle: BinaryIO) -> tuple[bytes | None, bool]:
    """(the next line, or None when it is over MAX_LINE_BYTES; whether it ended: a newline, or a whole
    last line). b"" at the end of the file."""
    raw = bounded_readline(handle, MAX_LINE_BYTES)
    if len(raw) > MAX_LINE_BYTES:
        return None, raw.endswith(b"\n") or _skip_rest(handle)
    return raw, raw.endswith(b"\n")


def iter_objects(path: Path) -> Iterator[dict[str, Json]]:
    """Each whole line that is a JSON object, in file order; damaged and over-long lines skipped."""
    with open(path, "rb") as handle:
        yield from objects_in(handle)


def objects_in(handle: BinaryIO) -> Iterator[dict[str, Json]]:
    """iter_objects over an open file (or a bundle member's bytes)."""
    return (line for _, line in placed_objects(handle))


def placed_objects(handle: BinaryIO) -> Iterator[tuple[int, dict[str, Json]]]:
    """objects_in's lines, each with the byte offset it starts at."""
    while True:
        offset = handle.tell()
        raw, _ = read_line(handle)
        if raw == b"":
            return
        if raw is not None and (line := parse(raw)) is not None:
            yield offset, line


def as_result_line(line: dict[str, Json]) -> ResultLine:
    """An object of a results.jsonl as a results line: the browser's one read point for them (not checked; a
    reader uses .get(), as for any line an older version or a hand edit may have shaped otherwise)."""
    return cast(ResultLine, line)


def result_lines(objects: Iterable[dict[str, Json]]) -> Iterator[ResultLine]:
    return map(as_result_line, objects)


def decision_lines(objects: Iterable[dict[str, Json]]) -> Iterator[DecisionLine]:
    """Objects of a decisions.jsonl as its lines (only the harness writes that file; read with .get())."""
    return cast("Iterator[DecisionLine]", iter(objects))


class _Tail:
    """The complete lines a file gained since the last `read` (all of them after a rewrite)."""

    def __init__(self, path: Path):
        self.path = path
        self._stamp: tuple[int, int, int, int] | None = None  # dev, inode, size, mtime
        self._end = 0
        self._seal = b""  # the bytes before _end when the last scan finished

    def forget(self) -> None:
        """Scan the whole file again at the next `read` (a line read by offset was not the one indexed)."""
        self._stamp, self._end, self._seal = None, 0, b""

    def read(self) -> tuple[bool, Iterator[tuple[int, bytes | None]]]:
        """(whether the file was replaced, so earlier lines are void; the new (offset, line) pairs, None for
        a line over MAX_LINE_BYTES, read as they are consumed: the caller holds its lock until it has
        taken them all)."""
        try:
            st = os.stat(self.path)
        except OSError:
            replaced = self._stamp is not None
            self.forget()
            return replaced, iter(())
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return False, iter(())
        old = self._stamp
        # same size with a new stamp: written in place (an append grows it); else the bytes we ended on must stay
        replaced = (old is None or stamp[:2] != old[:2] or st.st_size < self._end or st.st_size == old[2]
                    or self._seal != self._bytes_before(self._end))
        if replaced:
            self._end, self._seal = 0, b""
        self._stamp = stamp
        return replaced, self._scan()

    def _bytes_before(self, end: int) -> bytes:
        try:
            with open(self.path, "rb") as f:
                f.seek(max(0, end - _SEAL))
                return f.read(min(end, _SEAL))
        except OSError:
            return b"\0"  # unreadable now: differs from any seal, so the file is scanned again

    def _scan(self) -> Iterator[tuple[int, bytes | None]]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self._end)
                offset = self._end
                while True:
                    raw, ended = read_line(f)
                    if raw == b"" or (raw is None and not ended):
                        break  # the end, or an over-long line still being written
                    if raw is not None and not ended and parse(raw) is None:
                        break  # torn or still being written: read again next time
                    self._end = f.tell()
                    if raw is None or raw.strip():
                        yield offset, raw
                    offset = self._end
                f.seek(max(0, self._end - _SEAL))
                self._seal = f.read(min(self._end, _SEAL))
        except BaseException:
            # A scan that failed part-way leaves the stamp void, so the next read scans the whole file
            # again (a stored stamp showed "0 of 0 questions" until the file changed).
            self.forget()
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
    return None if line is None else row_of(offset, as_result_line(line))


def row_of(offset: int, line: ResultLine) -> Row | None:
    """A results line as the question list's row; None for a line of no question."""
    if line.get("question_id") is None:
        return None
    label = line.get("label")
    question = _text(line.get("question") or "")
    text = " ".join(_text(line.get(k) or "")[:TEXT_CHARS] for k in ("question", "answer", "hypothesis")).casefold()
    return Row(qid=str(line["question_id"]), case_id=str(line.get("case_id") or line["question_id"]),
               qtype=str(line.get("question_type") or "unknown"), label=label if isinstance(label, bool) else None,
               stage=str(line.get("attribution") or ""), question=masked_preview(question, 300), seen=line.get("evidence_seen"),
               written=line.get("evidence_written"), text=text, offset=offset)


class ResultsIndex:
    """A results-shaped file's questions, the last line of a question winning (a re-judged line is appended)."""

    def __init__(self, path: Path):
        self.path = path
        self._tail = _Tail(path)
        self._rows: dict[str, Row] = {}
        self._oversized = 0
        self._lock = threading.Lock()

    def rows(self) -> dict[str, Row]:
        with self._lock:
            replaced, new = self._tail.read()
            rows = {} if replaced else self._rows
            if replaced:
                self._oversized = 0
            for offset, raw in new:
                if raw is None:
                    self._oversized += 1
                elif (row := _row(offset, raw)) is not None:
                    if rows is self._rows:
                        rows = dict(rows)  # pages holding the old dict keep a consistent one
                    rows[row.qid] = row
            self._rows = rows
            return self._rows

    @property
    def oversized(self) -> int:
        """Lines left out of `rows` for being over MAX_LINE_BYTES (as of the last `rows`)."""
        return self._oversized

    def line(self, qid: str) -> dict[str, Json] | None:
        """The question's line, checked to be its own: a file rewritten in place is scanned again."""
        for _ in range(2):
            row = self.rows().get(qid)
            if row is None:
                return None
            line = read_lines(self.path, [row.offset])[0]
            if line is not None and str(line.get("question_id")) == qid:
                return line
            with self._lock:
                self._tail.forget()
        return None


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
                found = None if raw is None else self._key(raw)
                if found is not None:
                    self._offsets.setdefault(found, []).append(offset)
            return list(self._offsets.get(key, ()))

    def lines(self, key: str) -> list[bytes]:
        """The raw lines of `key`, each checked to carry it: a file rewritten in place is scanned again."""
        raws: list[bytes] = []
        for _ in range(2):
            raws = read_raw(self.path, self.offsets(key))
            if all(self._key(raw) == key for raw in raws):
                return raws
            with self._lock:
                self._tail.forget()
        return [raw for raw in raws if self._key(raw) == key]

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


def read_raw(path: Path, offsets: list[int]) -> list[bytes]:
    """The lines at these byte offsets, in the order given; b"" for one over MAX_LINE_BYTES (never read whole)."""
    return lines_at(path, offsets, lambda handle: read_line(handle)[0] or b"")


def read_lines(path: Path, offsets: list[int]) -> list[dict[str, Json] | None]:
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
