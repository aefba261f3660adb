"""`score RUN_DIR CONFIG`: judge a finished run's answers again with CONFIG's judge (no re-ingestion)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a finished run directory (its answers.jsonl)")
    parser.add_argument("config", type=Path, help="a TOML whose [provider], [models].eval and [eval] set the judge")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from benchmarker.config import load_config
    from benchmarker.run.console import summary_table
    from benchmarker.run.run_lock import hold_run_lock, run_root
    from benchmarker.verbs.rescore import rescore

    config = load_config(args.config)
    with hold_run_lock(run_root(args.run_dir), "score"):
        summary, out = asyncio.run(rescore(args.run_dir, config))
        own = _rebuild_run_report(args.run_dir)
    print(f"scores: {out}\nreport: {out / 'report.html'}")
    if own:
        print(own)
    Console().print(summary_table(summary.as_dict(), f"{args.run_dir.name} re-judged by {out.name}"))
    return 0


def _rebuild_run_report(run_dir: Path) -> str:
    """The run's own summary and report, rebuilt so they show every judging side by side ("Does the judge
    decide it?"); the line to print. A run whose own files cannot be rebuilt keeps them: the re-judging stands."""
    from benchmarker.errors import UserError
    from benchmarker.registry import SUITE_LOOKUP
    from benchmarker.reporting.outputs import rebuild_outputs

    if not (run_dir / "manifest.json").is_file():
        return ""
    try:
        return f"run report (every judging side by side): {rebuild_outputs(run_dir, SUITE_LOOKUP)}"
    except UserError as err:
        return f"warning: the run's own report was not rebuilt ({err}); `report {run_dir}` rebuilds it"


COMMAND = Command(name="score", help="re-judge a finished run's answers with the judge a config describes",
                  add_arguments=add_arguments, run=run,
                  description="Judge a finished run's answers again with CONFIG's judge, without re-ingesting or "
                              "re-answering. The new scores and report go to RUN_DIR/scores/<judge>/; the run's own "
                              "files are left as they are, except that its summary.json and report are rebuilt to show every "
                              "judging side by side (\"Does the judge decide it?\"). Resumable: the same command "
                              "finishes what is missing.",
                  example="mycelian-longmemeval score runs/quickstart-1a2b3c4d configs/openai.toml")
