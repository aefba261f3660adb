"""`replay RUN_DIR CONFIG`: re-apply a finished run's recorded memory writes to CONFIG's memory backend,
then QA and eval with CONFIG's reader and judge (no agent model call)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, help="a finished agent-mode run directory (its decisions.jsonl)")
    parser.add_argument("config", type=Path, help="a TOML whose [memory], [params], [models].qa and [eval] "
                                                  "are used; same dataset and questions as the run")


def run(args: argparse.Namespace) -> int:
    from benchmarker.config import load_config
    from benchmarker.verbs.replay import execute_replay, print_replay_outcome

    outcome = asyncio.run(execute_replay(args.run_dir, load_config(args.config)))
    print_replay_outcome(outcome, args.run_dir)
    return 0


COMMAND = Command(name="replay", help="re-apply a finished run's memory writes into CONFIG's memory backend, "
                                      "then QA and eval (no agent model call)",
                  add_arguments=add_arguments, run=run,
                  description="Re-apply the memory writes a finished agent-mode run recorded (decisions.jsonl) to "
                              "CONFIG's memory backend, then answer and judge with CONFIG's reader and judge: compare "
                              "memory backends or search settings on the same writes, with no agent model call. "
                              "Writes a new run directory under CONFIG's [run] output_dir.",
                  example="mycelian-longmemeval replay runs/quickstart-1a2b3c4d configs/replay_bm25.toml")
