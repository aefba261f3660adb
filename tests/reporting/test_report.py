"""report.md / report.html / plots for a small synthetic run, a sweep, and the edge cases."""

from __future__ import annotations

import re

from tests.scoring.synthetic_run import result, small_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.markdown_html import render
from benchmarker.reporting.report import write_report
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import parse_summary


def test_report_for_a_small_run_and_a_sweep(tmp_path):
    results = small_run()
    summary = build_summary(results, run_meta={"run_id": "demo", "offline": True}, suites=SUITE_LOOKUP).as_dict()
    points = []
    for alpha in (0.0, 0.5, 1.0):
        for top_k in (5, 10):
            s = build_summary(results, run_meta={}, suites=SUITE_LOOKUP).as_dict()
            s["retrieval"]["metrics"]["session.recall_all@10"] = None if top_k == 5 else alpha / 2 + 0.2
            points.append({"alpha": alpha, "top_k": top_k, "summary": s})
    sweep = {"points": points, "metric": "session.recall_all@10"}
    paths = write_report(tmp_path, parse_summary(summary), results, sweep=sweep,
                         extra_sections=[("Levels", "| level | score |\n|---|---|\n| L1 | 0.9 |")], suites=SUITE_LOOKUP)
    for name in ("accuracy_by_type", "recall_at_k", "sweep_heatmap"):
        assert (tmp_path / "plots" / f"{name}.png").stat().st_size > 1000
    md = paths["markdown"].read_text()
    html = paths["html"].read_text()
    assert "Offline run" in md and "## QA accuracy" in md and "## Worst questions" in md
    assert "## Sweep: alpha x top_k" in md and "## Levels" in md
    assert len(re.findall(r'src="data:image/png;base64,[A-Za-z0-9+/=]{100,}"', html)) == 3
    assert "plots/" not in html.split("<body>")[1] and "http" not in html  # self-contained
    assert "<b>" not in html and "&lt;b&gt;" in html  # hypotheses are escaped
    assert "<td>L1</td>" in html
    assert "✔" in md  # evidence hits are marked in the worst questions


def test_report_edge_cases(tmp_path):
    empty = build_summary([], run_meta={"run_id": "empty"}, suites=SUITE_LOOKUP).as_dict()
    paths = write_report(tmp_path / "empty", parse_summary(empty), [], suites=SUITE_LOOKUP)
    assert "No judged answers" in (tmp_path / "empty" / "report.md").read_text()
    # nothing to plot: no plot, no plots/ folder, no image link (was a check that passed whenever plots/ was missing)
    assert set(paths) == {"markdown", "html"}
    assert sorted(p.name for p in (tmp_path / "empty").iterdir()) == ["report.html", "report.md"]
    assert "plots/" not in (tmp_path / "empty" / "report.md").read_text()

    unjudged = [result(f"q{i}", "multi-session", None, judge="llm") for i in range(3)]
    s = build_summary(unjudged, run_meta={}, suites=SUITE_LOOKUP).as_dict()
    write_report(tmp_path / "unjudged", parse_summary(s), unjudged, suites=SUITE_LOOKUP)
    md = (tmp_path / "unjudged" / "report.md").read_text()
    assert "No judged answers" in md and "unjudged" in md and "no retrieval data" in md

    det = [result("q1", "multi-session", False, judge="deterministic")]
    write_report(tmp_path / "det", build_summary(det, run_meta={}, suites=SUITE_LOOKUP), det, suites=SUITE_LOOKUP)
    assert "deterministic (1)" in (tmp_path / "det" / "report.md").read_text()


def test_markdown_renderer_subset():
    html = render("# T\n\n| a | b |\n|---|---|\n| `x` | **y** |\n\n- one\n- two\n\n```\n<code>\n```\n\ntext <i>")
    assert '<h1 id="t">T</h1>' in html and "<td><code>x</code></td>" in html and "<strong>y</strong>" in html
    assert "<ul><li>one</li><li>two</li></ul>" in html and "&lt;code&gt;" in html and "&lt;i&gt;" in html


def _markdown(tmp_path, results, run_meta) -> str:
    summary = build_summary(results, run_meta=run_meta, suites=SUITE_LOOKUP).as_dict()
    return write_report(tmp_path, parse_summary(summary), results, suites=SUITE_LOOKUP)["markdown"].read_text(encoding="utf-8")


def test_an_offline_run_names_its_judge_models_offline_not_none(tmp_path):
    results = [result(f"q{i}", "multi-session", i % 2 == 0, judge="deterministic") for i in range(4)]
    md = _markdown(tmp_path / "offline", results, {"run_id": "r", "offline": True})
    assert "models: offline (no model call)" in md and "models: none" not in md
    assert "models: gpt-4o-mini" in _markdown(tmp_path / "llm", [result("q1", "multi-session", True)], {"run_id": "r"})


def test_the_speed_table_says_totals_add_concurrent_cases_and_gives_the_wall_time(tmp_path):
    md = _markdown(tmp_path, small_run(), {"run_id": "r", "wall_s": 56.04})
    assert "a total can exceed the run's wall time" in md and "This attempt took 56.0 s of wall time" in md
    from benchmarker.reporting.outputs import RUN_KEYS_KEPT

    assert "wall_s" in RUN_KEYS_KEPT  # `report` keeps what the run measured: a rebuild cannot time the run


def test_the_worst_questions_line_states_an_order_not_a_filter(tmp_path):
    md = _markdown(tmp_path, small_run(), {"run_id": "r"})
    line = next(x for x in md.splitlines() if "unjudged answers; showing" in x)
    assert "in this order: incorrect answers whose evidence was never retrieved, the other incorrect answers, " \
           "then the unjudged" in line
