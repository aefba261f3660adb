"""Append-only JSONL files that survive a SIGKILL mid-write, and the run's other file writers.

A killed process can leave a half-written last line. Readers skip it, and the writer cuts it
off before appending, so a resumed run never glues a new record onto a torn one.

Every file a run writes goes through `JsonlWriter`, `write_json_atomic` or `write_text_atomic`, and
each masks credentials on the way out (`benchmarker.redact`: the process's credential values, URL
userinfo, secret query values, bearer tokens), so no writer can forget to.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar, cast

from benchmarker.errors import UserError
from benchmarker.log.confined import parent_folder
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import DecisionLine, MemoryLine, ResultLine
from benchmarker.log.safe_open import check_regular, create_exclusive, open_regular
from benchmarker.redact import redact, redact_text


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Yield every record. A torn final line (no newline, or not JSON: a writer killed mid-line) is
    skipped; a bad line anywhere else is real damage and raises a UserError naming file and line."""
    if not path.exists():
        return
    # Line by line, never the whole file at once: a LongMemEval_S-size decisions.jsonl is ~700 MB.
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                return  # a last line without its newline was cut off mid-write
            if not raw.strip():
                continue
            try:
                record = load_json(raw)
            except json.JSONDecodeError as exc:
                if not handle.peek(1):
                    return  # the last complete-looking line was itself torn (fsync raced the kill)
                raise UserError(f"{path}:{number}: not valid JSON ({exc.msg}); fix or delete that line") from exc
            yield record


def torn_tail(path: Path) -> int | None:
    """The number of the last line when a writer was cut off in it (no final newline, or not JSON);
    None when the file ends on a whole record (or is missing or empty). `read_jsonl` skips such a
    line, which is right while a run resumes (it redoes that work) and wrong for a verb that reads a
    finished run: it would drop the record silently."""
    if not path.exists():
        return None
    with path.open("rb") as handle:
        lines = handle.read().split(b"\n")
    numbered = [(number, raw) for number, raw in enumerate(lines, start=1) if raw.strip()]
    if not numbered:
        return None
    number, raw = numbered[-1]
    if number == len(lines):  # no newline after it
        return number
    try:
        load_json(raw)
    except json.JSONDecodeError:
        return number
    return None


class Keyed(Protocol):
    """A line read by key: a dict, or a log/lines.py TypedDict."""

    def get(self, key: str, /) -> object: ...


K = TypeVar("K", bound=Keyed)
L = TypeVar("L")


def read_lines(path: Path, shape: type[L]) -> Iterator[L]:
    """read_jsonl's lines typed as the file's shape (a TypedDict of log/lines.py): the same dicts, not checked,
    so a reader still uses .get() for a key an older line may lack."""
    return cast("Iterator[L]", read_jsonl(path))


def read_results(path: Path) -> Iterator[ResultLine]:
    """results.jsonl's lines as written (ResultRecord.to_line()); not checked: scoring/records.py's
    checked_results checks the keys metrics index, for a file a user may have edited."""
    return cast("Iterator[ResultLine]", read_jsonl(path))


def read_decisions(path: Path) -> Iterator[DecisionLine]:
    """decisions.jsonl's lines as DecisionRecord.to_line() wrote them (only the harness writes that file)."""
    return cast("Iterator[DecisionLine]", read_jsonl(path))


def read_memories(path: Path) -> Iterator[MemoryLine]:
    """memories.jsonl's lines as MemoryRecord.to_line() wrote them (only the harness writes that file)."""
    return cast("Iterator[MemoryLine]", read_jsonl(path))


def latest_by(lines: Iterable[K], key: str) -> list[K]:
    """One record per `key`, the last one written winning (a re-judged question, a rescored level)."""
    latest: dict[str, K] = {}
    for line in lines:
        latest[str(line.get(key))] = line
    return list(latest.values())


def repair_tail(path: Path) -> None:
    """Truncate a file to its last complete line so appends start on a fresh line."""
    try:
        with parent_folder(path, create=False) as folder, open(path, "rb+", opener=_regular_in(folder)) as handle:
            _cut_torn_tail(handle)
    except FileNotFoundError:
        return


def _cut_torn_tail(handle: Any) -> None:
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    if size:
        handle.seek(max(0, size - 1))
        if handle.read(1) == b"\n":
            return
        # Walk back to the previous newline (files are small enough; records are one line each).
        block = 65536
        pos = size
        while pos > 0:
            start = max(0, pos - block)
            handle.seek(start)
            chunk = handle.read(pos - start)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                handle.truncate(start + idx + 1)
                return
            pos = start
        handle.truncate(0)


def end_whole_last_line(path: Path) -> None:
    """Give a whole last row that lost its newline (an editor, a copy) its newline back. The writer cuts
    an unterminated last line off as torn; this journal reads it as a batch it waits on, and cutting it
    would make the run after forget that batch and pay for its requests again."""
    if not path.exists():
        return
    with parent_folder(path, create=False) as folder, open(path, "rb", opener=_regular_in(folder)) as handle:
        if handle.seek(0, os.SEEK_END) == 0:   # never read through a planted link, at any level
            return
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":
            return
        handle.seek(0)
        last = handle.read().rsplit(b"\n", 1)[-1]
    try:
        load_json(last)
    except ValueError:
        return   # torn mid-write: the writer cuts it off
    with parent_folder(path, create=False) as folder, open(path, "ab", opener=_regular_in(folder)) as handle:
        handle.write(b"\n")


class JsonlWriter:
    """Thread-safe appender. `durable=True` fsyncs every record (results); else flush only."""

    def __init__(self, path: Path, *, durable: bool = False):
        self.path = path
        self.durable = durable
        repair_tail(path)
        with parent_folder(path) as folder:   # no link at any level below the run directory (log/confined.py)
            self._handle = open(path, "a", encoding="utf-8", opener=_regular_in(folder))  # noqa: SIM115
        self._lock = threading.Lock()

    def write(self, record: Mapping[str, object]) -> None:
        self.write_many([record])

    def write_many(self, records: Sequence[Mapping[str, object]]) -> None:
        """Append the records as lines in one write and one flush (and one fsync when durable)."""
        text = "".join(json.dumps(redact(record, keys=False), ensure_ascii=False, default=_masked_str) + "\n"
                       for record in records)
        if not text:
            return
        with self._lock:
            self._handle.write(text)
            self._handle.flush()
            if self.durable:
                os.fsync(self._handle.fileno())

    def close(self) -> None:
        with self._lock:
            if not self._handle.closed:
                self._handle.close()


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temp file + rename, so readers never see half a file (credentials masked)."""
    _write_atomic(Path(path), json.dumps(redact(data, keys=False), indent=2, ensure_ascii=False, default=_masked_str) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Write a text file (a report, a table, a prompt) through a temp file + rename, credentials masked."""
    _write_atomic(Path(path), redact_text(text))


def _masked_str(value: Any) -> str:
    """A value JSON cannot hold, as its text, masked like every other string."""
    return redact_text(str(value))


def _exclusive_in(folder: int) -> Callable[[str, int], int]:
    """open()'s opener for a temporary in the open folder `folder`: a new file, never one planted there
    (safe_open.create_exclusive)."""
    return lambda path, flags: create_exclusive(path, 0o644, folder)


def _regular_in(folder: int) -> Callable[[str, int], int]:
    """open()'s opener for a file in the open folder `folder` that is never a link (safe_open.open_regular)."""
    return lambda path, flags: open_regular(path, flags, 0o644, folder)


def write_figure(path: Path, fig: Any) -> None:
    """Save a matplotlib figure as PNG through the same temp file + rename (no text in it to mask)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    _write_atomic(Path(path), buffer.getvalue())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write bytes (a generated dataset) through the same temp file + rename, unmasked: they are the harness's own."""
    _write_atomic(Path(path), data)


def _write_atomic(path: Path, text: str | bytes) -> None:
    with parent_folder(path) as folder:   # no link at any level below the run directory (log/confined.py)
        check_regular(path, dir_fd=folder)  # replacing a planted link would be harmless, but it says something is wrong
        tmp = path.with_suffix(path.suffix + ".tmp")
        if isinstance(text, bytes):
            with open(tmp, "wb", opener=_exclusive_in(folder)) as binary:
                binary.write(text)
        else:
            with open(tmp, "w", encoding="utf-8", opener=_exclusive_in(folder)) as handle:
                handle.write(text)
        os.replace(tmp.name, path.name, src_dir_fd=folder, dst_dir_fd=folder)


def parse_object(raw: bytes) -> dict[str, Any] | None:
    """One JSONL line as an object; None for a torn or damaged one (whoever reads it decides what that means)."""
    try:
        value = load_json(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def lines_at(path: Path, offsets: list[int],
             read_line: Callable[[BinaryIO], bytes] = lambda handle: handle.readline()) -> list[bytes]:
    """The raw lines starting at these byte offsets, in the order given (an offset index's reads); `read_line`
    reads one from where the handle stands (the run browser's caps what it reads)."""
    out: list[bytes] = []
    if not offsets:  # nothing to read: the file need not even exist
        return out
    with open(path, "rb") as handle:
        for offset in offsets:
            handle.seek(offset)
            out.append(read_line(handle))
    return out


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object file (manifest.json, summary.json); {} when it is missing, broken or not an object."""
    try:
        data = load_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
