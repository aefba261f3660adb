"""The fuzz report: a table for people, a JSON file for tests and later comparison."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench.fuzz.outcome import OUTCOMES, Tally

ROOT = Path(__file__).resolve().parents[2]


def checkout() -> dict[str, Any]:
    """The commit measured, and whether the service's folder had uncommitted changes (shared checkouts)."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": git("log", "--oneline", "-1"),
            "service_uncommitted": bool(git("status", "--porcelain", "--", "embedded_memory"))}


def _mib(kb: int | None) -> str:
    return "-" if kb is None else f"{kb / 1024:.0f}"


def table(tallies: list[Tally]) -> str:
    columns = ["tried", *OUTCOMES]
    head = f"{'group':<9}" + "".join(f"{c:>9}" for c in columns) + f"  {'RSS MiB before>after (peak)':>28} {'s':>7}"
    lines = [head, "-" * len(head)]
    for t in tallies:
        counts = [t.tried, *(t.counts[o] for o in OUTCOMES)]
        rss = (f"{_mib(t.rss_before_kb)}>{_mib(t.rss_after_kb)} ({_mib(t.rss_peak_kb)})"
               if t.rss_before_kb or t.rss_after_kb else "no service")
        lines.append(f"{t.group:<9}" + "".join(f"{n:>9}" for n in counts) + f"  {rss:>28} {t.seconds:>7.1f}")
    return "\n".join(lines)


def short_table(tallies: list[Tally]) -> str:
    """The issue's table: tried, refused, crashed, lost, leaked per group."""
    columns = ("tried", "refused", "crashed", "lost", "leaked")
    lines = [f"{'group':<9}" + "".join(f"{c:>9}" for c in columns)]
    lines += [f"{t.group:<9}" + "".join(f"{t.short()[c]:>9}" for c in columns) for t in tallies]
    return "\n".join(lines)


def findings(tallies: list[Tally]) -> str:
    """The first examples of every outcome worth a look, and each group's extra measurements."""
    lines = []
    for t in tallies:
        for outcome, examples in t.examples.items():
            lines += [f"[{t.group}] {outcome} ({t.counts[outcome]}): {e}" for e in examples]
        for key, value in t.extra.items():
            lines.append(f"[{t.group}] {key}: {json.dumps(value)}")
    return "\n".join(lines)


def write_json(path: Path, header: dict[str, Any], tallies: list[Tally]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {**header, **checkout(), "outcomes": list(OUTCOMES), "groups": [t.as_json() for t in tallies]}
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
