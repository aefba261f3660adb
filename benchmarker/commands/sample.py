"""`sample PATH`: write the generated LongMemEval-format sample dataset."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from benchmarker.commands.base import Command
from benchmarker.errors import UserError


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for an integer in [low, high] (the same ranges as the [dataset] keys)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {value}")
        return value
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, metavar="PATH", help="the JSON file to write (its folder must exist)")
    parser.add_argument("--seed", type=int, default=42,
                        help="random seed: the same seed and sizes give the same file (default 42)")
    parser.add_argument("--questions-per-type", type=int_in(1, 50), default=2,
                        help="questions per question type, 1..50 (default 2)")
    parser.add_argument("--sessions-per-question", type=int_in(3, 200), default=8,
                        help="sessions in each question's haystack, evidence included, 3..200 (default 8)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.suites.sample.data import write_sample

    if args.path.is_dir():
        raise UserError(f"sample: {args.path} is a directory; give a file path, e.g. "
                        f"{args.path / 'sample_longmemeval.json'}")
    try:
        write_sample(args.path, seed=args.seed, questions_per_type=args.questions_per_type,
                     sessions_per_question=args.sessions_per_question)
    except OSError as err:
        raise UserError(f"sample: cannot write {args.path}: {err.strerror or err}") from None
    print(f"wrote {args.path}")
    return 0


COMMAND = Command(name="sample", help="write the generated LongMemEval-format sample dataset",
                  add_arguments=add_arguments, run=run,
                  description="Write the generated sample dataset (LongMemEval's JSON format: every question type "
                              "plus abstention, with their evidence sessions among distractors) to PATH, e.g. to "
                              "read it or to point [dataset] file at it. The quickstart generates the same data "
                              "itself.",
                  example="mycelian-longmemeval sample /tmp/sample_longmemeval.json --questions-per-type 5")
