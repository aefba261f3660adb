"""Sharing one comparison (issue 44 item 6): `view RUN_A RUN_B --bundle OUT` carries only the chosen runs and
their compare page (A -> B as named), pages share one static/ folder, and `compare --out x.html` carries the
accuracy-by-type figure inline."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from view_fixture import write_runs

from benchmarker.cli import main


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def test_a_bundle_of_two_chosen_runs_holds_them_and_their_comparison_only(tmp_path, capsys):
    runs = write_runs(tmp_path)
    out = tmp_path / "out"
    assert main(["view", str(runs / "run-b"), str(runs / "run-a"), "--bundle", str(out)]) == 0
    files = _files(out)
    assert "compare/run-b/run-a.html" in files  # compared in the order named
    assert "runs/run-a/points/alpha=0.5/index.html" in files  # a point keeps its run's name
    assert not any(f.startswith(("runs/run-live", "runs/run-evil", "calibrations/")) for f in files)
    assert {f for f in files if f.endswith((".css", ".js"))} == {"static/view.css", "static/view.js", "static/board.js"}
    page = (out / "runs/run-a/questions/q-correct.html").read_text()
    assert 'href="../../../static/view.css"' in page
    assert f"run-b -> run-a compared in {out / 'compare/run-b/run-a.html'}" in capsys.readouterr().out


def test_a_bundle_of_two_runs_is_smaller_than_one_of_their_folder(tmp_path):
    runs = write_runs(tmp_path)
    main(["view", str(runs / "run-a"), str(runs / "run-b"), "--bundle", str(tmp_path / "two")])
    main(["view", str(runs), "--bundle", str(tmp_path / "all")])
    assert len(_files(tmp_path / "two")) < len(_files(tmp_path / "all"))


def test_compare_out_page_carries_the_accuracy_by_type_figure_inline(tmp_path, capsys):
    runs = write_runs(tmp_path)
    out = tmp_path / "x.html"
    assert main(["compare", str(runs / "run-a"), str(runs / "run-b"), "--out", str(out), "--allow-invalid"]) == 0
    page = out.read_text()
    found = re.search(r'<img alt="accuracy and retrieval \w+\.recall_\w+@\d+ by question type" '
                      r'src="data:image/png;base64,([^"]+)"', page)
    assert found is not None
    assert base64.b64decode(found.group(1)).startswith(b"\x89PNG")


def test_the_figure_draws_names_matplotlib_would_read_as_math():
    from benchmarker.reporting.compare_plots import figure_markdown

    lines = [{"question_id": "q1", "question_type": "cost $5 {$", "label": True},
             {"question_id": "q2", "question_type": "_hidden", "label": False}]
    text, images = figure_markdown([("$\\notatex{$", lines), ("_b", lines)])
    assert "no retrieval recall that every run measured" in text
    assert base64.b64decode(images["by_type.png"].split(",", 1)[1]).startswith(b"\x89PNG")
