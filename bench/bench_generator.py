"""Time the long-horizon generator (and the level builders) on this machine.

    python bench/bench_generator.py [--repeat 5] [--questions 200]

Prints, per size, the best and median wall time of generate_long_horizon over `repeat` seeds,
plus the time to serialise with to_json(). The target is 5000 turns + 200 questions under 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from benchmarker.suites.levels.data import LEVEL_IDS, build_level
from benchmarker.suites.long_horizon.data import generate_long_horizon


def _time(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--questions", type=int, default=200)
    args = parser.parse_args()
    print(f"{'turns':>6} {'questions':>9} {'best s':>8} {'median s':>9} {'to_json s':>9} {'facts':>6} {'sessions':>8}")
    for turns in (100, 1000, 5000):
        times, ds = [], None
        for seed in range(args.repeat):
            elapsed, ds = _time(lambda: generate_long_horizon(turns, seed, questions=args.questions))
            times.append(elapsed)
        dump, _ = _time(ds.to_json)
        print(f"{turns:>6} {len(ds.questions):>9} {min(times):>8.4f} {statistics.median(times):>9.4f} {dump:>9.4f} "
              f"{ds.metadata['facts']:>6} {ds.metadata['sessions']:>8}")
    elapsed, _ = _time(lambda: [build_level(level_id, seed) for level_id in LEVEL_IDS for seed in range(args.repeat)])
    print(f"levels L1-L16: {elapsed / args.repeat:.4f} s per seed (all 16 levels)")


if __name__ == "__main__":
    main()
