"""The full-context baseline at LoCoMo's real size: wall time and peak memory (issue 41).

    python bench/bench_baselines.py [--conversations 10] [--turns 300] [--questions 199] [--budget 120000]

A LoCoMo-sized file is generated (bench/locomo_synth.py: 10 conversations x 300 turns x 199 questions, about
LoCoMo's 1,986 questions and ~300 turns a conversation), a run directory that answered every question is
written from it (bench/answered_run.py: no ingestion), then `baselines RUN_DIR --only full_context` runs in a
subprocess, offline (the extractive reader, the deterministic grader), with its peak RSS read from /proc.
Writes runs/bench/baselines.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from bench.answered_run import write_answered_run  # noqa: E402
from bench.locomo_synth import generate  # noqa: E402
from bench.proc_rss import vm_hwm_kb  # noqa: E402

OUT = HERE.parent / "runs" / "bench" / "baselines.json"


def watched(command: list[str], cwd: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS KiB) of a subprocess, sampled every 0.2 s; SystemExit when it fails."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, vm_hwm_kb(proc.pid))
        time.sleep(0.2)
    wall = time.perf_counter() - started
    _, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--questions", type=int, default=199, help="per conversation")
    parser.add_argument("--budget", type=int, default=120_000, help="[baselines] full_context_tokens")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = tmp / "locomo_synth.json"
        data.write_text(json.dumps(generate(args.conversations, args.turns, args.questions, 1)), encoding="utf-8")
        config = tmp / "locomo.toml"
        config.write_text(f'[dataset]\nkind = "locomo"\nfile = "{data}"\n[run]\nconcurrency = 2\nprogress = false\n'
                          f'[baselines]\nfull_context_tokens = {args.budget}\n', encoding="utf-8")
        run_dir = tmp / "runs" / "bench-baselines"
        questions = write_answered_run(config, run_dir)
        wall, peak = watched([sys.executable, "-m", "benchmarker.cli", "baselines", str(run_dir), "--only",
                              "full_context"], tmp)
        lines = [json.loads(x) for x in (run_dir / "baselines" / "full_context" / "results.jsonl").read_text().splitlines()]
        tokens = [r["context_tokens"] for r in lines]
        summary = json.loads((run_dir / "baselines" / "full_context" / "summary.json").read_text())
    row = {"conversations": args.conversations, "turns": args.turns, "questions": questions, "answered": len(lines),
           "budget_tokens": args.budget, "wall_s": round(wall, 2), "s_per_question": round(wall / max(questions, 1), 4),
           "peak_rss_mb": round(peak / 1024, 1), "context_tokens_mean": round(sum(tokens) / max(len(tokens), 1), 1),
           "context_tokens_max": max(tokens, default=0),
           "accuracy": (summary.get("qa") or {}).get("overall", {}).get("accuracy"), "provider": "offline"}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(row, indent=2) + "\n", encoding="utf-8")
    print("| conversations | questions | budget tokens | wall s | s / question | peak RSS MB | context tokens mean |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {row['conversations']} | {row['questions']} | {row['budget_tokens']:,} | {row['wall_s']} | "
          f"{row['s_per_question']} | {row['peak_rss_mb']} | {row['context_tokens_mean']:,} |")
    if len(lines) != questions:
        raise SystemExit(f"expected {questions} answers, got {len(lines)}")


if __name__ == "__main__":
    main()
