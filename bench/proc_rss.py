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


def run_watched(config: Path, cwd: Path | None = None) -> tuple[float, int, int]:
    """`mycelian-longmemeval run CONFIG` in a subprocess: (wall seconds, harness peak RSS KiB, memory service's
    peak RSS KiB), sampled every 0.2 s; SystemExit with the end of stderr when the run fails."""
    import subprocess
    import sys
    import time

    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "benchmarker.cli", "run", str(config)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_harness = peak_service = 0
    while proc.poll() is None:
        peak_harness = max(peak_harness, vm_hwm_kb(proc.pid))
        for child in children(proc.pid):
            peak_service = max(peak_service, vm_hwm_kb(child))
        time.sleep(0.2)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{config.name}: run failed ({proc.returncode}): "
                         f"{proc.stderr.read()[-2000:] if proc.stderr else ''}")
    return wall, peak_harness, peak_service
