"""One writer per run directory: an exclusive OS lock on `<run_dir>/.lock`, taken before any work.

Two processes writing one run directory would append every answer twice and interleave the
manifest (seen with two outside-agent runs); the embedded memory service's SQLite lock only
caught it for that backend, with a traceback. So every writing verb takes this lock first, and a
second process is refused at once (`UserError`, exit 2) with one line naming the run directory and
the holder (PID, host, verb, start time), which is written into the lock file. While the lock is
held, every writer of a path below the run directory refuses a link at any level of it (log/confined.py).

It is `fcntl.flock` (non-blocking) on an open file, not a PID file: the kernel releases it when
the holder's file is closed, which happens when the process ends in any way, also on SIGKILL or
a crash. Running the same command again after `kill -9` therefore resumes; a stale PID in the
file means nothing. The file is never deleted (deleting a lock file races with a process that has
just opened it); it is emptied on release. Python opens it non-inheritable, so a memory server or
agent process started by the run does not keep the lock alive. flock is advisory and per host:
on a network file system (NFS) two hosts may not see each other's lock.

Which verbs lock which directory:
- `run` (every subject, backend and executor: memory agent, outside agents, local, Ray, sweeps,
  whose points live inside the run directory) and `replay`: the run directory they write
  (`execute_run`). The replay's *source* run is only read, and is not locked.
- `score`: the run directory whose `scores/<judge>/` it writes (two re-judgings with one judge, or
  one during the run, would write one results file twice).
- `report`: the run directory whose summary.json and report it rewrites (a run writes them too).
- `judge-online` (not with `--estimate`): its own run directory (`online.jsonl`, manifest).
- Not locked, as they write no run directory: `compare` (reads; `--out` is a file the user names),
  `estimate` (a temporary directory), `sample`, `serve-memory`.
A sweep point (`<run_dir>/points/<label>`) given to `score` locks its run directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

from benchmarker.errors import UserError
from benchmarker.log import confined
from benchmarker.log.json_limits import load_json
from benchmarker.log.safe_open import open_regular

LOCK_FILE = ".lock"


@dataclass
class RunDirLock:
    """A held lock; `release()` (idempotent) empties the file and lets the next process in."""

    path: Path
    fd: int | None
    confining: bool = False   # while held, no write below the run directory passes through a link (log/confined.py)

    def release(self) -> None:
        if self.confining:
            self.confining = False
            confined.release(self.path.parent)
        fd, self.fd = self.fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        finally:
            os.close(fd)  # closing the file releases the flock


def run_root(path: Path) -> Path:
    """The run directory that owns `path`: a sweep point's is two levels up."""
    path = Path(path)
    if path.parent.name == "points" and (path.parent.parent / "manifest.json").is_file():
        return path.parent.parent
    return path


def acquire_run_lock(run_dir: Path, verb: str) -> RunDirLock:
    """Hold `run_dir`'s lock for this process, or raise `UserError` naming the process that holds it.
    A directory that does not exist yet holds nothing to protect: the verb's own checks report it."""
    import fcntl
    from datetime import datetime

    path = Path(run_dir) / LOCK_FILE
    if not path.parent.is_dir():
        return RunDirLock(path, None)
    try:
        fd = open_regular(path, os.O_RDWR | os.O_CREAT)  # a planted `.lock -> victim` is refused, not emptied
    except OSError as err:
        raise UserError(f"cannot open the lock file {path} ({err.strerror or err}); the run directory "
                        f"{run_dir} must be writable") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _read_holder(fd)
        os.close(fd)
        raise UserError(in_use_message(Path(run_dir), holder)) from None
    except BaseException:
        os.close(fd)
        raise
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "verb": verb,
              "started_at": datetime.now(UTC).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
    confined.confine(run_dir)
    return RunDirLock(path, fd, confining=True)


@contextlib.contextmanager
def hold_run_lock(run_dir: Path, verb: str) -> Iterator[RunDirLock]:
    """`acquire_run_lock` for the length of a `with` block; released however the block ends."""
    lock = acquire_run_lock(run_dir, verb)
    try:
        yield lock
    finally:
        lock.release()


def in_use_message(run_dir: Path, holder: dict) -> str:
    """One line: which directory, who holds it, what to do."""
    pid = holder.get("pid")
    who = f"PID {pid}" if pid else "another process (PID not written yet)"
    if holder.get("host") and holder.get("host") != socket.gethostname():
        who += f" on host {holder['host']}"
    what = f"`{holder['verb']}`" if holder.get("verb") else "a process"
    since = f" since {holder['started_at']}" if holder.get("started_at") else ""
    stop = f"stop it (kill {pid})" if pid else "stop it"
    return (f"the run directory {run_dir} is in use by {what}, {who}{since}; wait for it to finish or {stop}, "
            "then run the same command again (a stopped run resumes)")


def _read_holder(fd: int) -> dict:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", errors="replace").strip()
        holder = load_json(text) if text else {}
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}
