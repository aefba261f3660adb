"""Benchmark the streaming LongMemEval loader on an M-sized file (default 2.7 GB).

    .venv/bin/python bench/bench_loader.py                 # 2.7 GB, deleted afterwards
    .venv/bin/python bench/bench_loader.py --size-gb 0.5 --keep --path /tmp/m.json

The file is generated with the shape of LongMemEval_M (~500 sessions of ~11 messages per
question, ~5.4 MB of JSON per question; the question count scales with --size-gb) and written
one instance at a time, so generation never holds the file in memory either. Each measured
phase runs in a fresh subprocess, so each peak RSS belongs to that phase alone (VmHWM from
/proc, falling back to ru_maxrss).
Target: every phase under 1 GB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SESSIONS_PER_QUESTION = 500
WORDS = ("memory agent session context entry summary vault search hybrid alpha keyword vector "
         "garden recipe museum ticket budget commute train weekend project deadline meeting "
         "report invoice doctor concert novel kitchen travel hotel airport weather").split()


def _contents(rng: random.Random, n: int = 4000) -> list[str]:
    """A pool of message texts (~150-1800 chars) so generation is IO-bound, not RNG-bound."""
    return [" ".join(rng.choices(WORDS, k=rng.randint(20, 260))) + "." for _ in range(n)]


def _instance(rng: random.Random, i: int, pool: list[str]) -> dict:
    day = [f"2023/{1 + (s // 28) % 12:02d}/{1 + s % 28:02d} (Mon) {s % 24:02d}:{s % 60:02d}"
           for s in range(SESSIONS_PER_QUESTION)]
    rng.shuffle(day)  # real files are not always in date order; the loader sorts
    sessions = [[{"role": ("user", "assistant")[k % 2], "content": rng.choice(pool),
                  **({"has_answer": True} if s == 7 and k == 0 else {})}
                 for k in range(rng.randint(8, 14))] for s in range(SESSIONS_PER_QUESTION)]
    ids = [f"s{i}_{s}" for s in range(SESSIONS_PER_QUESTION)]
    types = ("single-session-user", "single-session-assistant", "single-session-preference",
             "multi-session", "temporal-reasoning", "knowledge-update")
    return {"question_id": f"q{i:04d}" + ("_abs" if i % 17 == 0 else ""),
            "question_type": types[i % 6], "question": "What did I buy?", "answer": i,
            "question_date": "2024/01/01 (Mon) 10:00", "haystack_dates": day,
            "haystack_session_ids": ids, "haystack_sessions": sessions,
            "answer_session_ids": [ids[7]]}


def generate(path: Path, size_gb: float, seed: int = 0) -> tuple[int, int]:
    """Write instances until the file reaches size_gb; return (questions, bytes)."""
    rng = random.Random(seed)
    pool = _contents(rng)
    target, written, count = int(size_gb * 1e9), 0, 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        while written < target:
            text = json.dumps(_instance(rng, count, pool), indent=1)
            out.write((",\n" if count else "") + text)
            written += len(text) + 2
            count += 1
        out.write("\n]\n")
    return count, path.stat().st_size


def _phase(name: str, path: str, ids: str) -> dict:
    """Run inside the child process: one measured phase."""
    from benchmarker.suites.longmemeval.data import iter_longmemeval, scan_question_index, validate_longmemeval

    start = time.perf_counter()
    questions = messages = 0
    if name == "baseline":
        pass
    elif name == "scan":
        questions = len(scan_question_index(path))
    elif name == "validate":  # the pre-run check of every selected instance (here: all of them)
        questions = validate_longmemeval(path)
    elif name == "iterate":
        for case in iter_longmemeval(path):
            questions += 1
            messages += case.message_count
    elif name == "only_ids":
        for case in iter_longmemeval(path, only_ids=set(ids.split(","))):
            questions += 1
            messages += case.message_count
    seconds = time.perf_counter() - start
    return {"phase": name, "seconds": seconds, "questions": questions, "messages": messages,
            "peak_rss_mb": _peak_rss_kb() / 1024}


def _peak_rss_kb() -> int:
    """This process's peak RSS in KiB.

    Linux carries ru_maxrss across fork+exec (a child starts with its parent's peak), so the
    per-mm high-water mark VmHWM is read when /proc has it; ru_maxrss is the fallback.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _run_child(name: str, path: Path, ids: str = "") -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", name, "--path", str(path),
                          "--ids", ids], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=2.7)
    parser.add_argument("--path", type=Path, help="where to write the file (default: temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument("--reuse", action="store_true", help="use --path as is if it exists")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--ids", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_phase(args.child, str(args.path), args.ids)))
        return 0

    tmp = None
    if args.path is None:
        tmp = tempfile.mkdtemp(prefix="bench_loader_")
        args.path = Path(tmp) / "longmemeval_m_synthetic.json"
    try:
        if args.reuse and args.path.exists():
            gen_s, size = 0.0, args.path.stat().st_size
        else:
            start = time.perf_counter()
            _, size = generate(args.path, args.size_gb)
            gen_s = time.perf_counter() - start
        results = [_run_child("baseline", args.path), _run_child("scan", args.path)]
        total = results[1]["questions"]
        results.append(_run_child("validate", args.path))
        results.append(_run_child("iterate", args.path))
        # the worst case for skipping: the wanted ids are spread to the very end of the file
        wanted = ",".join(f"q{i:04d}" for i in (1, total // 2 + 1, total - 1) if i % 17)
        results.append(_run_child("only_ids", args.path, wanted))
        _print(args.path, size, gen_s, results)
        worst = max(r["peak_rss_mb"] for r in results)
        print(f"\npeak RSS of any phase: {worst:,.0f} MB "
              f"({'OK' if worst < 1024 else 'OVER'} target < 1024 MB)")
    finally:
        if not args.keep:
            args.path.unlink(missing_ok=True)
            if tmp:
                os.rmdir(tmp)
    return 0


def _print(path: Path, size: int, gen_s: float, results: list[dict]) -> None:
    mb = size / 1e6
    print(f"file: {path} ({mb:,.0f} MB" + (f", generated in {gen_s:.1f} s)" if gen_s else ")"))
    print(f"{'phase':<10} {'seconds':>9} {'questions':>10} {'messages':>11} {'q/s':>8} "
          f"{'MB/s':>8} {'peak RSS MB':>12}")
    for r in results:
        secs = max(r["seconds"], 1e-9)
        rate = r["questions"] / secs if r["phase"] != "baseline" else 0
        mbps = mb / secs if r["phase"] != "baseline" else 0
        print(f"{r['phase']:<10} {r['seconds']:>9.2f} {r['questions']:>10,} {r['messages']:>11,} "
              f"{rate:>8.1f} {mbps:>8.0f} {r['peak_rss_mb']:>12,.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
