"""The embedded memory service dies mid-run: the cases in flight fail into errors.jsonl naming the server and
the cause, the run stops with one error line (exit 1, no traceback), and the same command resumes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest

from benchmarker.cli_errors import run_verb
from benchmarker.config import load_config
from benchmarker.errors import MemoryServerLost
from benchmarker.log.jsonl import read_jsonl
from benchmarker.run.runner import execute_run

pytestmark = pytest.mark.slow


def _service_pids(db: Path) -> list[int]:
    """The embedded service processes serving this run's database (their command line names it)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "embedded_memory" in cmdline and str(db) in cmdline:
            pids.append(int(entry.name))
    return pids


async def _run_and_kill(config, run_dir: Path) -> BaseException | None:
    task = asyncio.create_task(execute_run(config))
    for _ in range(600):  # the first answer, then the service dies
        await asyncio.sleep(0.1)
        if task.done() or any(True for _ in read_jsonl(run_dir / "answers.jsonl")):
            break
    for pid in _service_pids(run_dir / "memory.sqlite"):
        os.kill(pid, signal.SIGKILL)
    try:
        await task
    except BaseException as err:  # the test asserts which
        return err
    return None


def test_a_dead_memory_service_fails_the_cases_in_flight_and_the_run_resumes(tmp_path, capsys):
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'run_id = "lost"\n[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 4\n'
                   f'[run]\noutput_dir = "{tmp_path}/runs"\nprogress = false\nconcurrency = 1\n', encoding="utf-8")
    config = load_config(cfg)
    run_dir = config.run_dir
    err = asyncio.run(_run_and_kill(config, run_dir))
    assert isinstance(err, MemoryServerLost), repr(err)
    assert "stopped answering mid-run" in str(err) and "/mcp" in str(err)
    errors = list(read_jsonl(run_dir / "errors.jsonl"))
    assert errors and all("MemoryServerLost" in e["error"] for e in errors)

    def raises() -> int:
        raise err

    assert run_verb(raises) == 1  # the boundary: one error line, no traceback
    shown = capsys.readouterr().err
    assert shown.startswith("error: the memory MCP server at") and "Traceback" not in shown

    asyncio.run(execute_run(config))  # the same command again
    answers = [a["question_id"] for a in read_jsonl(run_dir / "answers.jsonl")]
    assert len(answers) == len(set(answers)) == 9  # the sample (one a type + abstention): each once
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "finished"
