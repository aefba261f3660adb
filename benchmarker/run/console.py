"""What `run` prints when it finishes: where the results are and a short table."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from benchmarker.registry import suites_of
from benchmarker.reporting.sweep import SweepTable
from benchmarker.scoring.qa_metrics import shown_rows
from benchmarker.scoring.validity import headline


def _pct(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("accuracy") is None:
        return "-"
    lo, hi = cell.get("ci95") or (None, None)
    ci = f" [{lo * 100:.0f}-{hi * 100:.0f}]" if lo is not None and hi is not None else ""
    return f"{cell['accuracy'] * 100:.1f}%{ci} (n={cell.get('n', 0)})"


def _not_a_score(value: str) -> str:
    return f"[strike]{escape(value)}[/strike] not a score"


def summary_table(summary: dict[str, Any], title: str) -> Table:
    table = Table(title=title, show_header=True)
    table.add_column("metric")
    table.add_column("value")
    invalid = headline(summary.get("validity"))
    if invalid:  # an invalid run says so first, and its accuracy is not a score (scoring/validity.py)
        table.add_row("[bold red]verdict[/]", f"[bold red]{escape(invalid)}[/]")
    elif checks := (summary.get("validity") or {}).get("checks"):
        table.add_row("verdict", escape(f"valid: {len(checks)} checks within their [validity] thresholds"))
    score = _not_a_score if invalid else str
    qa = summary.get("qa") or {}
    if qa.get("judged"):
        table.add_row("overall accuracy", score(_pct(qa.get("overall"))))
        ta = qa.get("task_averaged") or {}
        if ta.get("accuracy") is not None:
            table.add_row("task-averaged accuracy", score(f"{ta['accuracy'] * 100:.1f}%"))
        (label, abstention), *types = shown_rows(qa)   # the type that is exactly abstention: shown once
        if abstention.get("n"):
            table.add_row(f"{label} accuracy", score(_pct(abstention)))
        for qtype, cell in sorted(types):
            table.add_row(f"  {qtype}", score(_pct(cell)))
    metrics = (summary.get("retrieval") or {}).get("metrics") or {}
    for key in ("session.recall_any@5", "session.recall_all@10", "turn.recall_any@10"):
        if metrics.get(key) is not None:
            table.add_row(key, f"{metrics[key]:.3f}")
    for suite in suites_of((summary.get("counts") or {}).get("by_kind") or ()):
        for name, value in suite.reporting.console_rows(summary):
            table.add_row(name, value)
    if reader := _reader_context(summary.get("budget") or {}):
        table.add_row("reader context", escape(reader))
    cost = summary.get("cost") or {}
    tokens = cost.get("tokens_total") or {}
    if tokens:
        usd = (cost.get("usd") or {}).get("total")
        if usd is None and not tokens.get("input") and not tokens.get("output"):
            usd = 0.0  # nothing was spent, so nothing needs a price
        table.add_row("tokens in / out / cost",
                      f"{tokens.get('input', 0):,} / {tokens.get('output', 0):,} / "
                      + (f"${usd:.4f}" if usd is not None else "unpriced: add [prices]"))
    unsearchable = (summary.get("counts") or {}).get("not_searchable") or {}
    if unsearchable.get("questions") or unsearchable.get("cases_failed"):
        table.add_row("not searchable", f"{unsearchable.get('questions', 0)} question(s) left out of the metrics; "
                                        f"{unsearchable.get('cases_failed', 0)} case(s) failed (a re-run retries them)")
    if summary.get("offline"):
        table.add_row("note", "offline models: a reproducible floor, not a model's score")
    return table


def _reader_context(budget: dict[str, Any]) -> str:
    """What the readers saw, in measured tokens (reporting/budget.py), so two runs' budgets can be told apart."""
    measured = budget.get("context_tokens") or {}
    if not measured.get("n"):
        return ""
    line = (f"mean {measured['mean']:,.0f}, p95 {measured['p95']:,.0f}, max {measured['max']:,} tokens "
            f"({budget.get('tokenizer')}); top_k {budget.get('top_k')}")
    if budget.get("context_budget_tokens"):
        cut = (budget.get("cut") or {}).get("questions", 0)
        line += f"; budget {budget['context_budget_tokens']:,} ({cut} question(s) cut)"
    trimmed = budget.get("hits_trimmed") or {}
    return line + (f"; {trimmed['hits']} hit(s) above top_k trimmed" if trimmed.get("hits") else "")


def sweep_console_table(sweep: SweepTable) -> Table:
    """The sweep comparison as a terminal table (the markdown in sweep.md is for files)."""
    table = Table(title=f"sweep: points ranked by {sweep.get('metric', '?')}", show_header=True)
    for name in sweep["table"]["header"]:
        table.add_column(name, no_wrap=name == "dir")
    for cells in sweep["table"]["rows"]:
        table.add_row(*cells)
    return table


def print_outcome(outcome) -> None:
    # a log file or a pipe has no width: keep a sweep row on one line instead of rich's default 80 columns
    console = Console() if Console().is_terminal else Console(width=200)
    console.print(f"results: {outcome.run_dir}")
    if outcome.skipped:
        errors = outcome.run_dir / "errors.jsonl"
        console.print(f"[yellow]warning:[/] {len(outcome.skipped)} case(s) did not finish: "
                      f"{', '.join(outcome.skipped[:10])}{' ...' if len(outcome.skipped) > 10 else ''}. "
                      + (f"Errors are in {errors}. " if errors.exists() else "Reasons are in the progress log above. ")
                      + "Re-running the same command retries them.")
    report = outcome.run_dir / "report.html"
    if report.exists():
        console.print(f"report:  {report}")
    if outcome.points and len(outcome.points) > 1:
        if outcome.sweep:
            console.print(sweep_console_table(outcome.sweep["sweep"]))
            console.print(outcome.sweep["sweep"]["verdict"])
        return
    if not outcome.summary.is_empty():
        retrieval_only = outcome.summary.run.mode == "retrieval"
        console.print(summary_table(outcome.summary.as_dict(), f"run {outcome.run_dir.name}"
                                    + (" (retrieval-only: search measured, nothing answered or judged)" if retrieval_only
                                       else "")))
