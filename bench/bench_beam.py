"""BEAM at scale: retrieval-only on one long conversation, wall time, peak RSS, writes/s, search latency (issue 35).

    python bench/bench_beam.py [--clone PATH] [--sizes 500K,10M] [--embedder static|minilm] [--copies-10m 78]

Each size is one conversation run retrieval-only (`mycelian-longmemeval run` in a subprocess on the embedded
service; peak RSS from /proc VmHWM of the harness and of the memory service). With `--clone` (a BEAM clone)
the first conversation of chats/<size> is used where the clone has it; otherwise the conversation is built
from the shared 128K ones (../shared/data/beam/chats/100K): "500K" concatenates 4 of them, "10M" as many
as `--copies-10m` (78 x ~128K tokens, ~15,000 messages), in BEAM's 10M layout (one plan per copy, ids
restarting per plan, the questions of the first copy). Writes runs/bench/beam.json.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from proc_rss import run_watched  # noqa: E402

ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "data" / "beam" / "chats" / "100K"
COPIES = {"500K": 4, "1M": 8, "10M": 78}




def built_conversation(folder: Path, copies: int) -> tuple[Path, str]:
    """A conversation of `copies` shared 128K chats, in BEAM's 10M layout (plans whose ids restart)."""
    sources = sorted((p for p in SHARED.iterdir() if (p / "chat.json").is_file()), key=lambda p: p.name)
    if not sources:
        raise SystemExit(f"no shared BEAM conversations in {SHARED}; pass --clone")
    chats = [json.loads((s / "chat.json").read_text(encoding="utf-8")) for s in sources]
    plans = [{f"plan-{i + 1}": copy.deepcopy(chats[i % len(chats)])} for i in range(copies)]
    conv = folder / "1"
    (conv / "probing_questions").mkdir(parents=True)
    (conv / "chat.json").write_text(json.dumps(plans), encoding="utf-8")
    questions = (sources[0] / "probing_questions" / "probing_questions.json").read_text(encoding="utf-8")
    (conv / "probing_questions" / "probing_questions.json").write_text(questions, encoding="utf-8")
    return folder, f"built: {copies} x shared 128K"


def run_one(data: Path, size: str, embedder: str, tmp: Path) -> dict[str, Any]:
    config = tmp / f"beam-{size}.toml"
    config.write_text(f'[dataset]\nkind = "beam"\nfile = "{data}"\nsize = "{size}"\nchats = ["1"]\n'
                      f'[memory]\nembedder = "{embedder}"\n[run]\nmode = "retrieval"\noutput_dir = "runs-{size}"\n'
                      'progress = false\n', encoding="utf-8")
    wall, peak_harness, peak_service = run_watched(config, cwd=tmp)
    (run_dir,) = (tmp / f"runs-{size}").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    speed = summary["speed"]
    writes = (speed.get("tool_latency_by_tool_ms") or {}).get("add_entry") or {}
    search = (speed.get("tool_latency_by_tool_ms") or {}).get("search_memories") or {}
    ingest_s = ((speed.get("phases") or {}).get("ingest_s") or {}).get("sum") or 0.0
    metrics = summary["retrieval"]["metrics"]
    return {"size": size, "questions": summary["counts"]["questions"], "messages_written": writes.get("n", 0),
            "wall_s": round(wall, 1), "ingest_s": round(ingest_s, 1),
            "writes_per_s": round(writes.get("n", 0) / ingest_s, 1) if ingest_s else None,
            "search_p50_ms": search.get("p50"), "search_p95_ms": search.get("p95"),
            "harness_peak_rss_mb": round(peak_harness / 1024), "service_peak_rss_mb": round(peak_service / 1024),
            "turn_recall_any@10": metrics.get("turn.recall_any@10"), "embedder": embedder}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", type=Path)
    parser.add_argument("--sizes", default="500K,10M")
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--copies-10m", type=int, default=COPIES["10M"])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for size in [s.strip() for s in args.sizes.split(",") if s.strip()]:
            real = args.clone / "chats" / size if args.clone else None
            if real is not None and (real / "1" / "chat.json").is_file():
                data, source = real, f"clone chats/{size}/1"
            else:
                copies = args.copies_10m if size == "10M" else COPIES.get(size, 4)
                data, source = built_conversation(tmp / f"data-{size}", copies)
            row = run_one(data, size, args.embedder, tmp) | {"data": source}
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = ROOT / "runs" / "bench" / "beam.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows}, indent=2), encoding="utf-8")
    print("| size | data | questions | messages written | wall s | ingest s | writes/s | search p50 / p95 ms "
          "| harness peak RSS MB | service peak RSS MB | turn recall_any@10 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['size']} | {r['data']} | {r['questions']} | {r['messages_written']} | {r['wall_s']} | "
              f"{r['ingest_s']} | {r['writes_per_s']} | {r['search_p50_ms']} / {r['search_p95_ms']} | "
              f"{r['harness_peak_rss_mb']} | {r['service_peak_rss_mb']} | {r['turn_recall_any@10']} |")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
