"""Compare the embedded service's embedders (none, static, minilm) on speed and on real retrieval.

    .venv/bin/python bench/bench_embedders.py [--data FILE] [--embedders none,static,minilm] [--top-k 10]

Retrieval: a retrieval-mode run (`[run] mode = "retrieval"`) per embedder over the file's
questions, with a sweep over alpha (1.0 = dense only, 0.6 = the default hybrid; BM25 only for
`none`), so the numbers are the ones such a run reports in its summary.json, with the same
definitions (benchmarker/scoring/retrieval_metrics.py): every message is an entry, a session ranks
where its best entry ranks among the top_k hits, recall_any@k = 1 when any evidence session
(answer_session_ids) is among the top k sessions, recall_all@k = 1 when all are; means over the
non-abstention questions. Speed: texts/s embedding the first question's entry texts in batches of
32 (what the service embeds: the entry summary), and the median latency of one query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarker.config import load_config  # noqa: E402
from benchmarker.memory.entries import entry_text  # noqa: E402
from embedded_memory.embedders import create_embedder  # noqa: E402
from benchmarker.run.runner import execute_run  # noqa: E402
from benchmarker.suites.longmemeval.data import parse_instance  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
REPORTED = ("session.recall_any@1", "session.recall_any@5", "session.recall_all@5", "session.recall_all@10",
            "turn.recall_any@10", "session.ndcg_any@10")
MODES = {"dense": 1.0, "hybrid0.6": 0.6}


def entry_texts(raw: dict[str, Any]) -> list[str]:
    """What the service embeds for each message of a question, as a retrieval-mode run writes it."""
    case = parse_instance(raw, index=0, source="bench")
    return [entry_text(session, message)[1] for session in case.sessions for message in session.messages]


def speed(name: str, data: list[dict[str, Any]]) -> dict[str, Any]:
    embedder = create_embedder(name)
    if embedder is None:
        return {}
    texts = entry_texts(data[0])
    started = time.perf_counter()
    for start in range(0, len(texts), 32):
        embedder.embed(texts[start:start + 32])
    seconds = time.perf_counter() - started
    query_ms = []
    for question in data:
        started = time.perf_counter()
        embedder.embed([question["question"]])
        query_ms.append((time.perf_counter() - started) * 1000)
    return {"texts_per_s": round(len(texts) / seconds, 1), "query_ms_median": round(statistics.median(query_ms), 2)}


def retrieval(name: str, data_file: Path, top_k: int, tmp: Path) -> dict[str, Any]:
    """Run retrieval mode with this embedder; {mode: {metric: mean}} from the run's summary.json."""
    modes = {"bm25": 0.0} if name == "none" else MODES
    sweep = "" if name == "none" else f"[sweep]\nalpha = {list(modes.values())}\ntop_k = [{top_k}]\n"
    config = tmp / f"{name}.toml"
    config.write_text(f'dataset_file = "{data_file}"\nrun_id = "embedders-{name}"\n[params]\ntop_k = {top_k}\n'
                      f'[memory]\nembedder = "{name}"\nalpha = {0.0 if name == "none" else 0.6}\n'
                      f'[run]\nmode = "retrieval"\noutput_dir = "{tmp / "runs"}"\nprogress = false\n{sweep}',
                      encoding="utf-8")
    started = time.perf_counter()
    outcome = asyncio.run(execute_run(load_config(config)))
    out: dict[str, Any] = {"run_s": round(time.perf_counter() - started, 1)}
    for mode, alpha in modes.items():
        where = outcome.run_dir if name == "none" else outcome.run_dir / "points" / f"alpha={alpha}_topk={top_k}"
        summary = json.loads((where / "summary.json").read_text(encoding="utf-8"))["retrieval"]
        out[mode] = {metric: _round(summary["metrics"].get(metric)) for metric in REPORTED}
        out[mode]["questions"] = summary["questions"]["session"]
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedders", default="none,static,minilm")
    parser.add_argument("--top-k", type=int, default=10, help="hits per search ([params] top_k; the run default)")
    args = parser.parse_args()
    data = json.loads(args.data.read_text(encoding="utf-8"))
    messages = sum(len(s) for q in data for s in q["haystack_sessions"])
    with tempfile.TemporaryDirectory() as tmp:
        for name in (n.strip() for n in args.embedders.split(",")):
            row = {"embedder": name, "questions": len(data), "messages": messages, "top_k": args.top_k}
            row |= speed(name, data) | retrieval(name, args.data.resolve(), args.top_k, Path(tmp))
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
