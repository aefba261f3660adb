"""Recognise a full disk behind whatever reached the error boundary, and name the file being written.

A full disk is not a bug: every record is appended (and fsynced) as it is made, so freeing space
and running the same command again resumes. Whichever writer hit it (a JSONL append, an atomic
JSON write, a plot, SQLite), the error can arrive wrapped in task groups, as the cause of a
`RunAbortedError` (cases failing in a row), or as the context of a second write failing while the
run closes its files; all of these are searched. A write error on an open file carries no file
name, so the file is taken from the innermost frame of the traceback that names one (an open file
object, a path-like `self`, or a `path` attribute or variable).
"""

from __future__ import annotations

import errno
import io
import os
import sqlite3
from dataclasses import dataclass
from types import TracebackType
from typing import Any

REASONS = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
           errno.EFBIG: "file too large for this file system or the process's file-size limit"}
SQLITE_FULL = "database or disk is full"  # SQLITE_FULL, also as text from the embedded memory service
SIGNS = ("No space left on device", "Disk quota exceeded", SQLITE_FULL)
HINT = "free space and run the same command again to resume"
EXIT_CODE = 1


@dataclass(frozen=True)
class DiskFull:
    reason: str
    path: str

    def line(self) -> str:
        return f"{self.reason} writing {self.path}; {HINT}"


def find(exc: BaseException) -> DiskFull | None:
    """The full-disk error `exc` is, holds (exception groups) or was raised from or while handling."""
    queue: list[BaseException] = [exc]
    seen: set[int] = set()
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        found = _as_disk_full(current)
        if found is not None:
            return found
        if isinstance(current, BaseExceptionGroup):
            queue.extend(current.exceptions)
        queue.extend(linked for linked in (current.__cause__, current.__context__) if linked is not None)
    return None


def mentions_disk_full(text: str) -> bool:
    """A message (a case's last error from a server, say) that reports a full disk."""
    return any(sign.lower() in text.lower() for sign in SIGNS)


def _as_disk_full(exc: BaseException) -> DiskFull | None:
    if isinstance(exc, OSError) and exc.errno in REASONS:
        named = os.fsdecode(exc.filename) if exc.filename else None
        return DiskFull(REASONS[exc.errno], named or _path_from(exc.__traceback__) or "a file")
    if isinstance(exc, sqlite3.Error) and SQLITE_FULL in str(exc):
        return DiskFull(REASONS[errno.ENOSPC], _path_from(exc.__traceback__) or "a SQLite database")
    return None


def _path_from(tb: TracebackType | None) -> str | None:
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):  # innermost first: the writer itself
        found = _path_in(frame.f_locals)
        if found is not None:
            return found
    return None


def _path_in(names: dict[str, Any]) -> str | None:
    for value in names.values():
        name = getattr(value, "name", None) if isinstance(value, io.IOBase) else None
        if isinstance(name, str):
            return name
    owner = names.get("self")
    if isinstance(owner, os.PathLike):
        return os.fsdecode(owner)
    try:
        attribute = vars(owner).get("path") if owner is not None else None  # no property runs
    except TypeError:
        attribute = None
    for candidate in (attribute, names.get("path")):
        if isinstance(candidate, (str, os.PathLike)):
            return os.fsdecode(candidate)
    return None
