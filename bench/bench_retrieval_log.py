"""What logging every retrieval-mode write to decisions.jsonl costs, on one LongMemEval_S question.

Retrieval mode is the hot path of an index sweep, and a real S question has ~500 messages, so each
add_entry's DecisionRecord (caller "retrieval") must stay cheap. Two measurements:

  1. the logging alone: `write_entries_directly` against a client that answers at once, with the
     run log's writer vs with appends dropped (best of --repeats); the difference per call is the
     harness's cost of a record (pydantic model, JSON line, flush);
  2. a whole retrieval-mode run of that question on the embedded service, ingestion seconds with
     the records vs with `logged_call` reduced to a bare await.

    python bench/bench_retrieval_log.py [--embedder static] [--question-index 0] [--repeats 5] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REAL_5Q = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"

from benchmarker.graph import direct_ingest  # noqa: E402
from benchmarker.graph.progress import RunProgress  # noqa: E402
from benchmarker.log.records import DecisionRecord, MemoryRecord  # noqa: E402
from benchmarker.log.store import RunLog  # noqa: E402
from benchmarker.suites.longmemeval.data import parse_instance  # noqa: E402


def _question(index: int) -> dict[str, Any]:
    if REAL_5Q.exists():
        return json.loads(REAL_5Q.read_text(encoding="utf-8"))[index]
    from benchmarker.suites.sample.data import generate_sample

    return generate_sample(seed=1, questions_per_type=1, sessions_per_question=50)[0]


class InstantClient:
    """A memory client whose calls return at once: what is left is the harness's own time."""

    async def call(self, tool: str, args: dict[str, Any] | None = None, **kwargs: Any) -> str:
        return '{"status": "enqueued"}' if tool == "add_entry" else "ok"


class DroppingLog(RunLog):
    def append(self, record: Any) -> None:
        if not isinstance(record, DecisionRecord):
            super().append(record)


async def _logging_only(raw: dict[str, Any], repeats: int, tmp: Path) -> tuple[int, float, float]:
    case = parse_instance(raw, index=0, source="bench")
    record = MemoryRecord(case_id=case.case_id, memory_id="m", vault_id="v", title="t", attempt=1)
    progress = RunProgress(1, enabled=False, stats=dict)
    best: dict[str, float] = {}
    count = 0
    for attempt in range(repeats):
        for name, log_type in (("logged", RunLog), ("dropped", DroppingLog)):
            ctx = SimpleNamespace(run_id="bench", client=InstantClient(), progress=progress, mapping=None,
                                  log=log_type(tmp / f"{name}-{attempt}"))
            started = time.perf_counter()
            count = await direct_ingest.write_entries_directly(ctx, case, record)
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - started)
            ctx.log.close()
    return count, best["logged"], best["dropped"]


async def _bare_call(ctx: Any, tool: str, args: dict[str, Any], call: Any, **where: Any) -> str:
    return await call


async def _run_ingest_s(raw: dict[str, Any], embedder: str, tmp: Path, name: str, logged: bool) -> tuple[float, int]:
    from benchmarker.config import load_config
    from benchmarker.run.runner import execute_run

    data = tmp / "one_question.json"
    data.write_text(json.dumps([raw]), encoding="utf-8")
    cfg = tmp / f"{name}.toml"
    alpha = 0.0 if embedder == "none" else 0.6
    cfg.write_text(f'dataset_file = "{data}"\nrun_id = "{name}"\n[memory]\nembedder = "{embedder}"\nalpha = {alpha}\n'
                   f'[run]\nmode = "retrieval"\noutput_dir = "{tmp / "runs"}"\nprogress = false\n', encoding="utf-8")
    original = direct_ingest.logged_call
    if not logged:
        direct_ingest.logged_call = _bare_call
    try:
        await execute_run(load_config(cfg))
    finally:
        direct_ingest.logged_call = original
    run_dir = tmp / "runs" / name
    memory = [json.loads(line) for line in (run_dir / "memories.jsonl").read_text().splitlines()][-1]
    decisions = (run_dir / "decisions.jsonl").read_text().splitlines()
    return memory["ingest_s"], sum(1 for line in decisions if '"caller": "retrieval"' in line)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--question-index", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5, help="harness-only repetitions")
    parser.add_argument("--runs", type=int, default=3, help="whole runs with and without records")
    args = parser.parse_args()
    raw = _question(args.question_index)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        count, logged, dropped = await _logging_only(raw, args.repeats, tmp)
        per_call_us = (logged - dropped) / (count + 1) * 1e6
        print(f"question {raw['question_id']}: {count} messages")
        print(f"  harness only (instant client): {logged * 1000:.1f} ms with records, {dropped * 1000:.1f} ms "
              f"without; {per_call_us:.0f} us per record")
        await _run_ingest_s(raw, args.embedder, tmp, "warm-up", logged=True)  # model load, page cache
        runs: dict[bool, list[float]] = {False: [], True: []}
        records = 0
        for attempt in range(args.runs):  # alternated, so drift in the machine's load hits both alike
            for logged in (False, True):
                seconds, n = await _run_ingest_s(raw, args.embedder, tmp, f"{logged}-{attempt}", logged)
                runs[logged].append(seconds)
                records = max(records, n)
        bare_s, logged_s = min(runs[False]), min(runs[True])
        print(f"  retrieval-mode ingestion on the embedded service ({args.embedder}, best of {args.runs}): "
              f"{bare_s:.2f} s without records, {logged_s:.2f} s with {records} records "
              f"({(logged_s - bare_s) / bare_s:+.1%}); all runs: without {runs[False]}, with {runs[True]}")


if __name__ == "__main__":
    asyncio.run(main())
