"""One error boundary around every verb: exception groups are unwrapped to their cause, expected
errors print one `error:` line with their documented exit code, genuine bugs keep their traceback."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path

import pytest

from benchmarker.agent.batch.hub import BatchFailed
from benchmarker.cli import main
from benchmarker.cli_errors import expected_cause, leaves, run_verb
from benchmarker.errors import ConfigError, RunAbortedError, UserError
from benchmarker.log import jsonl
from benchmarker.log.jsonl import JsonlWriter, read_jsonl, write_json_atomic
from tests.agent.adapters.test_agent_runs import SAMPLE, lines, subprocess_config


def test_an_outside_agent_run_stopped_by_max_failures_in_a_row_prints_one_error_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = subprocess_config(tmp_path, SAMPLE, ["--mode", "refuse"], concurrency=1)
    cfg.write_text(cfg.read_text(encoding="utf-8") + "max_failures_in_a_row = 2\n", encoding="utf-8")  # [run] is last
    assert main(["run", str(cfg)]) == 1  # RunAbortedError's documented code, as for the memory agent
    err = capsys.readouterr().err
    assert err.startswith("error: 2 cases failed in a row; last error: ") and "no model configured" in err
    assert "see errors.jsonl in the run directory" in err  # the same hint as a memory-agent run
    assert "Traceback" not in err and "ExceptionGroup" not in err
    assert len(lines(tmp_path / "runs" / "agent" / "errors.jsonl")) == 2  # the two failed cases


def test_nested_groups_unwrap_to_their_cause() -> None:
    aborted = RunAbortedError("3 cases failed in a row")
    nested = ExceptionGroup("task group", [ExceptionGroup("inner", [ExceptionGroup("innermost", [aborted])])])
    assert leaves(nested) == [aborted]
    assert expected_cause(nested) is aborted
    assert expected_cause(aborted) is aborted


def test_a_user_error_among_cancellations_is_the_cause() -> None:
    refused = UserError("runs/r is in use by PID 42")
    group = BaseExceptionGroup("anyio", [asyncio.CancelledError(), BaseExceptionGroup(
        "inner", [asyncio.CancelledError(), refused])])
    assert expected_cause(group) is refused


def test_a_bug_in_a_group_keeps_the_whole_group_and_its_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    bug = KeyError("question_id")
    group = ExceptionGroup("task group", [UserError("bad key"), bug])
    assert expected_cause(group) is None
    assert expected_cause(ExceptionGroup("g", [bug])) is None
    assert expected_cause(BaseExceptionGroup("only cancelled", [asyncio.CancelledError()])) is None

    def raises() -> int:
        raise group

    with pytest.raises(ExceptionGroup) as caught:
        run_verb(raises)
    assert caught.value is group and capsys.readouterr().err == ""


@pytest.mark.parametrize("exc, code, first_line", [
    (ExceptionGroup("g", [ConfigError("run.toml: [run].x is not a key")]), 2, "error: run.toml: [run].x is not a key"),
    (ExceptionGroup("g", [RunAbortedError("5 cases failed in a row")]), 1, "error: 5 cases failed in a row"),
    (BaseExceptionGroup("g", [KeyboardInterrupt()]), 130, ""),
    (UserError("http://h refused Authorization: Bearer sk-abcdefghijklmnopqrstuvwx"), 2, "error: http://h"),
    # a provider's batch failing is not bad input: exit 1, one line (it was a UserError, exit 2)
    (ExceptionGroup("g", [BatchFailed("batch b1 failed: expired")]), 1, "error: batch b1 failed: expired"),
])
def test_expected_errors_print_one_error_line_and_their_exit_code(exc: BaseException, code: int, first_line: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def raises() -> int:
        raise exc

    assert run_verb(raises) == code
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith(first_line) and "Traceback" not in err
    assert "sk-abcdefghijklmnopqrstuvwx" not in err  # masked, as before


# -- a full disk -----------------------------------------------------------------------------------
# No root, no tiny filesystem: writes to /dev/full fail with ENOSPC at the OS boundary, so the file the
# harness opens at `path` (one it only appends to, or a temporary) is /dev/full. The harness never opens
# a run file through a link (tests/log/test_symlink_writes.py), so the writers' opener is what is swapped.

DISK_FULL_TAIL = "; free space and run the same command again to resume"


def full_disk_at(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for name in ("open_regular", "create_exclusive"):
        real = getattr(jsonl, name)

        def opener(target, *rest, _real=real):
            return os.open("/dev/full", os.O_WRONLY) if Path(target) == path else _real(target, *rest)

        monkeypatch.setattr(jsonl, name, opener)


@pytest.mark.slow
def test_a_full_disk_mid_run_is_one_error_line_naming_the_file_and_the_same_command_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = subprocess_config(tmp_path, SAMPLE, concurrency=1)
    run_dir = tmp_path / "runs" / "agent"
    full_disk_at(monkeypatch, run_dir / "decisions.jsonl")  # the agent's tool-call trace, appended during every case
    assert main(["run", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "ExceptionGroup" not in err
    assert [line for line in err.splitlines() if line.startswith("error:")] == [
        f"error: no space left on device writing {run_dir / 'decisions.jsonl'}{DISK_FULL_TAIL}"]

    monkeypatch.undo()  # space freed
    assert main(["run", str(cfg)]) == 0
    ids = [answer["question_id"] for answer in lines(run_dir / "answers.jsonl")]
    assert len(ids) == len(set(ids)) == 9  # the sample: every question answered, once


def test_a_full_disk_in_an_atomic_json_write_is_one_line_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "run" / "summary.json"
    full_disk_at(monkeypatch, target.with_name("summary.json.tmp"))
    assert run_verb(lambda: write_json_atomic(target, {"overall": 1.0}) or 0) == 1
    assert capsys.readouterr().err == f"error: no space left on device writing {target}.tmp{DISK_FULL_TAIL}\n"


def test_a_full_disk_under_a_jsonl_writer_and_inside_a_task_group_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "errors.jsonl"
    full_disk_at(monkeypatch, target)
    writer = JsonlWriter(target, durable=True)

    async def cases() -> int:
        async def one() -> None:
            writer.write({"case_id": "q1", "error": "x" * 100_000})  # bigger than any buffer: fails in write()

        async with asyncio.TaskGroup() as group:
            group.create_task(one())
            group.create_task(asyncio.sleep(5))
        return 0

    assert run_verb(lambda: asyncio.run(cases())) == 1
    assert capsys.readouterr().err == f"error: no space left on device writing {target}{DISK_FULL_TAIL}\n"


def test_a_full_sqlite_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "cache.sqlite"

    def fill() -> int:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA max_page_count = 8")  # SQLite's own "disk is full" (SQLITE_FULL), for real
            conn.execute("CREATE TABLE t (x BLOB)")
            conn.execute("INSERT INTO t VALUES (?)", (b"x" * 1_000_000,))
        return 0

    assert run_verb(fill) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no space left on device writing a SQLite database") and err.endswith(
        DISK_FULL_TAIL + "\n") and err.count("\n") == 1


def test_a_run_stopped_by_failures_that_were_a_full_disk_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded service answers a tool call on a full disk with SQLite's message: the cases fail
    in a row and the run stops; the line says what to do."""
    def raises() -> int:
        raise RunAbortedError("5 cases failed in a row; last error: add_entry: database or disk is full")

    assert run_verb(raises) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: 5 cases failed in a row; last error: add_entry: database or disk is full")
    assert err.splitlines()[1] == "the disk looks full: free space and run the same command again to resume."


def test_a_torn_last_line_left_by_a_full_disk_is_cut_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"question_id": "q1"}\n{"question_id": "q2", "hypo', encoding="utf-8")  # the disk filled mid-line
    assert [r["question_id"] for r in read_jsonl(path)] == ["q1"]
    writer = JsonlWriter(path)
    writer.write({"question_id": "q2"})
    writer.close()
    assert [r["question_id"] for r in read_jsonl(path)] == ["q1", "q2"]
