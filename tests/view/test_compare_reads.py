"""The compare page reads each run's results.jsonl once: its flips, the like-for-like check and the paired verdict
all come from that one read (three reads each before), and the rows it builds are the question list's own."""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

import pytest
from view_fixture import write_runs

from benchmarker.log.jsonl import latest_by
from benchmarker.view.catalog import Catalog
from benchmarker.view.lines import ResultsIndex, iter_objects, result_lines
from benchmarker.view.links import ServerLinks
from benchmarker.view.pages import Site
from benchmarker.view.run_results import read_run_results


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_runs(tmp_path_factory.mktemp("compare-reads"))


def test_the_compare_page_opens_each_runs_results_once(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = Catalog([runs])
    catalog.refresh()
    site = Site(catalog)
    opened: list[str] = []
    real_open = builtins.open

    def counting(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, str | os.PathLike) and Path(file).name == "results.jsonl":
            opened.append(Path(file).parent.name)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting)
    monkeypatch.setattr(io, "open", counting)
    html = site.compare_page(catalog.runs["run-a"], catalog.runs["run-b"], ServerLinks())
    monkeypatch.undo()
    assert sorted(opened) == ["run-a", "run-b"]
    regressions, improvements = html.split("Improvements:")
    assert "q-correct" in regressions and "q-not-used" in improvements  # the flips
    assert "Attribution stage changes (2)" in html


def test_one_read_gives_the_question_lists_rows_and_the_last_line_of_each_question(runs: Path) -> None:
    path = runs / "run-a" / "results.jsonl"  # a re-judged question and a torn last line
    read = read_run_results(path)
    assert read.rows == ResultsIndex(path).rows()
    assert read.lines == latest_by(result_lines(iter_objects(path)), "question_id")
    assert read.rows["q-correct"].label is True  # the re-judged line won
