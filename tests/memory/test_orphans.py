"""A server the harness starts dies with the harness, even when the harness is SIGKILLed during start-up.

Each test starts a real launcher process (as `run` would), kills it with SIGKILL while its server is
still starting, and checks the server is gone within seconds, so "run the same command again" works.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings

ROOT = str(Path(__file__).resolve().parents[2])
GONE_WITHIN_S = 5.0


def alive(pid: int) -> bool:
    """Running (a zombie nobody reaps counts as gone: PID 1 here may not reap orphans)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_gone(pids: list[int], within_s: float = GONE_WITHIN_S) -> list[int]:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.05)
    return [pid for pid in pids if alive(pid)]


def launcher(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], stdout=subprocess.PIPE,
                            text=True, env=env)


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


EMBEDDED_LAUNCHER = """
    import sys, threading, time
    from embedded_memory.launcher import EmbeddedMemoryService
    from embedded_memory.settings import ServiceSettings
    settings = ServiceSettings(port=0, db_path=sys.argv[1], embedder="none", alpha=0.0)
    svc = EmbeddedMemoryService(settings, log_path=sys.argv[2])
    if sys.argv[3] == "starting":
        threading.Thread(target=svc.start, daemon=True).start()
        while svc.pid is None:
            time.sleep(0.001)
    else:
        svc.start()
    print(svc.pid, flush=True)
    time.sleep(600)
"""


@pytest.mark.slow
@pytest.mark.parametrize("when", ["starting", "healthy"])
def test_an_embedded_service_whose_launcher_is_killed_exits_and_frees_its_database(tmp_path: Path, when: str) -> None:
    db = tmp_path / "memory.sqlite"
    proc = launcher(EMBEDDED_LAUNCHER, str(db), str(tmp_path / "service.log"), when)
    assert proc.stdout is not None
    service_pid = int(proc.stdout.readline())
    proc.kill()  # SIGKILL: "starting" is right after the spawn, before the service reported healthy
    proc.wait()
    try:
        assert wait_gone([service_pid]) == [], (tmp_path / "service.log").read_text()
    finally:
        kill_all([service_pid])
    settings = ServiceSettings(port=0, db_path=str(db), embedder="none", alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp_path / "again.log") as again:  # the database is free
        assert again.running


def test_a_service_started_for_a_launcher_that_is_already_gone_exits_at_once(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a PID that was this test's child and is not our parent
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "embedded_memory", "--port", "1", "--db",
                             str(tmp_path / "m.sqlite"), "--embedder", "none", "--alpha", "0",
                             "--exit-with-parent", "--parent-pid", str(gone.pid)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode != 0 and "launcher" in result.stderr and "is gone" in result.stderr
    assert time.monotonic() - started < 20 and not (tmp_path / "m.sqlite").exists()  # before the database opened


STUBBORN_SERVER = """
    import subprocess, sys, time
    # A third-party server at its slowest: still starting, not reading stdin (so it never sees EOF),
    # with a helper process of its own (as `npx` runs node).
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(sys.argv[1], "w") as out:
        out.write(f"{__import__('os').getpid()} {helper.pid}\\n")
    time.sleep(600)
"""

STDIO_LAUNCHER = """
    import asyncio, sys
    from benchmarker.memory.launch import ServerLaunch
    launch = ServerLaunch(transport="stdio", command=sys.executable, args=("-c", sys.argv[1], sys.argv[2]),
                          stderr_path=sys.argv[3])
    async def main():
        async with launch.connect(timeout_s=600):
            await asyncio.sleep(600)
    asyncio.run(main())
"""


@pytest.mark.slow
def test_a_stdio_server_whose_launcher_is_killed_during_start_up_exits_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    proc = launcher(STDIO_LAUNCHER, textwrap.dedent(STUBBORN_SERVER), str(pid_file), str(tmp_path / "stderr.log"))
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().endswith("\n")) and time.monotonic() < deadline:
        time.sleep(0.02)
    pids = [int(pid) for pid in pid_file.read_text().split()]
    proc.kill()
    proc.wait()
    try:
        assert wait_gone(pids) == []
    finally:
        kill_all(pids)
