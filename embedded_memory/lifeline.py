"""Die with the launcher: a server the harness starts must not outlive it, even a harness killed by SIGKILL.

A server left behind keeps its database locked, so "run the same command again" would fail. The
launcher's PID is handed over explicitly and checked from the child's first instant: the child's
parent is no longer that PID (re-parented to PID 1 or a subreaper) means the launcher is gone, even
if it died before the child looked, so there is no start-up window.

- The embedded service calls `watch(parent_pid, ...)` first thing (cli.py).
- A third-party stdio server (kuzu-memory, the npm server-memory, ...) is started through this file
  as a small guard (`guard_command`): the guard asks the kernel for SIGTERM when its launcher dies
  (Linux PR_SET_PDEATHSIG) and polls as well, then ends the server's whole process group. The harness
  reaches it as benchmarker.memory.lifeline (a re-export: the harness may import the service, never
  the reverse), so the watch and the guard share one rule.

Standard library only: the guard runs as `python -I <this file>`, without importing the harness.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType

POLL_S = 0.1          # how often a child checks that its launcher is still its parent
GRACE_S = 5.0         # after SIGTERM, how long the server may take to stop before SIGKILL
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def launcher_gone(parent_pid: int) -> bool:
    """True once this process is no longer the child of `parent_pid` (an orphan is re-parented, so this
    also holds when the launcher died before we looked)."""
    return os.getppid() != parent_pid


def set_parent_death_signal(sig: int = signal.SIGTERM) -> bool:
    """Linux: the kernel sends `sig` when the thread that started this process ends. Only for a
    process started from a thread that lives as long as the child (an event loop's): a worker
    thread that finishes early would stop it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch(parent_pid: int, on_gone: Callable[[], None], interval_s: float = POLL_S) -> threading.Thread:
    """Call `on_gone` once, from a daemon thread, as soon as `parent_pid` is no longer our parent."""

    def loop() -> None:
        while not launcher_gone(parent_pid):
            time.sleep(interval_s)
        on_gone()

    thread = threading.Thread(target=loop, name="lifeline", daemon=True)
    thread.start()
    return thread


def stop_self(grace_s: float = GRACE_S) -> None:
    """SIGTERM to this process (a graceful stop once the server runs, death before), then exit hard."""
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(grace_s)
    os._exit(1)


def guard_command(command: str, args: Sequence[str], parent_pid: int | None = None) -> tuple[str, list[str]]:
    """`command args` run under the guard, which ends it when process `parent_pid` (default: this one) dies."""
    pid = os.getpid() if parent_pid is None else parent_pid
    return sys.executable, ["-I", os.path.abspath(__file__), str(pid), "--", command, *args]


def _end_group(child: subprocess.Popen[bytes], sig: int) -> None:
    """Signal the server's process group when the guard leads it (the MCP SDK starts each server in a
    session of its own), else only the server."""
    try:
        if os.getpgid(0) == os.getpid():
            os.killpg(os.getpid(), sig)
        else:
            child.send_signal(sig)
    except ProcessLookupError:
        pass


def guard(parent_pid: int, command: list[str]) -> int:
    """Run `command` with this process's stdin/stdout/stderr; end it when the launcher is gone."""
    set_parent_death_signal(signal.SIGTERM)
    if launcher_gone(parent_pid):
        print(f"lifeline: launcher PID {parent_pid} is gone; not starting {command[0]}", file=sys.stderr)
        return 1
    try:
        child = subprocess.Popen(command)
    except OSError as err:
        print(f"lifeline: cannot start {command[0]!r}: {err.strerror or err}", file=sys.stderr)
        return 127
    stopping = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        if not stopping.is_set():
            stopping.set()
            signal.signal(signum, signal.SIG_IGN)  # killpg reaches this process too
            _end_group(child, signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    while child.poll() is None:
        if not stopping.is_set() and launcher_gone(parent_pid):
            print(f"lifeline: launcher PID {parent_pid} is gone; stopping {command[0]}", file=sys.stderr)
            on_signal(signal.SIGTERM, None)
        if stopping.is_set():
            try:
                child.wait(GRACE_S)
            except subprocess.TimeoutExpired:
                _end_group(child, signal.SIGKILL)
            break
        time.sleep(POLL_S)
    code = child.wait()
    return code if code >= 0 else 128 - code


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        print("usage: python -I lifeline.py LAUNCHER_PID -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    return guard(int(argv[0]), argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
