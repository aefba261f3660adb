"""Suites hand reporting data (section_spec); the renderer turns it into the report's markdown, byte for byte as the
suites' own markdown was before (issue 46): tables, blank-on-purpose cells, parts a blank line apart, charts."""

from __future__ import annotations

from pathlib import Path

from benchmarker.reporting.section_render import chart_lines, markdown_table, section_lines, section_pair
from benchmarker.reporting.section_spec import Lines, MeanScoreChart, Section, Table
from benchmarker.suites.beam.summary import beam_section
from benchmarker.suites.levels import SUITE as LEVELS
from benchmarker.suites.locomo.report import compare_rows


def test_a_table_is_a_header_a_separator_and_a_line_per_row_with_empty_and_blank_cells_told_apart():
    table = Table(("name", "n", None), (("a", "", "x"), ("b", "2", None)))
    assert markdown_table(table) == ["| name | n | |", "|---|---|---|", "| a |  | x |", "| b | 2 | |"]


def test_parts_are_a_blank_line_apart_under_the_title():
    section = Section("T", (Lines(("one", "two")), Table(("h",), (("c",),)), Lines(("end",))))
    assert section_lines(section) == ["## T", "", "one", "two", "", "| h |", "|---|", "| c |", "", "end"]
    assert section_pair(section) == ("T", "one\ntwo\n\n| h |\n|---|\n| c |\n\nend")


def test_the_levels_section_renders_its_two_tables_and_note():
    results = [{"kind": "level", "level": "L1", "category": "recall", "score": 0.5},
               {"kind": "level", "level": "L2", "category": "recall", "score": 1.0}]
    summary = LEVELS.reporting.summarise(results, level_scores=[{"level": "L1", "score": 0.25, "scoring": "rubric"}])
    title, body = section_pair(LEVELS.reporting.report_sections(summary)[0])
    assert title == "Levels L1-L16"
    assert body.splitlines()[:5] == ["| level | name | n | mean score | level score | scoring |",
                                     "|---|---|---|---|---|---|", "| L1 | Simple recall | 1 | 0.500 | 0.250 | rubric |",
                                     "| L2 | Multi-source synthesis | 1 | 1.000 | n/a |  |", ""]
    assert body.endswith("\n\n| category | n | mean score |\n|---|---|---|\n| recall | 2 | 0.750 |")


def test_beams_mean_row_leaves_the_half_column_blank():
    block = {"by_ability": {"temporal_reasoning": {"questions": 2, "scored": 2, "mean": 0.5, "ci95": [0.0, 1.0],
                                                   "mean_half": None}},
             "overall": {"mean_over_abilities": 0.5, "ci95": None, "questions": 2, "scored": 2}}
    lines = section_lines(beam_section(block))
    assert "| ability | questions | scored | mean score [95% CI] | with 0.5 kept | |" in lines
    assert "| temporal_reasoning | 2 | 2 | 0.500 [0.000, 1.000] | n/a | ██████████ |" in lines
    assert "| **mean over abilities** | 2 | 2 | **0.500** | | ██████████ |" in lines


def test_locomo_compare_rows_put_each_run_in_a_column():
    judge = {"accuracy": 0.5, "ci95": [0.1, 0.9], "n": 2}
    block = {"overall": {"judge": judge, "f1": None, "bleu1": {"mean": 0.4, "ci95": [0.2, 0.6], "n": 2}},
             "adversarial": {"judge": {"n": 0}}}
    lines = section_lines(compare_rows([{"name": "a", "locomo": block}, {"name": "b", "locomo": block}], "locomo"))
    assert lines[:4] == ["## LoCoMo", "", "| metric | a | b |", "|---|---|---|"]
    assert "| judge accuracy (1-4) | 50.0% [10.0, 90.0] (n=2) | 50.0% [10.0, 90.0] (n=2) |" in lines
    assert "| F1 (1-4) | n/a | n/a |" in lines and "| 5 adversarial (abstention) | n/a | n/a |" in lines


def test_a_chart_is_drawn_into_plots_and_shown_only_when_it_has_rows(tmp_path: Path):
    chart = MeanScoreChart((("a", 0.5, [0.2, 0.8], 3), ("mean", 0.5, None, 3)), "c.png", "mean", "Alt text")
    assert chart_lines(chart, tmp_path) == ["![Alt text](plots/c.png)", ""]
    assert (tmp_path / "c.png").stat().st_size > 0
    assert chart_lines(MeanScoreChart((), "d.png", "mean", "none"), tmp_path) == []
    assert not (tmp_path / "d.png").exists()
