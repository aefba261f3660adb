"""`run CONFIG`: run (or resume) the benchmark a TOML file describes."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path)


def run(args: argparse.Namespace) -> int:
    from benchmarker.config import load_config

    config = load_config(args.config)  # raises ConfigError (exit 2) before anything starts
    from benchmarker.run.console import print_outcome
    from benchmarker.run.runner import execute_run

    outcome = asyncio.run(execute_run(config))
    print_outcome(outcome)
    return 0


COMMAND = Command(name="run", help="run or resume the benchmark described by a TOML config",
                  add_arguments=add_arguments, run=run)
