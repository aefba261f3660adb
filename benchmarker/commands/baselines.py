"""`baselines RUN_DIR [CONFIG]`: the run's questions again with no memory and with the whole history."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.commands.base import Command
from benchmarker.registry import SUITE_LOOKUP

if TYPE_CHECKING:
    from benchmarker.verbs.estimate_shapes import BaselinesEstimate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a finished run directory")
    parser.add_argument("config", type=Path, nargs="?", default=None,
                        help="another reader, judge or [baselines] budget; default: the run's own config")
    parser.add_argument("--only", default=None, metavar="NAMES",
                        help="a comma-separated subset of no_memory,full_context (default: both)")
    parser.add_argument("--estimate", action="store_true",
                        help="only price the reader and judge calls: tokens, cache reads and USD")


def _usd(value: Any) -> str:
    return "no price in [prices]" if value is None else f"${value:,.4f}"


def _print_estimate(data: BaselinesEstimate) -> None:
    models = data["models"]
    for name, b in data["baselines"].items():
        qa = b["qa"]
        print(f"baselines {name}: {b['pending']} of {data['questions']} questions to answer and judge: reader "
              f"{models['qa']} ~{qa['input_tokens']:,} tokens in (cache read ~{qa['cache_read_tokens']:,}, "
              f"cache write ~{qa['cache_write_tokens']:,}), ~{qa['output_tokens']:,} out; judge "
              f"{models['eval'] or 'deterministic'} ~{b['eval']['input_tokens']:,} in; {_usd(b['usd'])}")
    print(f"total {_usd(data['usd'])}; {data['approximation']}")


def run(args: argparse.Namespace) -> int:
    from benchmarker.reporting.fmt import pct
    from benchmarker.reporting.outputs import rebuild_outputs
    from benchmarker.reporting.summary_block import Cell
    from benchmarker.reporting.summary_model import load_summary
    from benchmarker.run.run_lock import hold_run_lock, run_root
    from benchmarker.verbs.baseline_estimate import estimate_baselines
    from benchmarker.verbs.baselines import chosen, run_baselines, run_config

    run_dir: Path = args.run_dir
    names = chosen(args.only)
    config = run_config(run_dir, args.config)
    if args.estimate:
        _print_estimate(estimate_baselines(run_dir, config, names))
        return 0
    with hold_run_lock(run_root(run_dir), "baselines"):
        done = asyncio.run(run_baselines(run_dir, config, names))
        report = rebuild_outputs(run_dir, SUITE_LOOKUP)  # the run's report now shows "Is memory needed here?"
    qa = load_summary(run_dir / "summary.json").qa
    mine = qa.overall.accuracy if qa is not None and qa.overall is not None else None
    parts = [f"memory {pct(mine)}"]
    for name, summary, out in done:
        overall = summary.qa.overall if summary.qa is not None and summary.qa.overall is not None else Cell()
        usd = summary.usd_total()
        parts.append(f"{name} {pct(overall.accuracy)} (n={overall.n or 0}, "
                     f"cost {'n/a' if usd is None else f'${usd:,.4f}'})")
        print(f"baselines {name}: {out}")
    print(f"report: {report}\naccuracy: " + "; ".join(parts))
    return 0


COMMAND = Command(name="baselines", help="re-ask a finished run's questions with no memory and with the whole "
                                         "history: is memory needed here?",
                  add_arguments=add_arguments, run=run,
                  description="Ask a finished run's questions again with no context at all (no_memory) and with the "
                              "case's whole history cut to [baselines] full_context_tokens, oldest sessions first "
                              "(full_context), judged by the run's judge. Writes RUN_DIR/baselines/<name>/ and adds "
                              "\"Is memory needed here?\" to the run's report.",
                  example="mycelian-longmemeval baselines runs/quickstart-1a2b3c4d --estimate\n"
                          "mycelian-longmemeval baselines runs/quickstart-1a2b3c4d --only no_memory")
