"""Tracing overhead per agent turn, and `judge-online` over a traced project (issue 16).

    .venv/bin/python bench/bench_tracing.py [--questions-per-type 1] [--sessions 6] [--limit 4]

A local LangSmith fake (tests/fakes/langsmith_server.py) runs in a process of its own, as the
real service would be elsewhere. The same offline agent-mode config runs twice, tracing off and
on (each a CLI subprocess); the ingest phase's time divided by the agent turns gives the time per
turn, and the difference is the tracing overhead (the client serialises, scrubs and queues each
run; a background thread sends them). Then `judge-online` reads the project's `memory_extraction`
runs back by tag (at least 50) with the deterministic offline enumeration, and again with the LLM
path (the real langchain-openai client against a local OpenAI-compatible server whose answers are
the same enumeration): P / R / F1 and wall time. Writes runs/bench/tracing.json.
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
sys.path.insert(0, str(REPO))
OUT = REPO / "runs" / "bench" / "tracing.json"
SERVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tests.fakes.langsmith_server import FakeLangSmith
with FakeLangSmith() as ls:
    print(ls.url, flush=True)
    sys.stdin.read()
"""
RUN = """
[dataset]
kind = "sample"
questions_per_type = {qpt}
sessions_per_question = {sessions}
[run]
limit = {limit}
concurrency = 2
progress = false
output_dir = "runs"
"""


def _cli(*args: str, cwd: Path, env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "benchmarker.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return time.monotonic() - started


def _per_turn(run_dir: Path) -> tuple[float, int]:
    summary = json.loads((run_dir / "summary.json").read_text())
    ingest_s = summary["speed"]["phases"]["ingest_s"]["sum"]
    turns = sum(1 for line in (run_dir / "decisions.jsonl").read_text().splitlines()
                if json.loads(line).get("caller") == "agent" and json.loads(line).get("tool") == "add_entry")
    return ingest_s, turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions-per-type", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--limit", type=int, default=4)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    env.update(LANGSMITH_API_KEY="bench-key", PYTHONUNBUFFERED="1")
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(REPO)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    result: dict = {"langsmith_fake": url}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-tracing-") as tmp:
            folder = Path(tmp)
            run = RUN.format(qpt=args.questions_per_type, sessions=args.sessions, limit=args.limit)
            timings = {}
            for name, tracing in (("off", ""), ("on", f'[tracing]\nlangsmith = true\nproject = "bench"\n'
                                                     f'endpoint = "{url}"\n')):
                (folder / f"{name}.toml").write_text(run + tracing, encoding="utf-8")
                wall = _cli("run", f"{name}.toml", cwd=folder, env=env)
                (run_dir,) = (folder / "runs").glob(f"{name}-*")
                ingest_s, turns = _per_turn(run_dir)
                timings[name] = {"wall_s": round(wall, 2), "ingest_s": round(ingest_s, 2), "agent_turns": turns,
                                 "ms_per_turn": round(1000 * ingest_s / max(1, turns), 1)}
                print(f"tracing {name}: {timings[name]}", flush=True)
            result["tracing"] = timings | {"overhead_ms_per_turn": round(timings["on"]["ms_per_turn"]
                                                                         - timings["off"]["ms_per_turn"], 1)}
            judged = {}
            online = (f'[online]\nsource = "langsmith"\nsince = "1d"\n[tracing]\nproject = "bench"\nendpoint = "{url}"\n'
                      '[run]\nconcurrency = 8\nprogress = false\noutput_dir = "judged"\n')
            (folder / "offline.toml").write_text(online + '[provider]\ntype = "offline"\n', encoding="utf-8")
            wall = _cli("judge-online", "offline.toml", cwd=folder, env=env)
            judged["deterministic"] = _judged(folder / "judged", "offline", wall)
            from tests.fakes.openai_server import ScriptedOpenAIServer
            from tests.verbs.judge_online.judge_brain import openai_judge_script

            with ScriptedOpenAIServer(openai_judge_script) as llm:
                (folder / "llm.toml").write_text(
                    online + f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{llm.base_url}"\n'
                             'api_key_env = "BENCH_OPENAI_KEY"\n[models]\nagent = "offline-memory-agent"\n'
                             'qa = "offline-reader"\neval = "gpt-judge"\n', encoding="utf-8")
                wall = _cli("judge-online", "llm.toml", cwd=folder, env=env | {"BENCH_OPENAI_KEY": "sk-bench"})
                judged["llm_path"] = _judged(folder / "judged", "llm", wall)
            result["judge_online"] = judged
            for name, row in judged.items():
                print(f"judge-online {name}: {row}", flush=True)
    finally:
        server.stdin.close()
        server.wait(10)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


def _judged(folder: Path, stem: str, wall: float) -> dict:
    (run_dir,) = folder.glob(f"{stem}-*")
    summary = json.loads((run_dir / "summary.json").read_text())
    micro = summary["micro"]
    return {"runs": summary["items"], "judged": summary["judged"], "wall_s": round(wall, 2),
            "precision": round(micro["precision"], 3), "recall": round(micro["recall"], 3), "f1": round(micro["f1"], 3),
            "counts": summary["counts"]}


if __name__ == "__main__":
    sys.exit(main())
