"""Peak memory of a process and its children, read from /proc (Linux): what the scale benches report."""

from __future__ import annotations

from pathlib import Path


def vm_hwm_kb(pid: int) -> int:
    """Peak resident set size (VmHWM) of `pid` in KiB; 0 once it has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """Child processes started by any thread of `pid` (the memory service's launcher)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found
