"""Harness speed: one LongMemEval_S-sized question through ingest, qa and eval, offline + embedded.

Target (issue 3): <= 20 s per question on this 2-core machine. Also reports the harness's own
overhead per agent turn: everything but the model call (MCP tool calls included, and
separately without them).

    python bench/bench_harness.py [--embedder minilm|static|none] [--question-index 0]

Uses the first question of ../shared/data/longmemeval/longmemeval_s_5q.json when present (a
real S question: ~500 messages in ~50 sessions); otherwise generates a question of that size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

REAL_5Q = Path(__file__).resolve().parents[2] / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"


def _dataset(tmp: Path, index: int) -> tuple[Path, str, int, int]:
    if REAL_5Q.exists():
        data = json.loads(REAL_5Q.read_text(encoding="utf-8"))
        question = data[index]
    else:
        from benchmarker.suites.sample.data import generate_sample

        question = generate_sample(seed=1, questions_per_type=1, sessions_per_question=50)[0]
    path = tmp / "one_question.json"
    path.write_text(json.dumps([question]), encoding="utf-8")
    messages = sum(len(s) for s in question["haystack_sessions"])
    return path, question["question_id"], messages, len(question["haystack_sessions"])


def _time_model_calls() -> list[float]:
    """Wrap the offline agent model's call so its own time can be taken out of the turn time."""
    from benchmarker.agent import offline_agent

    spent: list[float] = []
    original = offline_agent.OfflineMemoryAgentModel._generate

    def timed(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            spent.append(time.perf_counter() - start)

    offline_agent.OfflineMemoryAgentModel._generate = timed
    return spent


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--question-index", type=int, default=0)
    args = parser.parse_args()
    from benchmarker.config import load_config
    from benchmarker.run.runner import execute_run

    model_times = _time_model_calls()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data, qid, messages, sessions = _dataset(tmp, args.question_index)
        alpha = 0.0 if args.embedder == "none" else 0.6
        cfg_path = tmp / "bench.toml"
        cfg_path.write_text(f'dataset_file = "{data}"\nrun_id = "bench"\n[memory]\nembedder = "{args.embedder}"\n'
                            f'alpha = {alpha}\n[run]\noutput_dir = "{tmp / "runs"}"\nprogress = false\n',
                            encoding="utf-8")
        config = load_config(cfg_path)
        started = time.perf_counter()
        await execute_run(config)
        wall = time.perf_counter() - started
        run_dir = tmp / "runs" / "bench"
        result = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
        decisions = [json.loads(l) for l in (run_dir / "decisions.jsonl").read_text().splitlines()]
    agent_tools = [d["latency_ms"] for d in decisions if d.get("caller") == "agent" and d.get("latency_ms") is not None]
    timings = result["timings"]
    ingest_s = timings["ingest_s"]
    model_s = sum(model_times)
    tools_s = sum(agent_tools) / 1000
    per_turn = ingest_s / messages * 1000
    print(f"question {qid}: {messages} messages in {sessions} sessions, embedder {args.embedder}")
    print(f"  wall (service start + ingest + qa + eval + report): {wall:.1f} s")
    print(f"  ingest {ingest_s:.1f} s | qa {timings['qa_s']:.2f} s | eval {timings['eval_s']:.3f} s "
          f"| ingest+qa+eval {ingest_s + timings['qa_s'] + timings['eval_s']:.1f} s (target <= 20 s)")
    print(f"  per agent turn: {per_turn:.1f} ms total; model {model_s / messages * 1000:.2f} ms; "
          f"MCP tool calls {tools_s / messages * 1000:.1f} ms ({len(agent_tools) / messages:.1f} calls/turn, "
          f"p50 {statistics.median(agent_tools):.1f} ms)")
    print(f"  harness overhead per turn, everything but the model call: {(ingest_s - model_s) / messages * 1000:.1f} ms; "
          f"excluding tool calls too: {(ingest_s - model_s - tools_s) / messages * 1000:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
