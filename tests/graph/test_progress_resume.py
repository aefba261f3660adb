"""A resumed run's progress: it says how much earlier attempts did, and its ETA counts only the
questions left at this attempt's own pace (finished cases pass through the graph in an instant)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from benchmarker.graph import progress as progress_module
from benchmarker.graph.progress import RunProgress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", fake)
    return fake


def _progress(total: int, resumed: dict[str, int]) -> tuple[RunProgress, io.StringIO]:
    shown = io.StringIO()
    console = Console(file=shown, force_terminal=False, width=200)
    return RunProgress(total, enabled=True, stats=dict, console=console, resumed=resumed), shown


def test_a_resumed_run_says_what_was_done_and_its_eta_counts_the_questions_left(
        clock: Clock, capsys: pytest.CaptureFixture[str]) -> None:
    progress, shown = _progress(10, {"a": 2, "b": 3})
    with progress:
        assert shown.getvalue() == "resuming: 5 of 10 questions already done\n"
        clock.now += 0.1
        progress.question_done("a: done", 2, case_id="a")   # finished before: no pace to measure yet
        progress.question_done("b: done", 3, case_id="b")
        clock.now += 59.9
        progress.question_done("c: correct", 1, case_id="c")  # one new question in 60 s, 4 left
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("ETA ")[1].split()[0] for line in lines] == ["?", "?", "240s"]


def test_a_conversation_half_answered_before_counts_only_its_new_questions(
        clock: Clock, capsys: pytest.CaptureFixture[str]) -> None:
    progress, shown = _progress(6, {"conv-1": 3})
    with progress:
        assert "resuming: 3 of 6 questions already done" in shown.getvalue()
        clock.now += 30
        progress.question_answered("conv-1", "conv-1 q4 answered")  # 1 new in 30 s, 2 left
        clock.now += 30
        progress.question_answered("conv-1", "conv-1 q5 answered")  # 2 new in 60 s, 1 left
        progress.question_done("conv-1: done", 5, case_id="conv-1")  # the case ends: its 3 earlier ones pass
    lines = capsys.readouterr().err.splitlines()
    assert [line.split("ETA ")[1].split()[0] for line in lines] == ["60s", "30s", "30s"]
    assert lines[-1].startswith("[5/6]")


def test_a_fresh_run_says_nothing_about_resuming(clock: Clock, capsys: pytest.CaptureFixture[str]) -> None:
    progress, shown = _progress(4, {})
    with progress:
        clock.now += 10
        progress.question_done("a: correct", 1, case_id="a")
    assert shown.getvalue() == ""
    assert "ETA 30s" in capsys.readouterr().err
