"""compare opens with a verdict (which run is ahead, by how much, its interval and paired test, or "within the
noise"), then the runs side by side per question type with Holm-adjusted p-values, then search latency and cost;
it refuses two runs that share no question and says so when they share only some. The run browser's compare
page opens the same way."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from tests.scoring.synthetic_run import hits_for, result, write_run

from benchmarker import cli
from benchmarker.commands import command_named
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.compare import compare_runs, format_compare
from benchmarker.scoring.stats import holm
from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

N = 40
TYPES = ("single-session-user", "multi-session")  # even ids, odd ids


def lines(correct: int, *, judged: bool = True, ids: range = range(N)) -> list[dict]:
    """Questions q0.. : the first `correct` are answered right and their evidence found (rank 2); the rest are
    wrong, their evidence not found (attribution: not_retrieved)."""
    out = []
    for i in ids:
        hit = i < correct
        row = result(f"q{i}", TYPES[i % 2], hit if judged else None, hits=hits_for(f"q{i}", hit))
        row["timings"]["search_ms"] = 10.0 + i  # p50 29.5, p95 47.05 over q0..q39
        out.append(row | ({"attribution": "correct" if hit else "not_retrieved"} if judged else {}))
    return out


def first_lines(text: str) -> list[str]:
    """What compare prints before its first table: the verdicts and the share note."""
    return [line for line in text.split("Like-for-like check")[0].splitlines()[1:] if line]


def compare_text(*run_dirs: Path) -> str:
    return format_compare(compare_runs(list(run_dirs), suites=SUITE_LOOKUP), suites=SUITE_LOOKUP)


@pytest.fixture
def keyword_and_hybrid(tmp_path) -> tuple[Path, Path]:
    """keyword gets q0..q9 right, hybrid q0..q29: 20 questions only hybrid got, none the other way."""
    return (write_run(tmp_path / "keyword", lines(10), run_id="keyword"),
            write_run(tmp_path / "hybrid", lines(30), run_id="hybrid"))


def test_holm_adjusts_a_known_family():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])  # 3 x 0.01; 2 x 0.03; max(0.04, 0.06)
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1, never below an earlier step
    assert holm([0.2]) == [0.2] and holm([]) == []


def test_compare_opens_with_the_run_ahead_by_how_much_with_its_interval_and_test(keyword_and_hybrid):
    keyword, hybrid = keyword_and_hybrid
    text = compare_text(keyword, hybrid)
    assert text.startswith("# Run comparison\n\nverdict: hybrid is ahead of keyword on accuracy by 50.0 points (95% CI [+")
    verdict = first_lines(text)[0]
    # exact McNemar on b = 0, c = 20: 2 * 0.5 ** 20
    assert verdict.endswith("paired bootstrap over the 40 questions judged in both runs; exact McNemar p = 1.91e-06).")
    assert len(first_lines(text)) == 1  # the runs share every question: no share note
    # the baseline ahead reads the same way round: the winner first, the difference positive
    reverse = first_lines(compare_text(hybrid, keyword))[0]
    assert reverse.startswith("verdict: hybrid is ahead of keyword on accuracy by 50.0 points (95% CI [+")


def test_a_small_difference_is_called_within_the_noise(tmp_path):
    base = write_run(tmp_path / "base", lines(10), run_id="base")
    new = write_run(tmp_path / "new", lines(14), run_id="new")  # 4 more right: McNemar p = 2 * 0.5 ** 4
    verdict = first_lines(compare_text(base, new))[0]
    # the interval alone would call it (it excludes 0 at 40 questions); the paired test does not
    assert verdict.startswith("verdict: within the noise: new vs base on accuracy: +10.0 points (95% CI [+2.5, +")
    assert verdict.endswith("exact McNemar p = 0.125); neither run is ahead.")


def test_retrieval_only_runs_are_decided_by_recall(tmp_path):
    base = write_run(tmp_path / "keyword", lines(5, judged=False), run_id="keyword")
    new = write_run(tmp_path / "hybrid", lines(25, judged=False), run_id="hybrid")
    verdict = first_lines(compare_text(base, new))[0]
    assert verdict.startswith("verdict: hybrid is ahead of keyword on `session.recall_all@10` by 0.500 (95% CI [+")
    assert "over the 40 questions scored in both runs; exact McNemar p = 1.91e-06" in verdict


def test_several_runs_have_their_verdicts_holm_adjusted(tmp_path, keyword_and_hybrid):
    keyword, hybrid = keyword_and_hybrid
    same = write_run(tmp_path / "same", lines(10), run_id="same")
    verdicts = first_lines(compare_text(keyword, hybrid, same))
    assert verdicts[0].startswith("verdict: hybrid is ahead of keyword")
    assert "exact McNemar p = 1.91e-06, Holm-adjusted over 2 verdicts 3.81e-06" in verdicts[0]
    assert verdicts[1].startswith("verdict: within the noise: same vs keyword on accuracy: +0.0 points")


def test_per_type_accuracy_recall_ndcg_and_stage_moves_side_by_side_with_holm(keyword_and_hybrid):
    text = compare_text(*keyword_and_hybrid)
    assert text.index("## hybrid vs keyword, by question type") < text.index("## Search latency and cost") \
        < text.index("## Each run")
    table = text.split("## hybrid vs keyword, by question type")[1].split("## Search latency")[0]
    assert ("| type | n | accuracy | difference [95% CI] | p (Holm) | session.recall_all@10 | difference [95% CI] "
            "| p (Holm) | session.ndcg_any@10 | difference [95% CI] | stage moves |") in table
    row = next(r for r in table.splitlines() if r.startswith("| multi-session |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # 20 odd ids; keyword right on 5 of them, hybrid on 15: raw McNemar p 2 * 0.5 ** 10, times the 4 p-values shown
    assert cells[:3] == ["multi-session", "20", "25.0% -> 75.0%"] and cells[3].startswith("+50.0 [+")
    assert cells[4] == "0.00781" and cells[7] == "0.00781"
    assert cells[5] == "0.250 -> 0.750" and cells[8] == "0.250 -> 0.750"
    assert cells[10] == "not_retrieved -> correct 10"
    assert "Holm-adjusted over the 4 p-values in this table" in table


def test_search_latency_and_cost_side_by_side(keyword_and_hybrid):
    keyword, hybrid = keyword_and_hybrid
    summary = {"cost": {"usd": {"total": 0.4}, "usd_per_question": 0.01}, "qa": {"overall": {"correct": 10}}}
    (keyword / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    block = compare_text(keyword, hybrid).split("## Search latency and cost")[1].split("## Each run")[0]
    assert "| search p50 (ms) | 29.5 | 29.5 |" in block and "| search p95 (ms) | 47.0 | 47.0 |" in block
    assert "| USD per question | $0.0100 | n/a |" in block and "| USD per correct answer | $0.0400 | n/a |" in block


def test_two_runs_that_share_no_question_are_refused_in_one_line(tmp_path, capsys):
    locomo = write_run(tmp_path / "locomo", lines(5, ids=range(0, 10)), run_id="locomo")
    beam = write_run(tmp_path / "beam", lines(5, ids=range(100, 110)), run_id="beam")
    assert cli.main(["compare", str(locomo), str(beam)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "share no question" in err and str(beam) in err and str(locomo) in err, err
    assert "Traceback" not in err and "verdict" not in captured.out


def test_runs_that_share_some_questions_say_how_many_at_the_top(tmp_path, capsys):
    base = write_run(tmp_path / "base", lines(3, ids=range(0, 5)), run_id="base")
    new = write_run(tmp_path / "new", lines(3, ids=range(2, 7)), run_id="new")
    args = argparse.Namespace(run_dirs=[base, new], out=tmp_path / "cmp.html", allow_invalid=False)
    assert command_named("compare").run(args) == 0
    top = first_lines(capsys.readouterr().out)
    assert top[1] == ("3 of 7 questions in both runs; the rest are left out of every paired figure "
                      "(2 only in base, 2 only in new).")
    assert "over the 3 questions judged in both runs" in top[0]
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")  # the --out page opens the same way
    assert page.index("verdict: within the noise: new vs base") < page.index("3 of 7 questions in both runs")


def test_the_view_compare_page_opens_with_the_verdict_and_the_tables(tmp_path, keyword_and_hybrid):
    client = TestClient(create_app(Catalog([tmp_path])), base_url="http://127.0.0.1")
    html = client.get("/compare/keyword/hybrid").text
    verdict = html.split('<p class="verdict-line">')[1].split("</p>")[0]
    assert verdict.startswith("verdict: hybrid is ahead of keyword on accuracy by 50.0 points (95% CI [+")
    assert html.index("verdict-line") < html.index("Like-for-like check")
    assert "<th>session.recall_all@10</th>" in html and "<td>25.0% -&gt; 75.0%</td>" in html
    assert "<td>not_retrieved -&gt; correct 10</td>" in html and "<td>search p95 (ms)</td>" in html
