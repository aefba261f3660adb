"""Suites' section specs (`section_spec.py`) as the report's markdown (report.html renders that markdown), and their
charts drawn into the run's plots/."""

from __future__ import annotations

from pathlib import Path

from benchmarker.reporting.plots import plot_mean_scores
from benchmarker.reporting.section_spec import Cell, MeanScoreChart, Part, Section, Table


def markdown_table(table: Table) -> list[str]:
    """A markdown table: header, separator, one line per row."""
    return [_row(table.header), "|" + "---|" * len(table.header)] + [_row(row) for row in table.rows]


def _row(cells: tuple[Cell, ...]) -> str:
    return "|" + "|".join(" " if cell is None else f" {cell} " for cell in cells) + "|"


def part_lines(part: Part) -> list[str]:
    """One part's markdown lines."""
    return markdown_table(part) if isinstance(part, Table) else list(part.lines)


def body_lines(section: Section) -> list[str]:
    """The section's parts, a blank line between each two."""
    out: list[str] = []
    for i, part in enumerate(section.parts):
        out += ([""] if i else []) + part_lines(part)
    return out


def section_pair(section: Section) -> tuple[str, str]:
    """(title, markdown body): how the report's closing sections are listed (reporting/sections.py)."""
    return section.title, "\n".join(body_lines(section))



def section_markdown(section: Section) -> str:
    """The body as one text ending in a newline: how a block that keeps its markdown in summary.json stores it."""
    return "\n".join(body_lines(section)) + "\n"


def section_lines(section: Section) -> list[str]:
    """The section under its `##` title (a blank line after the title; the caller frames it)."""
    return [f"## {section.title}", "", *body_lines(section)]


def chart_lines(chart: MeanScoreChart, plots: Path) -> list[str]:
    """Draw the chart into `plots` and show it; nothing when it has no row."""
    plot = plot_mean_scores(list(chart.rows), plots / chart.filename, xlabel=chart.xlabel)
    return [f"![{chart.alt}](plots/{plot.name})", ""] if plot else []
