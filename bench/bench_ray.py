"""Local vs Ray on one machine: a retrieval-only sweep with the dense `minilm` embedder (issue 15).

    .venv/bin/python bench/bench_ray.py [--questions-per-type 3] [--sessions 40] [--workers 2] [--quick]

Generates a LongMemEval-format file (the sample generator: ~3,400 messages by default, so the
embedding alone takes minutes on 2 cores), then runs the same config twice as a user would, each
driver a subprocess of its own: `[run] executor = "local"` and `executor = "ray"` with `workers`
actors on a Ray the harness starts (`ray_address = ""`). Reports wall time and the ratio, Ray's
start-up overhead (ray.init + every worker's memory service and models, from the manifest), the
driver's peak RSS (ru_maxrss of the driver process only: memory services and Ray workers are
other processes), and checks both runs retrieved the same hits at every sweep point.
Writes runs/bench/ray.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "runs" / "bench" / "ray.json"

CONFIG = """
dataset_file = "{data}"
vault_title = "ray-bench"
[memory]
embedder = "minilm"
alpha = 0.6
[run]
mode = "retrieval"
concurrency = {concurrency}
output_dir = "runs"
progress = false
{executor}
[sweep]
top_k = [5, 10]
alpha = [0.3, 0.8]
"""

DRIVER = """
import json, resource, sys
from benchmarker.cli import main
code = main(["run", sys.argv[1]])
json.dump({"code": code, "driver_max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024},
          open(sys.argv[2], "w"))
"""


def _data(folder: Path, questions_per_type: int, sessions: int) -> tuple[Path, int, int]:
    sys.path.insert(0, str(REPO))
    from benchmarker.suites.sample.data import generate_sample

    questions = generate_sample(seed=7, questions_per_type=questions_per_type, sessions_per_question=sessions)
    path = folder / "generated_longmemeval.json"
    path.write_text(json.dumps(questions), encoding="utf-8")
    return path, len(questions), sum(len(s) for q in questions for s in q["haystack_sessions"])


def _run(folder: Path, name: str, data: Path, executor: str, concurrency: int) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "bench.toml"   # one file name: both runs get the same run id
    config.write_text(CONFIG.format(data=data, concurrency=concurrency, executor=executor), encoding="utf-8")
    stats = folder / "driver.json"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", DRIVER, str(config), str(stats)], cwd=folder,
                          capture_output=True, text=True, env=dict(os.environ, RAY_USAGE_STATS_ENABLED="0"))
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{name} run failed:\n{done.stderr[-4000:]}")
    (run_dir,) = (folder / "runs").glob("bench-*")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    points = {p.name: [(json.loads(line)["question_id"], [(h["session_id"], h["turn_index"])
                                                         for h in json.loads(line)["retrieved"]])
                       for line in (p / "results.jsonl").read_text().splitlines()]
              for p in sorted((run_dir / "points").iterdir())}
    sweep = json.loads((run_dir / "sweep.json").read_text())
    return {"name": name, "wall_s": round(wall, 1), **json.loads(stats.read_text()),
            "executor": manifest.get("executor"), "points": {k: sorted(v) for k, v in points.items()},
            "best": sweep.get("best")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions-per-type", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="a small file (seconds, not minutes): a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.questions_per_type, args.sessions = 1, 6
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        folder = Path(tmp)
        data, questions, messages = _data(folder, args.questions_per_type, args.sessions)
        print(f"{questions} questions, {messages:,} messages; sweep top_k [5, 10] x alpha [0.3, 0.8]; minilm",
              flush=True)
        local = _run(folder / "local", "local", data, 'executor = "local"', concurrency=args.workers)
        print(f"local: {local['wall_s']} s, driver peak RSS {local['driver_max_rss_mb']:.0f} MB", flush=True)
        ray = _run(folder / "ray", f"ray x{args.workers}", data,
                   f'executor = "ray"\nworkers = {args.workers}', concurrency=args.workers)
        start = ray["executor"]["start_s"]
        print(f"ray:   {ray['wall_s']} s (start-up {start} s), driver peak RSS {ray['driver_max_rss_mb']:.0f} MB",
              flush=True)
    same = local["points"] == ray["points"]
    result = {"questions": questions, "messages": messages, "workers": args.workers, "cpus": os.cpu_count(),
              "local_wall_s": local["wall_s"], "ray_wall_s": ray["wall_s"],
              "ray_over_local": round(ray["wall_s"] / local["wall_s"], 2),
              "ray_start_s": start, "ray_wall_without_start_s": round(ray["wall_s"] - start, 1),
              "local_driver_max_rss_mb": round(local["driver_max_rss_mb"]),
              "ray_driver_max_rss_mb": round(ray["driver_max_rss_mb"]),
              "same_hits_at_every_point": same, "points": len(local["points"]),
              "nodes": ray["executor"]["nodes"], "best_point": local["best"]}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "nodes"}, indent=2))
    if not same:
        print("MISMATCH: the Ray run retrieved different hits than the local run", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
