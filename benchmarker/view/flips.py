"""The compare page: per-question flips between two runs (regressions first), the exact McNemar test on
them, and how each question's attribution stage moved."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from benchmarker.scoring.stats import mcnemar_exact
from benchmarker.view.lines import Row


@dataclass(frozen=True)
class Pair:
    a: Row
    b: Row


@dataclass
class Comparison:
    shared: int
    only_a: int
    only_b: int
    regressions: list[Pair]  # correct in A, wrong in B
    improvements: list[Pair]  # wrong in A, correct in B
    p_value: float
    stage_moves: list[tuple[str, str, int]]  # (stage in A, stage in B, questions), most first
    stage_changes: list[Pair]
    accuracy_a: float | None
    accuracy_b: float | None


def _accuracy(rows: list[Row]) -> float | None:
    judged = [r.label for r in rows if r.label is not None]
    return sum(judged) / len(judged) if judged else None


def compare(a: dict[str, Row], b: dict[str, Row]) -> Comparison:
    """Questions judged in both runs; McNemar's b and c are the regressions and improvements."""
    pairs = [Pair(a[q], b[q]) for q in a if q in b]
    regressions = [p for p in pairs if p.a.label is True and p.b.label is False]
    improvements = [p for p in pairs if p.a.label is False and p.b.label is True]
    changed = [p for p in pairs if (p.a.stage or p.b.stage) and p.a.stage != p.b.stage]
    moves = Counter((p.a.stage or "none", p.b.stage or "none") for p in changed)
    return Comparison(shared=len(pairs), only_a=len(a) - len(pairs), only_b=sum(q not in a for q in b),
                      regressions=regressions, improvements=improvements,
                      p_value=mcnemar_exact(len(regressions), len(improvements)),
                      stage_moves=[(x, y, n) for (x, y), n in moves.most_common()], stage_changes=changed,
                      accuracy_a=_accuracy([p.a for p in pairs]), accuracy_b=_accuracy([p.b for p in pairs]))

