"""What a suite hands reporting for its report section: data (tables, prose lines), never markdown.

Suites sit above reporting (docs/internals.md, the floors), so they describe a section with these frozen values and
`reporting/section_render.py` decides how it looks; a suite never formats a table itself.
"""

from __future__ import annotations

from dataclasses import dataclass

Cell = str | None
"""A table cell, already formatted; None: a slot left blank on purpose (shown `| |`, where "" shows `|  |`)."""


@dataclass(frozen=True)
class Table:
    """A table: its column names and its rows of cells (one per column)."""

    header: tuple[Cell, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Lines:
    """Prose, one paragraph or list item per line, shown as written."""

    lines: tuple[str, ...]


Part = Table | Lines


@dataclass(frozen=True)
class MeanScoreChart:
    """Horizontal bars of mean scores in 0..1, the last row highlighted (an overall mean), drawn by reporting into
    the run's plots/ as `filename` and shown with `alt`; each row is (label, mean, 95% interval or None, n)."""

    rows: tuple[tuple[str, float, list[float] | None, int], ...]
    filename: str
    xlabel: str
    alt: str


@dataclass(frozen=True)
class Section:
    """A titled report section: its parts, shown in order with a blank line between them."""

    title: str
    parts: tuple[Part, ...]
