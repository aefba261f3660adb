"""compare: a known flip pattern and a hand-computed exact McNemar p-value."""

from __future__ import annotations

import pytest
from tests.scoring.synthetic_run import result, write_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.compare import compare_runs, format_compare


def _run(labels: dict[str, bool | None]) -> list[dict]:
    return [result(qid, "multi-session" if i % 2 else "temporal-reasoning", label)
            for i, (qid, label) in enumerate(labels.items())]


def test_compare_known_flips(tmp_path):
    base = {"q0": True, "q1": True, "q2": False, "q3": False, "q4": False, "q5": False, "q6": False,
            "q7": False, "q8": True, "q9": False, "q10": True}
    other = {"q0": True, "q1": False, "q2": True, "q3": True, "q4": True, "q5": True, "q6": True,
             "q7": True, "q8": True, "q9": False, "q11": None}
    a = write_run(tmp_path / "base", _run(base), run_id="baseline-run")
    b = write_run(tmp_path / "new", _run(other))
    cmp = compare_runs([a, b], suites=SUITE_LOOKUP)
    pair = cmp["pairs"][0]
    assert cmp["baseline"] == "baseline-run" and pair["run"] == "new"
    assert pair["n_common"] == 10  # q0..q9; q10 only in base, q11 unjudged
    assert pair["flips"]["correct_to_wrong"] == ["q1"]
    assert sorted(pair["flips"]["wrong_to_correct"]) == ["q2", "q3", "q4", "q5", "q6", "q7"]
    # exact McNemar: b = 1, c = 6 -> 2 * P(X <= 1 | Bin(7, 1/2)) = 2 * 8/128 = 0.125
    assert pair["mcnemar_p"] == pytest.approx(0.125)
    assert pair["baseline_accuracy"] == 0.3 and pair["accuracy"] == 0.8
    assert pair["bootstrap"]["diff"] == pytest.approx(0.5)
    assert pair["bootstrap"]["lo"] <= 0.5 <= pair["bootstrap"]["hi"]
    assert compare_runs([a, b], suites=SUITE_LOOKUP)["pairs"][0]["bootstrap"] == pair["bootstrap"]  # seeded
    text = format_compare(cmp, suites=SUITE_LOOKUP)
    assert "p = 0.125" in text and "`q1`" in text and "| temporal-reasoning |" in text
    assert "1 correct -> wrong, 6 wrong -> correct" in text


def test_compare_missing_results_is_a_user_error(tmp_path):
    from benchmarker.errors import UserError

    with pytest.raises(UserError):
        compare_runs([tmp_path], suites=SUITE_LOOKUP)


def _compare(run_dirs: list, out) -> int:
    """The compare verb in-process (no subprocess): what `mycelian-longmemeval compare ... --out OUT` runs."""
    import argparse

    from benchmarker.commands import command_named

    return command_named("compare").run(argparse.Namespace(run_dirs=run_dirs, out=out, allow_invalid=False))


def test_compare_out_html_is_a_page_with_every_run_and_type_name_escaped(tmp_path, capsys):
    hostile = "<script>alert(1)</script>"
    rows = [result("q1", "<img src=x onerror=alert(2)>", True), result("q2", "multi-session", False)]
    a = write_run(tmp_path / "a", rows, run_id=hostile)
    b = write_run(tmp_path / "b", rows, run_id="[click](javascript:alert(3))")
    assert _compare([a, b], tmp_path / "cmp.html") == 0
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page and "<h1" in page
    assert "<script>" not in page and "<img src=x" not in page and 'href="javascript' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x" in page
    assert _compare([a, b], tmp_path / "cmp.md") == 0
    assert (tmp_path / "cmp.md").read_text(encoding="utf-8").startswith("# Run comparison")


@pytest.mark.parametrize("name", ["cmp.txt", "cmp", "cmp.htm.bak"])
def test_compare_out_refuses_a_suffix_it_cannot_write_before_reading_any_run(tmp_path, capsys, name):
    from benchmarker import cli

    assert cli.main(["compare", str(tmp_path / "missing"), "--out", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ".html" in err and ".md" in err, err
    assert not (tmp_path / name).exists()


def test_compare_labels_a_replay_run_replay_not_agent(tmp_path):
    import json

    rows = [result("q1", "multi-session", True)]
    a = write_run(tmp_path / "agent", rows, run_id="agent-run")
    b = write_run(tmp_path / "replayed", rows, run_id="replay-run")
    for run_dir, extra in ((a, {}), (b, {"replay": {"source_run_id": "agent-run", "agent_calls": 0}})):
        (run_dir / "summary.json").write_text(json.dumps({"run": {"mode": "agent", **extra}}), encoding="utf-8")
    text = format_compare(compare_runs([a, b], suites=SUITE_LOOKUP), suites=SUITE_LOOKUP)
    assert "| mode | `agent` | `replay` |" in text


def test_the_replay_table_title_is_short_and_the_ids_go_on_their_own_line(tmp_path):
    from benchmarker.verbs.replay import TABLE_TITLE, replay_line

    assert len(TABLE_TITLE) <= 30  # rich wrapped the old title (two run ids and a count) mid-phrase
    line = replay_line({"source_run_id": "quickstart-6b7fbd73", "decisions_replayed": 1234}, tmp_path / "src",
                       tmp_path / "replay_bm25-0a1b2c3d")
    assert line == "source quickstart-6b7fbd73 vs replay replay_bm25-0a1b2c3d: 1234 writes replayed"
