"""`calibrate CONFIG --labels FILE ...`: how far CONFIG's judge agrees with published labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="a TOML whose [dataset] file holds the gold answers and whose "
                                                  "[provider], [models].eval and [eval] set the judge")
    parser.add_argument("--labels", type=Path, action="append", required=True,
                        help="labelled answers (LongMemEval eval-results JSONL, or {question_id, hypothesis, "
                             "label} lines); repeat for more files")
    parser.add_argument("--development", type=Path, action="append", default=[], metavar="FILE",
                        help="a labels file the judge was developed on (its rules or prompts were tuned while looking "
                             "at it): calibrated too, but reported apart as a development fit, never as the "
                             "calibration; repeat for more. The deterministic grader knows its own (../shared's)")
    parser.add_argument("--judge", action="append", default=[], choices=("deterministic", "llm", "official"),
                        help="calibrate this judge instead of the config's (repeat: several judges, same labels)")
    parser.add_argument("--json", action="store_true", help="print each judge's summary as one JSON object a line")
    parser.add_argument("--estimate", action="store_true", help="only price the judge calls: tokens and USD")
    parser.add_argument("--out", type=Path, default=None,
                        help="write ROOT/<judge>/ here (default: <[run] output_dir>/calibration)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.verbs.calibrate import CalibrateArgs, run_calibrate_verb

    return run_calibrate_verb(CalibrateArgs(
        config=args.config, labels=tuple(args.labels), development=tuple(args.development), judges=tuple(args.judge),
        json=args.json, estimate=args.estimate, out=args.out))


COMMAND = Command(name="calibrate", help="measure CONFIG's judge against labelled answers: agreement, "
                                         "Cohen's kappa, confusion, per type and per file",
                  add_arguments=add_arguments, run=run,
                  description="Judge published, human- or model-labelled answers with CONFIG's judge (or --judge) "
                              "and measure how often it agrees with the labels: agreement, Cohen's kappa with an "
                              "interval, the confusion matrix, per question type and per labels file, and every "
                              "disagreement in report.html. A run's report then quotes this calibration.",
                  example="mycelian-longmemeval calibrate configs/calibrate.toml "
                          "--labels ../shared/data/judge/engrava.eval-results-gpt-4o.jsonl")
