"""The quickstart on every memory preset: accuracy (offline), retrieval metrics or "not available",
time per question, and what each server lacks (issue 13).

    python bench/bench_presets.py [--mode agent|retrieval|both] [--kuzu .venv-servers/kuzu/bin/kuzu-memory]
                                  [--real]   # the five real LongMemEval_S questions of ../shared instead

Each row is a real run of configs/quickstart.toml's dataset (15 generated questions) with the
offline models, against the server started as its preset says: the embedded Mycelian service
over streamable HTTP and over stdio, @modelcontextprotocol/server-memory with npx, kuzu-memory
from its own venv (`make servers`). Prints a markdown table; a preset whose server is missing is
reported as skipped, with why.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL_5Q = REPO.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
SAMPLE = """
[dataset]
kind = "sample"
seed = 42
questions_per_type = 2
sessions_per_question = 8
"""
REAL = f"""
[dataset]
kind = "longmemeval"
file = "{REAL_5Q}"
"""
DATASET = """
[run]
mode = "{mode}"
concurrency = 2
output_dir = "runs"
progress = false
"""
PRESETS = {
    "mycelian (HTTP)": 'backend = "embedded"',
    "mycelian (stdio)": 'backend = "embedded"\ntransport = "stdio"',
    "mcp-server-memory": 'backend = "mcp"\npreset = "mcp-server-memory"',
    "kuzu-memory": 'backend = "mcp"\npreset = "kuzu-memory"\ncommand = "{kuzu}"',
}


def run_one(tmp: Path, label: str, memory: str, mode: str, dataset: str) -> dict:
    import contextlib
    import io

    from benchmarker.cli import main

    name = label.split()[0].replace("(", "").replace(")", "") + ("-stdio" if "stdio" in label else "") + f"-{mode}"
    path = tmp / f"{name}.toml"
    path.write_text(dataset + DATASET.format(mode=mode) + f"\n[memory]\n{memory}\n", encoding="utf-8")
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # only the table on stdout
        code = main(["run", str(path)])
    wall = time.perf_counter() - started
    (run_dir,) = (tmp / "runs").glob(f"{name}-*")
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    retrieval = summary["retrieval"]
    questions = summary["counts"]["questions"]
    return {"preset": label, "mode": mode, "exit": code, "questions": questions,
            "accuracy": summary["qa"]["overall"]["accuracy"] if mode == "agent" else None,
            "recall_any@5": retrieval["metrics"].get("session.recall_any@5") if retrieval["available"] else None,
            "ndcg_any@10": retrieval["metrics"].get("turn.ndcg_any@10") if retrieval["available"] else None,
            "traced": (retrieval.get("traced") or {}).get("share"),
            "retrieval_note": "" if retrieval["available"] else retrieval["notes"][0],
            "s_per_question": wall / max(questions, 1), "wall_s": wall,
            "lacks": (summary["run"].get("memory") or {}).get("lacks") or []}


def fmt(value, pattern: str = "{:.3f}") -> str:
    return "not available" if value is None else pattern.format(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("agent", "retrieval", "both"), default="both")
    parser.add_argument("--kuzu", default=str(REPO / ".venv-servers" / "kuzu" / "bin" / "kuzu-memory"))
    parser.add_argument("--real", action="store_true", help=f"run on {REAL_5Q} (5 real LongMemEval_S questions)")
    args = parser.parse_args()
    if args.real and not REAL_5Q.exists():
        raise SystemExit(f"{REAL_5Q} is missing")
    dataset = REAL if args.real else SAMPLE
    modes = ("agent", "retrieval") if args.mode == "both" else (args.mode,)
    rows, skipped = [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for label, memory in PRESETS.items():
            if label == "kuzu-memory" and not Path(args.kuzu).exists():
                skipped.append(f"{label}: {args.kuzu} missing (make servers)")
                continue
            if label == "mcp-server-memory" and shutil.which("npx") is None:
                skipped.append(f"{label}: npx not on PATH")
                continue
            for mode in modes:
                rows.append(run_one(tmp, label, memory.format(kuzu=args.kuzu), mode, dataset))
    print("| preset | mode | questions | accuracy | session recall_any@5 | turn ndcg_any@10 | hits traced | "
          "s / question | wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['preset']} | {r['mode']} | {r['questions']} | {fmt(r['accuracy'], '{:.1%}')} | "
              f"{fmt(r['recall_any@5'])} | {fmt(r['ndcg_any@10'])} | "
              f"{fmt(r['traced'], '{:.0%}') if r['traced'] is not None else 'tags'} | "
              f"{r['s_per_question']:.2f} | {r['wall_s']:.1f} |")
    print()
    for label in dict.fromkeys(r["preset"] for r in rows):
        lacks = next(r["lacks"] for r in rows if r["preset"] == label)
        print(f"- {label}: " + ("; ".join(lacks) if lacks else "nothing the harness uses"))
    for r in rows:
        if r["retrieval_note"]:
            print(f"- {r['preset']} {r['mode']}: {r['retrieval_note']}")
    for line in skipped:
        print(f"- skipped {line}")


if __name__ == "__main__":
    main()
