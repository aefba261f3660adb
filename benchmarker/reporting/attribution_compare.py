"""How the attribution stages moved between two runs (`compare`, and the run browser's compare page).

Read from the results lines' `attribution` (written when each answer was judged); a line without one
(a run from before attribution) is left out, and the count of those is said.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.compare_shapes import Pair, StageMoves
from benchmarker.scoring.attribution import STAGES


def stage_counts(results: Sequence[ResultLine]) -> dict[str, int]:
    found = Counter(r.get("attribution") for r in results if r.get("attribution"))
    return {s: found.get(s, 0) for s in STAGES}


def stage_moves(base: Sequence[ResultLine], other: Sequence[ResultLine]) -> StageMoves:
    """Per question judged in both: stage in base -> stage in other, counted, with the ids of every move."""
    a = {r["question_id"]: r.get("attribution") for r in base}
    b = {r["question_id"]: r.get("attribution") for r in other}
    common = sorted(q for q in a.keys() & b.keys() if a[q] and b[q])
    moves: dict[str, list[str]] = {}
    for q in common:
        if a[q] != b[q]:
            moves.setdefault(f"{a[q]} -> {b[q]}", []).append(q)
    return {"n_common": len(common), "unattributed_lines": len(a.keys() & b.keys()) - len(common),
            "moves": dict(sorted(moves.items(), key=lambda kv: (-len(kv[1]), kv[0])))}


def stage_lines(runs: list[dict[str, Any]], pair: Pair | None = None) -> list[str]:
    """The stage counts side by side (runs), or one pair's moves."""
    if pair is None:
        if not any(sum((r.get("stages") or {}).values()) for r in runs):
            return []
        lines = ["", "| stage | " + " | ".join(r["name"] for r in runs) + " |", "|---|" + "---|" * len(runs)]
        lines += [f"| {s} | " + " | ".join(str((r.get("stages") or {}).get(s, 0)) for r in runs) + " |" for s in STAGES]
        return lines
    moved = pair["stages"]
    if not moved["n_common"]:
        return []
    out = [f"- stage moves over {moved['n_common']} questions attributed in both: "
           + ("; ".join(f"{k}: {len(v)}" for k, v in moved["moves"].items()) or "none")]
    if moved["unattributed_lines"]:
        out.append(f"- {moved['unattributed_lines']} shared questions carry no attribution in one run (judged before "
                   "attribution existed, or not judged): left out")
    return out
