"""What `estimate` says for the five real LongMemEval_S questions at Claude 3.5 Haiku prices.

    .venv/bin/python bench/bench_estimate.py [--data ../shared/data/longmemeval/longmemeval_s_5q.json]

Prints the side-by-side comparison (prompt cache off / on x ingest unit message / exchange /
session with the default tool subset, and the "message, cache off, all 13 tools" baseline), what
the previous estimator (a fixed 2,400-token system prompt, 1,500 tokens of tool schemas, 120
output tokens a call, no cache) said for the same data, and how long the estimate took.
Skips with a message when the data file is absent.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_DATA = REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
MODEL = "claude-3-5-haiku-latest"
PRICE = {"input": 0.80, "output": 4.0, "cached_input": 0.08, "cache_write": 1.0}


def old_estimate(est_cases, cadence: int) -> tuple[int, int, int]:
    """The previous estimator's formula (run/estimate.py before this bench; verbs/estimate.py now): agent calls,
    input, output."""
    calls_total = input_total = output_total = 0
    for case in est_cases:
        for session in case.sessions:
            so_far = 0.0
            for turn, message in enumerate(session.messages, start=1):
                so_far += len(message.content) / 4.0 + 20
                calls = 2 + (2 if turn == 1 else 0) + (3 if turn % cadence == 0 or turn == len(session.messages)
                                                       else 0)
                prompt = 2400 + 1500 + so_far
                calls_total += calls
                input_total += int(calls * prompt + calls * (calls - 1) / 2 * 150)
                output_total += calls * 120
    return calls_total, input_total, output_total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not args.data.exists():
        print(f"skipped: {args.data} not found (the five real questions live in ../shared beside the repository)")
        return 0
    from benchmarker.config import load_config
    from benchmarker.registry import plan_dataset
    from benchmarker.suites.settings import PlanSettings
    from benchmarker.verbs.estimate import comparison, estimate_run, format_comparison, schema_tokens

    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = Path(tmp) / "haiku.toml"
        price = ", ".join(f"{k} = {v}" for k, v in PRICE.items())
        cfg_path.write_text(f'dataset_file = "{args.data.resolve()}"\n[provider]\ntype = "anthropic"\n[models]\n'
                            f'agent = "{MODEL}"\nqa = "{MODEL}"\neval = "{MODEL}"\n'
                            f'[prices]\n"{MODEL}" = {{ {price} }}\n',
                            encoding="utf-8")
        config = load_config(cfg_path)
        started = time.perf_counter()
        est = estimate_run(config, Path(tmp))
        elapsed = time.perf_counter() - started
        cases = [c for g in plan_dataset(PlanSettings.of(config), Path(tmp)).groups for c in g.cases()]
    rows = comparison(est, config)
    print(f"{args.data.name}: {est.questions} questions, {est.sessions} sessions, {est.messages} messages; "
          f"{MODEL} at ${PRICE['input']}/M in, ${PRICE['output']}/M out, ${PRICE['cached_input']}/M cache read, "
          f"${PRICE['cache_write']}/M cache write; estimated in {elapsed:.2f} s\n")
    print(format_comparison(rows) + "\n")
    t = schema_tokens(est)
    print(f"tool subset: {len(t['configured_tools'])} tools = {t['configured']:,} schema tokens per call instead of "
          f"{t['all_tools']:,} (saves {t['saved_per_call']:,} per call)\n")
    by = {(r["ingest_unit"], r["prompt_cache"]): r for r in rows if not r["baseline"]}
    print("USD total (agent + QA + judge), 6 tools:")
    for unit in ("message", "exchange", "session"):
        off, on = by[(unit, False)]["total_usd"], by[(unit, True)]["total_usd"]
        print(f"  {unit:<8}  cache off ${off:,.2f}   cache on ${on:,.2f}   ({off / on:.1f}x cheaper with the cache)")
    base = rows[0]
    print(f"  baseline  message, cache off, all 13 tools ${base['total_usd']:,.2f}\n")
    calls, tokens_in, tokens_out = old_estimate(cases, config.params.context_cadence)
    qa_eval = base["total_usd"] - base["agent_usd"]
    old_usd = (tokens_in * PRICE["input"] + tokens_out * PRICE["output"]) / 1e6
    print(f"previous estimator: {calls:,} agent calls, {tokens_in:,} input, {tokens_out:,} output tokens -> "
          f"agent ${old_usd:,.2f}, total ${old_usd + qa_eval:,.2f} (no cache, no unit, fixed prompt sizes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
