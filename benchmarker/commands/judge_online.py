"""`judge-online CONFIG`: the fact-enumeration judge (P / R / F1) over traced memory-extraction runs."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="a TOML with [online] (source, project, tag, since, until) and the judge")
    parser.add_argument("--estimate", action="store_true", help="only count what would be judged: tokens and USD")


def run(args: argparse.Namespace) -> int:
    from benchmarker.config import load_config
    from benchmarker.verbs.judge_online import OnlineSource, estimate_judge_online, run_judge_online

    if args.estimate:
        config = load_config(args.config)
        data = estimate_judge_online(config.run_dir, OnlineSource(config.online, config.tracing, config.config_path),
                                     config.provider.type, config.models.eval, config.prices)
        usd = "no price in [prices]" if data["usd"] is None else f"${data['usd']:,.4f}"
        print(f"{data['runs_to_judge']} runs to judge ({data['already_judged']} already judged) with {data['model']}: "
              f"~{data['input_tokens']:,} tokens in, ~{data['output_tokens']:,} out, {usd}")
        return 0
    from benchmarker.run.run_lock import hold_run_lock

    config = load_config(args.config)
    config.run_dir.mkdir(parents=True, exist_ok=True)
    with hold_run_lock(config.run_dir, "judge-online"):
        asyncio.run(run_judge_online(config))
    return 0


COMMAND = Command(name="judge-online", help="the fact-enumeration judge over traced memory-extraction runs "
                                            "(LangSmith, or a run's decisions.jsonl)",
                  add_arguments=add_arguments, run=run,
                  description="Judge memory-extraction runs traced outside the benchmark (LangSmith, or a run's "
                              "decisions.jsonl): a model enumerates the facts each conversation held and each run "
                              "stored, giving precision, recall and F1. Results go to CONFIG's run directory; "
                              "runs already judged are skipped.",
                  example="mycelian-longmemeval judge-online configs/online.toml --estimate\n"
                          "mycelian-longmemeval judge-online configs/online.toml")
