"""`oracle RUN_DIR [CONFIG]`: the run's questions again with only their gold evidence as context."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarker.commands.base import Command
from benchmarker.registry import SUITE_LOOKUP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a finished run directory")
    parser.add_argument("config", type=Path, nargs="?", default=None,
                        help="another reader or judge ([provider], [models].qa / eval, [eval]); default: the run's own")
    parser.add_argument("--estimate", action="store_true", help="only price the reader and judge calls: tokens and USD")


def run(args: argparse.Namespace) -> int:
    from benchmarker.reporting.fmt import pct
    from benchmarker.reporting.outputs import rebuild_outputs
    from benchmarker.reporting.summary_block import Cell
    from benchmarker.reporting.summary_model import load_summary
    from benchmarker.run.run_lock import hold_run_lock, run_root
    from benchmarker.verbs.oracle import estimate_oracle, run_config, run_oracle
    from benchmarker.verbs.role_pricing import role_pricing

    run_dir: Path = args.run_dir
    config = run_config(run_dir, args.config)
    if args.estimate:
        data = estimate_oracle(run_dir, config.params, config.run,
                               role_pricing(config.models, config.provider, config.batch, config.prices))
        usd = "no price in [prices]" if data["usd"] is None else f"${data['usd']:,.4f}"
        print(f"oracle: {data['pending']} of {data['questions']} questions to answer and judge: reader "
              f"{data['models']['qa']} ~{data['qa']['input_tokens']:,} tokens in, ~{data['qa']['output_tokens']:,} out; "
              f"judge {data['models']['eval'] or 'deterministic'} ~{data['eval']['input_tokens']:,} in; {usd}")
        return 0
    with hold_run_lock(run_root(run_dir), "oracle"):
        summary, out = asyncio.run(run_oracle(run_dir, config))
        report = rebuild_outputs(run_dir, SUITE_LOOKUP)  # the run's report now shows memory vs gold evidence
    qa = load_summary(run_dir / "summary.json").qa
    mine = qa.overall if qa is not None and qa.overall is not None else Cell()
    gold = summary.qa.overall if summary.qa is not None and summary.qa.overall is not None else Cell()
    cost = summary.usd_total()
    print(f"oracle: {out}\nreport: {report}\naccuracy with memory {pct(mine.accuracy)}, with the gold evidence "
          f"{pct(gold.accuracy)} (n={gold.n or 0}); cost {'n/a' if cost is None else f'${cost:,.4f}'}")
    return 0


COMMAND = Command(name="oracle", help="re-ask a finished run's questions with only their gold evidence as the "
                                      "reader's context: how much of the score memory loses",
                  add_arguments=add_arguments, run=run,
                  description="Ask a finished run's questions again with only their gold evidence sessions as the "
                              "reader's context, and judge the answers: the gap to the run's own accuracy is what "
                              "memory lost. Writes RUN_DIR/oracle/ and adds the comparison to the run's report.",
                  example="mycelian-longmemeval oracle runs/quickstart-1a2b3c4d --estimate\n"
                          "mycelian-longmemeval oracle runs/quickstart-1a2b3c4d")
