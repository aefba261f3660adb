"""LoCoMo at full size: one ingestion per conversation, retrieval-only wall time, peak RSS (issue 14).

    python bench/bench_locomo.py [--file locomo10.json] [--conversations 10 --turns 600 --questions 200]
                                 [--mode retrieval|agent] [--embedder static|minilm|none]

Without --file a LoCoMo-sized file is generated (bench/locomo_synth.py: 10 conversations x 600
turns x 200 questions). The run is `mycelian-longmemeval run` in a subprocess on the embedded
service; peak RSS is read from /proc (VmHWM) of the harness process and of the memory service
while it runs. Ingestions are counted from memories.jsonl ("ingested" lines), which must equal
the number of conversations.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from proc_rss import run_watched  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--mode", choices=("retrieval", "agent"), default="retrieval")
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = args.file.resolve() if args.file else None
        if data is None:
            sys.path.insert(0, str(HERE))
            from locomo_synth import generate

            data = tmp / "locomo_synth.json"
            data.write_text(json.dumps(generate(args.conversations, args.turns, args.questions, 1)), encoding="utf-8")
        config = tmp / "locomo.toml"
        config.write_text(f'[dataset]\nkind = "locomo"\nfile = "{data}"\n[memory]\nembedder = "{args.embedder}"\n'
                          f'[run]\nmode = "{args.mode}"\nconcurrency = {args.concurrency}\noutput_dir = "runs"\n'
                          'progress = false\n', encoding="utf-8")
        wall, peak_harness, peak_service = run_watched(config)
        (run_dir,) = (tmp / "runs").iterdir()
        memories = [json.loads(line) for line in (run_dir / "memories.jsonl").read_text().splitlines()]
        summary = json.loads((run_dir / "summary.json").read_text())
        conversations = len(json.loads(data.read_text()))
        ingested = sum(1 for m in memories if m["status"] == "ingested")
        metrics = summary["retrieval"]["metrics"]
        print("| data | conversations | ingestions | questions | mode | wall s | s / question | harness peak RSS MB "
              "| service peak RSS MB | session recall_any@5 | turn recall_any@10 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {'file ' + data.name if args.file else 'generated'} | {conversations} | {ingested} | "
              f"{summary['counts']['questions']} | {args.mode} | {wall:.1f} | "
              f"{wall / max(summary['counts']['questions'], 1):.3f} | {peak_harness / 1024:.0f} | "
              f"{peak_service / 1024:.0f} | {metrics.get('session.recall_any@5', 0):.3f} | "
              f"{metrics.get('turn.recall_any@10', 0):.3f} |")
        if ingested != conversations:
            raise SystemExit(f"expected one ingestion per conversation: {ingested} ingestions, {conversations} "
                             "conversations")


if __name__ == "__main__":
    main()
