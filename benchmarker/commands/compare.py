"""`compare RUN_DIR ...`: side by side, per-question flips and a paired significance test."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command
from benchmarker.errors import UserError
from benchmarker.registry import SUITE_LOOKUP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dirs", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=None, help="also write the comparison (markdown) here")


def run(args: argparse.Namespace) -> int:
    from benchmarker.reporting.compare import compare_runs, format_compare

    for run_dir in args.run_dirs:
        if not (run_dir / "results.jsonl").exists():
            raise UserError(f"{run_dir}: no results.jsonl here; is it a run directory (or a sweep point)?")
    text = format_compare(compare_runs(list(args.run_dirs), SUITE_LOOKUP), SUITE_LOOKUP)
    print(text)
    if args.out:
        from benchmarker.log.jsonl import write_text_atomic

        write_text_atomic(args.out, text)
    return 0


COMMAND = Command(name="compare", help="compare runs: per type, flips, McNemar / paired bootstrap",
                  add_arguments=add_arguments, run=run)
