"""Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group, not to the harness
alone. The embedded memory service must not stop on it before the run has: the run ends as
`interrupted` (exit 130, one line, no traceback) and the same command resumes, saying how much was done.

Which process sees the signal first is up to the scheduler (a loaded machine lets the service win);
each test holds the harness (SIGSTOP) while the signal is delivered, so the service always sees it
first if it sees it at all, then lets the harness go on (SIGCONT)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.cli import run_cli

pytestmark = pytest.mark.slow

CONFIG = """
run_id = "{run_id}"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 4
[memory]
embedder = "none"
alpha = 0.0
[run]
output_dir = "{out}"
concurrency = 1
"""
INTERRUPTED = "interrupted: everything finished so far is saved; run the same command again to resume."
HELD_S = 3.0       # how long the harness is held while the service could stop on the signal
START_S = 300.0    # a loaded machine may take minutes to answer the first question
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _config(tmp_path: Path, run_id: str) -> tuple[Path, Path]:
    cfg = tmp_path / f"{run_id}.toml"
    cfg.write_text(CONFIG.format(run_id=run_id, out=tmp_path / "runs"), encoding="utf-8")
    return cfg, tmp_path / "runs" / run_id


def _as_a_foreground_job() -> None:
    """A suite started in the background by a non-interactive shell passes SIGINT ignored to its children;
    a terminal's foreground job has the default (tests/e2e/test_resume.py says more)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _service_pids(run_dir: Path) -> list[int]:
    """The run's embedded memory service, by its database path (a zombie no longer counts)."""
    found = subprocess.run(["pgrep", "-f", str(run_dir / "memory.sqlite")], capture_output=True, text=True)
    pids = [int(p) for p in found.stdout.split()]
    return [p for p in pids if _alive(p)]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _interrupt_with_the_harness_held(harness: int, run_dir: Path, deliver: Callable[[], None]) -> list[int]:
    """Deliver SIGINT while the harness is stopped; the service PIDs that died meanwhile (none expected)."""
    services = _service_pids(run_dir)
    assert services, f"no embedded memory service found for {run_dir}"
    os.kill(harness, signal.SIGSTOP)
    try:
        deliver()
        deadline = time.monotonic() + HELD_S
        while time.monotonic() < deadline and all(_alive(p) for p in services):
            time.sleep(0.05)
    finally:
        os.kill(harness, signal.SIGCONT)
    return [p for p in services if not _alive(p)]


def _answered(run_dir: Path) -> int:
    path = run_dir / "answers.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return len({json.loads(line)["question_id"] for line in lines if line.strip().endswith("}")})


def _assert_interrupted(code: int, err: str, run_dir: Path, died: list[int]) -> None:
    assert not died, f"the memory service (PID {died}) stopped on the terminal's Ctrl-C before the run did"
    assert code == 130, err[-3000:]
    assert INTERRUPTED in err
    assert "Traceback" not in err and "stopped answering" not in err, err[-3000:]
    assert json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["status"] == "interrupted"
    assert _service_pids(run_dir) == []  # the run stopped its service on the way out


def test_a_process_group_sigint_ends_interrupted_and_the_same_command_resumes(tmp_path: Path) -> None:
    cfg, run_dir = _config(tmp_path, "group")
    proc = subprocess.Popen([sys.executable, "-m", "benchmarker.cli", "run", str(cfg)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_as_a_foreground_job)
    lines: list[str] = []
    first_done = threading.Event()
    total: list[int] = []

    def read() -> None:  # stderr drained all along, so the run never blocks on a full pipe
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if (m := re.match(r"\[(\d+)/(\d+)\]", line)) and int(m[1]) >= 1 and not first_done.is_set():
                total.append(int(m[2]))
                first_done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not first_done.wait(START_S):
            pytest.fail(f"no question finished: {''.join(lines)[-2000:]}")
        died = _interrupt_with_the_harness_held(proc.pid, run_dir, lambda: os.killpg(proc.pid, signal.SIGINT))
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(timeout=10)
    _assert_interrupted(code, "".join(lines), run_dir, died)

    done = _answered(run_dir)
    assert 1 <= done < total[0]
    again = run_cli("run", str(cfg), cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"resuming: {done} of {total[0]} questions already done" in again.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "finished" and len(manifest["attempts"]) == 2


def test_ctrl_c_typed_at_a_real_terminal_ends_interrupted(tmp_path: Path) -> None:
    cfg, run_dir = _config(tmp_path, "tty")
    pid, master = pty.fork()  # the child leads a new session whose controlling terminal is this pty
    if pid == 0:
        try:
            _as_a_foreground_job()
            os.chdir(tmp_path)
            os.execv(sys.executable, [sys.executable, "-m", "benchmarker.cli", "run", str(cfg)])
        finally:
            os._exit(127)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # room for the whole bar
    output = bytearray()

    def pump(timeout_s: float) -> bool:
        """Read what the terminal shows; False once the child closed it."""
        ready, _, _ = select.select([master], [], [], timeout_s)
        if not ready:
            return True
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every process holding the terminal has exited
            return False
        output.extend(chunk)
        return bool(chunk)

    def shown() -> str:
        return ANSI.sub("", output.decode("utf-8", errors="replace"))

    try:
        deadline = time.monotonic() + START_S
        while not any(int(n) >= 1 for n in re.findall(r"(\d+)/\d+ questions", shown())):
            if time.monotonic() > deadline or not pump(1.0):
                pytest.fail(f"no question finished on the terminal: {shown()[-2000:]}")
        died = _interrupt_with_the_harness_held(pid, run_dir, lambda: os.write(master, b"\x03"))
        deadline = time.monotonic() + 120
        while pump(1.0) and time.monotonic() < deadline:
            pass
        ended, status = os.waitpid(pid, os.WNOHANG)
        while not ended and time.monotonic() < deadline:
            time.sleep(0.1)
            ended, status = os.waitpid(pid, os.WNOHANG)
        assert ended, f"the run did not end after Ctrl-C: {shown()[-2000:]}"
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(master)
    _assert_interrupted(os.waitstatus_to_exitcode(status), shown(), run_dir, died)
