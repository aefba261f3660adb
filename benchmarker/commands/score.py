"""`score RUN_DIR CONFIG`: judge a finished run's answers again with CONFIG's judge (no re-ingestion)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("config", type=Path, help="a TOML whose [provider], [models].eval and [eval] set the judge")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from benchmarker.config import load_config
    from benchmarker.run.console import summary_table
    from benchmarker.run.rescore import rescore
    from benchmarker.run.run_lock import hold_run_lock, run_root

    config = load_config(args.config)
    with hold_run_lock(run_root(args.run_dir), "score"):
        summary, out = asyncio.run(rescore(args.run_dir, config))
    print(f"scores: {out}\nreport: {out / 'report.html'}")
    Console().print(summary_table(summary, f"{args.run_dir.name} re-judged by {out.name}"))
    return 0


COMMAND = Command(name="score", help="re-judge a finished run's answers with the judge a config describes",
                  add_arguments=add_arguments, run=run)
