"""How the reports print a number that may be missing: one rule for every table ("n/a" when None)."""

from __future__ import annotations

from benchmarker.scoring.qa_metrics import AccuracyCell


def num(value: float | None, fmt: str = "{:.3f}") -> str:
    return "n/a" if value is None else fmt.format(value)


def pct(value: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal."""
    return "n/a" if value is None else f"{100 * value:.1f}%"


def accuracy_cell(c: AccuracyCell | None) -> str:
    """A judge-accuracy block ({accuracy, ci95, n}) as a percentage, its 95% interval and n; "n/a" when nothing was judged."""
    if not c or not c.get("n"):
        return "n/a"
    lo, hi = c["ci95"] or (0.0, 0.0)  # a judged cell has its interval
    return f"{pct(c['accuracy'])} [{100 * lo:.1f}, {100 * hi:.1f}] (n={c['n']})"
