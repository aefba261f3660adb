"""Benchmark the run browser (`mycelian-longmemeval view`) on run directories of real size.

    .venv/bin/python bench/bench_view.py            # writes runs/bench/view.json
    .venv/bin/python bench/bench_view.py --keep DIR # keep the synthesized runs in DIR

Synthesizes two runs: a LongMemEval_S-like one (500 questions; each results line has 10 hits and a
~16 KB reader context; decisions.jsonl holds ~500 writes a question, ~250k lines) and a LoCoMo-like
one (1,986 questions over 10 conversations). Starts the server in its own process (real uvicorn on
127.0.0.1, a free port) and times with httpx: the question list's first open (which builds the
run's line index) and a warm one, a filtered list, and a question page first (which indexes
decisions.jsonl) and warm. Target: the question list under 1 s. The files are freshly written, so they
are in the page cache, as they are when a run has just finished.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("memory agent session context entry summary vault search garden recipe museum ticket budget commute "
         "train weekend project deadline meeting report invoice doctor concert novel kitchen travel hotel").split()
STAGES = ("correct", "not_written", "not_retrieved", "not_used", "false_answer")
SERVER = """
import argparse, sys
from benchmarker.view import add_arguments, run_view
parser = argparse.ArgumentParser()
add_arguments(parser)
sys.exit(run_view(parser.parse_args(sys.argv[1:])))
"""


def text(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def result(rng: random.Random, qid: str, case: str, qtype: str, context_chars: int) -> dict:
    session = f"{case}_s{rng.randint(0, 40)}"
    hits = [{"entry_id": f"{qid}-e{i}", "score": round(1 - i / 20, 3), "rank": i, "session_id": f"{case}_s{i}",
             "session_date": "2023/05/01 (Mon) 10:00", "turn_index": i, "role": "user", "summary": text(rng, 200),
             "raw_preview": text(rng, 300)} for i in range(1, 11)]
    stage = rng.choice(STAGES)
    return {"schema_version": 1, "question_id": qid, "case_id": case, "question_type": qtype, "kind": "bench",
            "is_abstention": False, "question": text(rng, 80) + "?", "answer": text(rng, 30),
            "question_date": "2023/05/20 (Sat) 09:00", "hypothesis": text(rng, 250), "label": stage == "correct",
            "grade": {"judge": "llm", "model": "gpt-4o-mini", "reason": "judge replied no", "reply": "no", "score": None},
            "retrieved": hits, "evidence_turns": [[session, 2]],
            "evidence": [{"session_id": session, "turn_index": 2, "role": "user", "content": text(rng, 300)}],
            "timings": {"ingest_s": 30.0, "qa_s": 2.0, "search_ms": 40.0, "eval_s": 0.5},
            "tokens": {"qa": {"input": 6000, "output": 60}}, "attribution": stage, "evidence_seen": "1 of 1",
            "evidence_written": "1 of 1", "reader_context": text(rng, context_chars)}


def write(run: Path, suite: str, questions: list[tuple[str, str, str]], context_chars: int,
          writes: dict[str, int], seed: int = 0) -> None:
    rng = random.Random(seed)
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"run_id": run.name, "started_at": "2024-01-01T10:00:00+00:00",
                                                   "ended_at": "2024-01-01T18:00:00+00:00", "dataset": {"kind": suite}}))
    with open(run / "results.jsonl", "w") as f:
        for qid, case, qtype in questions:
            f.write(json.dumps(result(rng, qid, case, qtype, context_chars)) + "\n")
    pool = [text(rng, 400) for _ in range(500)]
    with open(run / "decisions.jsonl", "w") as f:
        for case, n in writes.items():
            for turn in range(n):
                session = f"{case}_s{turn // 12}"
                f.write(json.dumps({"schema_version": 1, "case_id": case, "caller": "agent", "tool": "add_entry",
                                    "question_id": case, "session_id": session, "turn": turn % 12,
                                    "args": {"vault_id": "v", "memory_id": "m", "raw_entry": pool[turn % 500],
                                             "summary": pool[(turn * 7) % 500][:150],
                                             "tags": {"session_id": session, "turn_index": turn % 12}},
                                    "result_preview": "entry stored", "latency_ms": 12.5, "error": None}) + "\n")


def synthesize(root: Path) -> dict[str, Path]:
    types = ("single-session-user", "multi-session", "temporal-reasoning", "knowledge-update")
    lme = [(f"q{i:04d}", f"q{i:04d}", types[i % 4]) for i in range(500)]
    write(root / "lme-s", "longmemeval", lme, 16_000, {q: 500 for q, _, _ in lme})
    locomo = [(f"conv-{i % 10}_q{i}", f"conv-{i % 10}", f"category-{i % 5}") for i in range(1986)]
    write(root / "locomo", "locomo", locomo, 8_000, {f"conv-{c}": 600 for c in range(10)}, seed=1)
    return {"lme-s": root / "lme-s", "locomo": root / "locomo"}


def timed(client: httpx.Client, url: str) -> tuple[float, int]:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed, len(response.content)


def measure(base: str, run_id: str, qid: str, other: str) -> dict[str, dict[str, float | int]]:
    out = {}
    with httpx.Client(base_url=base, timeout=120) as client:
        for name, url in [("runs table", "/"), ("list first", f"/runs/{run_id}"), ("list warm", f"/runs/{run_id}"),
                          ("list filtered", f"/runs/{run_id}?stage=not_retrieved&type=multi-session&q=garden&sort=stage"),
                          ("list page 5", f"/runs/{run_id}?page=5"),
                          ("question first", f"/runs/{run_id}/questions/{qid}"),
                          ("question warm", f"/runs/{run_id}/questions/{qid}"),
                          ("question other case", f"/runs/{run_id}/questions/{other}")]:
            seconds, size = timed(client, url)
            out[name] = {"seconds": round(seconds, 4), "bytes": size}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, default=None, help="synthesize into this folder and keep it")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench" / "view.json")
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="bench-view-") if args.keep is None else None
    root = Path(scratch.name) if scratch else args.keep
    start = time.perf_counter()
    runs = synthesize(root / "runs")
    sizes = {name: {f: (path / f).stat().st_size for f in ("results.jsonl", "decisions.jsonl")} for name, path in runs.items()}
    print(f"synthesized in {time.perf_counter() - start:.1f}s: {json.dumps(sizes)}")
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(root / "runs"), "--port", "0"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert server.stdout is not None
        match = re.search(r"http://[\d.]+:\d+/", server.stdout.readline())
        if not match:
            raise SystemExit("the server printed no URL")
        results = {"lme-s": measure(match.group(0), "lme-s", "q0007", "q0123"),
                   "locomo": measure(match.group(0), "locomo", "conv-3_q13", "conv-4_q14")}
    finally:
        server.terminate()
        server.wait(10)
        if scratch:
            scratch.cleanup()
    print(f"{'run':8} {'request':20} {'seconds':>8} {'KB':>8}")
    for run, rows in results.items():
        for name, row in rows.items():
            print(f"{run:8} {name:20} {row['seconds']:8.3f} {row['bytes'] / 1024:8.0f}")
    worst = max(results[r][k]["seconds"] for r in results for k in ("list first", "list warm", "list filtered"))
    report = {"cpus": os.cpu_count(), "sizes_bytes": sizes, "results": results, "list_worst_s": worst,
              "target_list_s": 1.0, "ok": worst < 1.0}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"question list worst {worst:.3f}s (target < 1 s): {'ok' if worst < 1.0 else 'TOO SLOW'}; wrote {args.out}")
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
