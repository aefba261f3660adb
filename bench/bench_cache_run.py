"""A real run through a local Anthropic-compatible server that reports prompt-cache usage like the API.

    .venv/bin/python bench/bench_cache_run.py [--unit message] [--limit 5] [--data PATH] [--lean [--every N]]

The server (tests/fakes/anthropic_server.py) speaks the Messages API, simulates Anthropic's prompt
cache (breakpoints, 20-block look-back, Claude 3.5 Haiku's 2,048-token minimum, 5-minute TTL) and
answers with the offline memory agent / reader, so the harness's real langchain-anthropic client,
caching middleware and ledger are exercised on the real data. Prints the ledger's cache-read share of
agent input tokens and checks the ledger's cost against a hand calculation from the raw usage the
server sent (Claude 3.5 Haiku prices), and against what `estimate` says for the same config (they must
agree within 10%). `--lean` runs configs/lean.toml's agent settings (session unit, raw_entry = "harness",
context_update = "session", 3 tools) instead of the unit's defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_DATA = REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
MODEL = "claude-3-5-haiku-latest"
PRICE = {"input": 0.80, "output": 4.0, "cached_input": 0.08, "cache_write": 1.0}

CONFIG = """
dataset_file = "{data}"
vault_title = "cache-bench"
[provider]
type = "anthropic"
[provider.anthropic]
base_url = "{url}"
api_key_env = "BENCH_ANTHROPIC_KEY"
[models]
agent = "{model}"
qa = "{model}"
[agent]
ingest_unit = "{unit}"
prompt_cache = {cache}
{agent_extra}
[memory]
embedder = "none"
alpha = 0.0
[run]
limit = {limit}
progress = false
output_dir = "{out}"
[prices]
"{model}" = {{ input = {input}, output = {output}, cached_input = {cached_input}, cache_write = {cache_write} }}
"""


def hand_cost(usages: list[dict]) -> float:
    """USD from the raw usage blocks the server sent (Anthropic's input_tokens is the uncached part)."""
    plain = sum(u["input_tokens"] for u in usages)
    read = sum(u.get("cache_read_input_tokens") or 0 for u in usages)
    write = sum(u.get("cache_creation_input_tokens") or 0 for u in usages)
    out = sum(u["output_tokens"] for u in usages)
    return (plain * PRICE["input"] + read * PRICE["cached_input"] + write * PRICE["cache_write"]
            + out * PRICE["output"]) / 1e6


LEAN = ('raw_entry = "harness"\ncontext_update = "session"\ncontext_every_sessions = {every}\n'
        'tools = ["get_context", "add_entry", "put_context"]')


def estimated(config) -> dict:
    """What `estimate` says for the same config (agent role and total)."""
    from benchmarker.verbs.estimate import cost, estimate_run

    with tempfile.TemporaryDirectory() as scratch:
        est = estimate_run(config, Path(scratch))
    usd = cost(est, config)
    return {"calls": est.agent.calls, "agent_usd": usd["agent"], "total_usd": sum(v or 0.0 for v in usd.values())}


def run(unit: str, limit: int, data: Path, cache: bool, lean_every: int = 0) -> dict:
    from benchmarker.config import load_config
    from benchmarker.run.runner import execute_run
    from tests.fakes.anthropic_server import AnthropicServer
    from tests.fakes.brain import offline_brain

    os.environ["BENCH_ANTHROPIC_KEY"] = "local"
    with tempfile.TemporaryDirectory() as tmp, \
            AnthropicServer(brain=offline_brain(), min_cacheable_tokens=2048) as server:
        path = Path(tmp) / f"cache-{unit}.toml"
        extra = LEAN.format(every=lean_every) if lean_every else ""
        path.write_text(CONFIG.format(data=data, url=server.base_url, model=MODEL, unit=unit, limit=limit,
                                      cache=str(cache).lower(), out=Path(tmp) / "runs", agent_extra=extra, **PRICE),
                        encoding="utf-8")
        config = load_config(path)
        estimate = estimated(config)
        started = time.monotonic()
        outcome = asyncio.run(execute_run(config))
        elapsed = time.monotonic() - started
        ledger = json.loads((outcome.run_dir / "manifest.json").read_text())["tokens"]
        usages = list(server.usages)
    agent, total = ledger["roles"]["agent"], ledger["total"]
    label = f"{unit} lean (every {lean_every})" if lean_every else unit
    return {"unit": label, "prompt_cache": cache, "questions": outcome.summary["counts"]["questions"],
            "estimate_agent_usd": estimate["agent_usd"], "estimate_calls": estimate["calls"],
            "agent_usd": agent["cost_usd"], "agent_output": agent["output_tokens"],
            "seconds": round(elapsed, 1), "agent_calls": agent["calls"], "agent_input": agent["input_tokens"],
            "agent_cache_read_share": agent["cache_hit_share"], "agent_cache_write": agent["cache_write_tokens"],
            "ledger_usd": total["cost_usd"], "hand_usd": hand_cost(usages), "server_calls": len(usages),
            "usd_per_question": total["cost_usd"] / max(1, outcome.summary["counts"]["questions"]),
            "session_recall_any@5": outcome.summary["retrieval"]["metrics"].get("session.recall_any@5"),
            "accuracy": outcome.summary.get("qa", {}).get("overall", {}).get("accuracy")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--unit", action="append", choices=("message", "exchange", "session"))
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--no-cache", action="store_true", help="also run with prompt_cache = false")
    parser.add_argument("--lean", action="store_true", help="also run configs/lean.toml's agent settings")
    parser.add_argument("--every", type=int, action="append", help="context_every_sessions for --lean (default: 2 and 4)")
    args = parser.parse_args()
    if not args.data.is_file():
        print(f"skipped: {args.data} not found")
        return 0
    rows = [run(unit, args.limit, args.data, cache) for unit in (args.unit or ["message"])
            for cache in ((True, False) if args.no_cache else (True,))]
    rows += [run("session", args.limit, args.data, True, every) for every in (args.every or [2, 4])] if args.lean else []
    print("| unit | cache | questions | s | agent calls (estimate) | agent input | cache-read share | agent output "
          "| agent $ (estimate) | ledger $ | hand $ | $/q | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        share, acc = r["agent_cache_read_share"], r["accuracy"]
        print(f"| {r['unit']} | {r['prompt_cache']} | {r['questions']} | {r['seconds']} | {r['agent_calls']:,} "
              f"({r['estimate_calls']:,}) | {r['agent_input']:,} | {'n/a' if share is None else f'{share:.1%}'} | "
              f"{r['agent_output']:,} | {r['agent_usd']:.4f} ({r['estimate_agent_usd']:.4f}) | {r['ledger_usd']:.4f} | "
              f"{r['hand_usd']:.4f} | {r['usd_per_question']:.4f} | {'n/a' if acc is None else f'{acc:.2f}'} |")
        assert abs(r["ledger_usd"] - r["hand_usd"]) < 1e-9, "ledger and hand calculation disagree"
        assert r["server_calls"] == r["agent_calls"] + r["questions"], "every model call reached the ledger"
    for r in rows:
        if "lean" in r["unit"]:
            gap = abs(r["agent_usd"] - r["estimate_agent_usd"]) / r["estimate_agent_usd"]
            print(f"{r['unit']}: simulated-cache run ${r['agent_usd']:.4f} vs estimate ${r['estimate_agent_usd']:.4f} "
                  f"for the agent ({gap:.1%} apart)")
            assert gap <= 0.10, "the simulated-cache run and estimate disagree by more than 10%"
    return 0


if __name__ == "__main__":
    sys.exit(main())
