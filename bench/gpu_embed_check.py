"""The `[memory] device` check for a GPU machine: minilm's embedding throughput on CPU and on CUDA.

Embeds N real messages (LongMemEval_S haystack turns from ../shared/data/longmemeval/longmemeval_s_5q.json
when that file is there, else generated sentences) with the harness's own MiniLMEmbedder on each device,
after one warm-up batch, and prints one JSON object: texts/s per device, the machine, and (when both ran)
how far the CUDA vectors are from the CPU ones (they should agree to float tolerance: the device is not
part of a run's id). A device torch cannot see is reported as skipped, not an error.

    .venv/bin/python bench/gpu_embed_check.py                 # 2,000 texts, cpu then cuda
    .venv/bin/python bench/gpu_embed_check.py --n 8000 --devices cuda --batch-size 128
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from embedded_memory.embedders import MiniLMEmbedder, cuda_available  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"


def real_messages(path: Path, n: int) -> list[str]:
    """Up to n distinct non-empty message texts from a LongMemEval file's haystack sessions, in order."""
    seen: dict[str, None] = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        for session in item.get("haystack_sessions") or []:
            for turn in session or []:
                text = str((turn or {}).get("content") or "").strip()
                if text:
                    seen.setdefault(text, None)
                if len(seen) >= n:
                    return list(seen)
    return list(seen)


def generated_messages(n: int, start: int = 0) -> list[str]:
    subjects = ["I", "My sister", "Our team", "The landlord", "My doctor", "A friend from work"]
    verbs = ["moved", "booked", "cancelled", "painted", "rescheduled", "bought", "sold", "repaired"]
    things = ["the blue car", "a trip to Lisbon", "the kitchen", "a yoga class", "two concert tickets",
              "the garden fence", "a used bike", "the dentist appointment"]
    return [f"{subjects[i % 6]} {verbs[(i // 6) % 8]} {things[(i // 48) % 8]} on day {i} "
            f"because of reason number {i * 7 % 101}, and told me about it at length afterwards."
            for i in range(start, start + n)]


def texts_for(n: int, data: Path) -> tuple[list[str], str]:
    if data.is_file():
        texts = real_messages(data, n)
        real = len(texts)
        if real < n:  # a small file runs out of distinct turns: top up with generated text
            texts += generated_messages(n - real)
        return texts, f"{data} ({real} real messages{f', {n - real} generated' if real < n else ''})"
    return generated_messages(n), "generated sentences (no LongMemEval file found)"


def measure(device: str, texts: list[str], batch_size: int) -> tuple[dict[str, Any], Any]:
    load_start = time.perf_counter()
    embedder = MiniLMEmbedder(batch_size, device)
    load_s = time.perf_counter() - load_start
    embedder.embed(texts[:batch_size])  # warm-up: kernels, allocator, tokenizer
    if device == "cuda":
        embedder._torch.cuda.synchronize()
    start = time.perf_counter()
    rows = embedder.embed(texts)  # embed() returns numpy: the GPU work has finished when it returns
    seconds = time.perf_counter() - start
    result = {"device": embedder.device, "texts": len(texts), "seconds": round(seconds, 3),
              "texts_per_s": round(len(texts) / seconds, 1), "load_s": round(load_s, 2), "dims": int(rows.shape[1])}
    if device == "cuda":
        result["gpu"] = embedder._torch.cuda.get_device_name(0)
    return result, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="texts to embed per device (default 2000)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"LongMemEval JSON (default {DEFAULT_DATA})")
    parser.add_argument("--batch-size", type=int, default=32, help="texts per batch (default 32, [memory] embed_batch_size)")
    parser.add_argument("--devices", default="cpu,cuda", help="comma-separated, in order (default cpu,cuda)")
    args = parser.parse_args(argv)
    texts, source = texts_for(args.n, args.data)
    import torch

    report: dict[str, Any] = {"source": source, "batch_size": args.batch_size, "torch": torch.__version__,
                              "cuda_available": cuda_available(), "cpu_count": os.cpu_count(),
                              "torch_threads": torch.get_num_threads(), "machine": platform.platform(),
                              "results": []}
    vectors: dict[str, Any] = {}
    for device in [d.strip() for d in args.devices.split(",") if d.strip()]:
        if device == "cuda" and not cuda_available():
            report["results"].append({"device": "cuda", "skipped": "torch sees no CUDA device"})
            continue
        result, vectors[device] = measure(device, texts, args.batch_size)
        report["results"].append(result)
    if "cpu" in vectors and "cuda" in vectors:
        import numpy as np

        cpu, gpu = vectors["cpu"], vectors["cuda"]
        report["cpu_vs_cuda"] = {"max_abs_diff": float(np.max(np.abs(cpu - gpu))),
                                 "min_cosine": float(np.min(np.sum(cpu * gpu, axis=1)))}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
