"""`estimate CONFIG`: tokens and cost of a run before paying for it."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, metavar="CONFIG", help="the TOML `run` would be given")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (schema_version 1) instead of the tables")


def run(args: argparse.Namespace) -> int:
    import json
    import tempfile

    from benchmarker.config import load_config
    from benchmarker.verbs.estimate import estimate_json, estimate_run, format_estimate

    config = load_config(args.config)
    with tempfile.TemporaryDirectory() as scratch:  # generated data is written here, not into runs/
        est = estimate_run(config, Path(scratch))
    print(json.dumps(estimate_json(est), indent=2) if args.json else format_estimate(est))
    return 0


COMMAND = Command(name="estimate", help="estimate tokens and cost of the run a TOML config describes",
                  add_arguments=add_arguments, run=run,
                  description="Estimate the tokens and the cost (USD, from [prices]) of the run CONFIG describes, per "
                              "role (agent, reader, judge), before paying for it. Nothing is called and nothing is "
                              "written under the run's output directory; exit 0, or 2 on a config problem.",
                  example="mycelian-longmemeval estimate configs/openai.toml\n"
                          "mycelian-longmemeval estimate configs/openai.toml --json")
