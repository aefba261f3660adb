"""Stopping a subprocess agent with everything it started: its process group.

The agent is started as the leader of a new session (its own process group), so a helper it
forks (a model server, a shell pipeline) is signalled with it. A process that calls `setsid`
itself leaves the group and is out of reach; the agent must stop such a process on its own.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to every process of the group; a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs. Zombies do not count: a grandchild whose parent
    exited waits for PID 1 to reap it, which in a container may never happen."""
    if not PROC.is_dir():  # not Linux: a zombie counts as alive here
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()  # after "pid (comm)"
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            return True
    return False
