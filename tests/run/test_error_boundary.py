"""One error boundary around every verb: exception groups are unwrapped to their cause, expected
errors print one `error:` line with their documented exit code, genuine bugs keep their traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.cli_errors import expected_cause, leaves, run_verb
from benchmarker.errors import ConfigError, RunAbortedError, UserError
from tests.agent_adapters.test_agent_runs import SAMPLE, lines, subprocess_config


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
])
def test_expected_errors_print_one_error_line_and_their_exit_code(exc: BaseException, code: int, first_line: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def raises() -> int:
        raise exc

    assert run_verb(raises) == code
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith(first_line) and "Traceback" not in err
    assert "sk-abcdefghijklmnopqrstuvwx" not in err  # masked, as before
