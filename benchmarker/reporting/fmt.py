"""How the reports print a number that may be missing: one rule for every table ("n/a" when None)."""

from __future__ import annotations


def num(value: float | None, fmt: str = "{:.3f}") -> str:
    return "n/a" if value is None else fmt.format(value)


def pct(value: float | None) -> str:
    """A share in [0, 1] as a percentage with one decimal."""
    return "n/a" if value is None else f"{100 * value:.1f}%"
