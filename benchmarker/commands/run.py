"""`run CONFIG`: run (or resume) the benchmark a TOML file describes."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, metavar="CONFIG",
                        help="the run's TOML (see configs/: quickstart.toml runs offline with no key)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.config import load_config

    config = load_config(args.config)  # raises ConfigError (exit 2) before anything starts
    from benchmarker.run.console import print_outcome
    from benchmarker.run.runner import execute_run

    outcome = asyncio.run(execute_run(config))
    print_outcome(outcome)
    return 0


DESCRIPTION = """Run the benchmark a TOML config describes: ingest each case's sessions into memory, answer its
questions, judge the answers, then write summary.json and report.{md,html}.

Output: <[run] output_dir>/<run_id>/ (output_dir defaults to runs/ beside the config; run_id is the
config's top-level run_id key, else <config file stem>-<hash of the config>). The same config always
lands in the same directory.

Resume: running the same command again picks up where it stopped (finished cases are kept, failed ones
retried). To start fresh, remove that directory, or set another run_id or [run] output_dir.

Exit codes: 0 done; 1 the run stopped (max_failures_in_a_row failures, a lost memory server, a full
disk: see errors.jsonl, fix, run again to resume); 2 a config, dataset or run-directory problem (one
line names the key and the fix); 130 interrupted (the same command resumes)."""

COMMAND = Command(name="run", help="run or resume the benchmark described by a TOML config",
                  add_arguments=add_arguments, run=run, description=DESCRIPTION,
                  example="mycelian-longmemeval run configs/quickstart.toml\n"
                          "mycelian-longmemeval -v run configs/openai.toml     # OPENAI_API_KEY set")
