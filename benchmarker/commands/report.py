"""`report RUN_DIR`: re-compute summary.json and the report from a run directory's files."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command
from benchmarker.registry import SUITE_LOOKUP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory (runs/<run_id>)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.reporting.outputs import rebuild_outputs
    from benchmarker.run.run_lock import hold_run_lock

    with hold_run_lock(args.run_dir, "report"):  # a run (or another report) rewrites the same files
        path = rebuild_outputs(args.run_dir, SUITE_LOOKUP)
    print(f"report: {path}")
    return 0


COMMAND = Command(name="report", help="rebuild summary.json and report.{md,html} from a run directory",
                  add_arguments=add_arguments, run=run,
                  description="Re-compute summary.json, report.md, report.html and plots/ from the files a run "
                              "directory holds (results.jsonl, manifest.json, ...): after an upgrade, or a run that "
                              "was cut off. No model is called. Refused (exit 2) while a run holds the directory.",
                  example="mycelian-longmemeval report runs/quickstart-1a2b3c4d")
