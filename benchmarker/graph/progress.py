"""Progress for long runs: questions done / total, phase, ETA, tool calls, tokens, cache-hit share,
cost and cost per question.

On a terminal it is a live rich bar; elsewhere (CI, nohup, a log file) one line per finished
case, plus a status line every `interval_s` while a long case (a LoCoMo conversation: ~1,100 agent
calls) is still working, so a 10-hour run's log still says how far it got and what it cost so far.
A sweep names its point (`title`) on every line.

A resumed run says first how many questions earlier attempts finished ("resuming: N of M questions
already done"), and its ETA counts only this attempt's work: the finished cases still pass through the
graph, in an instant, and would otherwise make the rate (and so the first ETA) meaningless.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


class _OfCase(Protocol):
    @property
    def case_id(self) -> str: ...


def done_per_case(records: Iterable[_OfCase]) -> dict[str, int]:
    """Questions an earlier attempt finished, per case (their answer or result records)."""
    return dict(Counter(record.case_id for record in records))


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


class RunProgress:
    """Counts finished questions and live totals; `stats` is read for tokens and cost."""

    def __init__(self, total: int, *, enabled: bool, stats: Callable[[], dict[str, float]],
                 console: Console | None = None, title: str = "", interval_s: float = 30.0,
                 resumed: Mapping[str, int] | None = None):
        """`resumed`: questions earlier attempts finished, per case (`done_per_case`)."""
        self.total = total
        self.title = title
        self.interval_s = interval_s
        self.done = 0
        self.tool_calls = 0
        self.phase = "starting"
        self._stats = stats
        self._start = time.monotonic()
        self._last_line = self._start
        self._console = console or Console(stderr=True)
        self._live = enabled and self._console.is_terminal
        self._enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._early: dict[str, int] = {}  # questions of an unfinished case already counted (question_answered)
        self._resumed = {case: n for case, n in (resumed or {}).items() if n > 0}  # not yet passed through
        self.done_before = min(total, sum(self._resumed.values()))
        self._passed = 0  # of done: questions finished by an earlier attempt, counted as their case passed

    def __enter__(self) -> RunProgress:
        if self.done_before:
            where = f"{self.title}: " if self.title else ""
            self.note(f"{where}resuming: {self.done_before} of {self.total} questions already done")
        if self._live:
            self._progress = Progress(
                TextColumn(f"[bold]{self.title} " if self.title else ""),
                TextColumn("[bold]{task.fields[phase]:<8}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("questions"),
                TimeElapsedColumn(),
                TextColumn("ETA {task.fields[eta]}"),
                TextColumn("{task.fields[extra]}"),
                console=self._console,
                transient=False,
            )
            self._progress.start()
            self._task = self._progress.add_task("run", total=self.total, phase=self.phase, extra="",
                                               eta=_clock(None))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._refresh()
            self._progress.stop()

    def _extra(self) -> str:
        s = self._stats()
        share = s.get("cache_hit_share")
        cost = s.get("cost_usd", 0.0)
        per_question = f"  ${cost / self.done:.4f}/q" if self.done else ""
        return (f"tools {self.tool_calls}  tok {int(s.get('tokens', 0)):,}"
                + (f"  cache {share:.0%}" if share is not None else "") + f"  ${cost:.4f}{per_question}")

    def _refresh(self) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self.done, phase=self.phase, extra=self._extra(),
                                  eta=_clock(self.eta_s()))

    def eta_s(self) -> float | None:
        """Seconds left at this attempt's own rate (None before its first question): the questions left
        are the total less what is done and what earlier attempts finished that has not passed yet."""
        new = self.done - self._passed
        if new <= 0:
            return None
        left = max(0, self.total - self.done - (self.done_before - self._passed))
        return left * self.elapsed_s() / new

    def elapsed_s(self) -> float:
        """Wall-clock seconds since this run (or sweep point) started: the report sets it beside the
        per-case phase totals, which add up concurrent cases and so exceed it."""
        return time.monotonic() - self._start

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        self._refresh()
        self._heartbeat()

    def add_questions(self, n: int) -> None:
        """More questions than the dataset's (an adversarial round): the total and the ETA follow."""
        self.total += n
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, total=self.total)

    def note(self, message: str) -> None:
        """A line the user should see whether or not the bar is shown (a step skipped, to retry)."""
        self._console.print(message, markup=False, highlight=False)

    def add_tool_calls(self, n: int = 1) -> None:
        self.tool_calls += n
        if self.tool_calls % 25 == 0:
            self._refresh()
        self._heartbeat()

    def _heartbeat(self) -> None:
        """Not on a terminal: a status line when nothing was printed for `interval_s` (work goes on)."""
        if self._enabled and not self._live and time.monotonic() - self._last_line >= self.interval_s:
            self._line(f"{self.phase}: working")

    def _line(self, label: str) -> None:
        now = time.monotonic()
        elapsed = now - self._start
        left = self.eta_s()
        eta = f"{left:.0f}s" if left is not None else "?"
        where = f"{self.title}  " if self.title else ""
        print(f"[{self.done}/{self.total}] {where}{label}  elapsed {elapsed:.0f}s  ETA {eta}  {self._extra()}",
              file=sys.stderr, flush=True)
        self._last_line = now

    def question_answered(self, case_id: str, label: str) -> None:
        """One question of a many-question case (a LoCoMo conversation) answered: counted now, so
        progress and ETA move within the case; `question_done` for the case counts only the rest."""
        self._early[case_id] = self._early.get(case_id, 0) + 1
        self.question_done(label, 1)

    def question_done(self, label: str, n: int = 1, *, case_id: str | None = None) -> None:
        n = max(0, n - self._early.pop(case_id, 0)) if case_id is not None else n
        if case_id in self._resumed:  # the rest of this case's count is what an earlier attempt finished
            self._passed += min(n, self._resumed.pop(case_id))
        self.done += n
        self._refresh()
        if self._enabled and not self._live:
            self._line(label)
