"""Judge sensitivity: every judging of one run side by side, on known inputs recomputed by hand; then a real offline
run re-judged by an LLM judge (the scripted OpenAI-compatible server) whose verdicts differ, through `score`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.reporting.judge_sensitivity_report import judge_sensitivity_section
from benchmarker.reporting.summary_judge_blocks import JudgeSensitivityBlock
from benchmarker.scoring.judge_sensitivity import judge_sensitivity, read_judgings, sensitivity_block
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer, last_prompt, llm_judge_toml

T, F = True, False
TYPES = ["t1", "t1", "t1", "t2", "t2", "t2"]


def lines(labels: list[bool | None], judge: str = "deterministic", model: str = "") -> list[dict]:
    return [{"question_id": f"q{i + 1}", "question_type": TYPES[i], "label": label,
             "grade": {"judge": judge, "model": model}} for i, label in enumerate(labels)]


A = [T, T, F, T, F, F]   # t1 2/3, t2 1/3, overall 1/2
B = [T, F, F, T, T, F]   # t1 1/3, t2 2/3, overall 1/2; differs from A on q2 and q5


def test_two_judges_accuracy_agreement_kappa_and_disagreements_by_hand():
    block = sensitivity_block({"a": lines(A), "b": lines(B, "llm", "gpt-judge")})
    assert block["questions"] == block["paired"] == 6
    (pair,) = block["pairs"]
    # agreement 4/6; p_a = p_b = 1/2 so chance agreement 1/2; kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert (pair["a"], pair["b"], pair["n"], pair["agree"]) == ("a", "b", 6, 4)
    assert pair["agreement"] == pytest.approx(4 / 6) and pair["kappa"] == pytest.approx(1 / 3)
    assert (pair["only_a_correct"], pair["only_b_correct"]) == (1, 1)   # q2, q5
    assert [d["question_id"] for d in block["disagreements"]] == ["q2", "q5"]
    assert block["disagreements"][0] == {"question_id": "q2", "question_type": "t1", "labels": {"a": True, "b": False}}
    t1, t2 = block["by_type"]["t1"], block["by_type"]["t2"]
    assert t1["judges"]["a"]["accuracy"] == pytest.approx(2 / 3) and t1["judges"]["b"]["accuracy"] == pytest.approx(1 / 3)
    assert t1["judges"]["a"]["ci95"] == pytest.approx([0.2077, 0.9385], abs=1e-4)   # Wilson, 2 of 3
    assert t1["spread"]["value"] == pytest.approx(1 / 3) and t2["spread"]["value"] == pytest.approx(1 / 3)
    assert (t1["spread"]["highest"], t1["spread"]["lowest"]) == ("a", "b")
    assert block["overall"]["spread"]["value"] == 0.0   # the same accuracy overall, for opposite reasons per type
    assert [j["judge"] for j in block["judges"]] == ["deterministic", "llm"] and block["judges"][1]["model"] == "gpt-judge"


def test_three_judges_every_pair_and_a_judge_that_says_correct_everywhere_has_no_kappa():
    block = sensitivity_block({"a": lines(A), "b": lines(B), "c": lines([T] * 6)})
    pairs = {(p["a"], p["b"]): p for p in block["pairs"]}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    assert pairs[("a", "c")]["agreement"] == pytest.approx(3 / 6) and pairs[("a", "c")]["kappa"] is None
    assert pairs[("b", "c")]["kappa"] is None and pairs[("a", "b")]["kappa"] == pytest.approx(1 / 3)
    assert (pairs[("a", "c")]["only_a_correct"], pairs[("a", "c")]["only_b_correct"]) == (0, 3)   # q3, q5, q6
    overall = block["overall"]["spread"]
    assert overall["value"] == pytest.approx(0.5) and (overall["highest"], overall["lowest"]) == ("c", "a")
    assert [d["question_id"] for d in block["disagreements"]] == ["q2", "q3", "q5", "q6"]


def test_one_label_everywhere_leaves_kappa_null_not_a_crash():
    block = sensitivity_block({"a": lines([T] * 6), "b": lines([T] * 6)})
    (pair,) = block["pairs"]
    assert pair["agreement"] == 1.0 and pair["kappa"] is None and block["disagreements"] == []
    assert block["overall"]["spread"] == {"value": 0.0, "ci95": [0.0, 0.0], "highest": "a", "lowest": "a"}
    md = judge_sensitivity_section(JudgeSensitivityBlock.model_validate(block))
    assert "n/a" in md and "The judges agree on every question." in md


def test_the_spread_interval_resamples_the_same_questions_for_every_judge():
    mixed = [i % 3 == 0 for i in range(60)]
    rows = [{"question_id": f"q{i}", "question_type": "t", "label": v} for i, v in enumerate(mixed)]
    same = sensitivity_block({"a": rows, "b": [dict(r) for r in rows]})
    assert same["overall"]["spread"]["ci95"] == [0.0, 0.0]   # unpaired resampling would spread two identical judges
    # b says correct on 6 answers a judged wrong: each resample's spread is the share of those 6 drawn, so >= 0 and
    # around 0.1; the interval is seeded, so the same on every call
    flipped = [dict(r, label=True if i in range(1, 19, 3) else r["label"]) for i, r in enumerate(rows)]
    block = sensitivity_block({"a": rows, "b": flipped})
    lo, hi = block["overall"]["spread"]["ci95"]
    assert block["overall"]["spread"]["value"] == pytest.approx(0.1) and 0.0 <= lo < 0.1 < hi <= 0.25
    assert sensitivity_block({"a": rows, "b": flipped})["overall"]["spread"]["ci95"] == [lo, hi]


def test_unjudged_and_missing_answers_are_left_out_and_said():
    partial = lines([T, F, None, T, T])   # q3 unjudged by b; q6 not re-judged yet
    retrieval_only = {"question_id": "q7", "question_type": "t2", "label": None, "grade": {"judge": "none"}}
    block = sensitivity_block({"a": lines(A) + [retrieval_only], "b": partial + [retrieval_only]})
    assert (block["questions"], block["paired"]) == (5, 4)
    assert block["judges"][1]["unjudged"] == 1
    assert block["overall"]["judges"]["a"]["n"] == 4   # every judge over the same paired questions
    assert any("no line for 1 of the run's 6 questions" in n for n in block["notes"])
    assert any("1 question(s) some judge left unjudged" in n for n in block["notes"])


def test_one_judging_is_no_block():
    assert sensitivity_block({"a": lines(A)}) is None


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_read_from_the_run_directory_latest_line_wins_rounds_left_out(tmp_path: Path):
    first = [dict(r, label=not r["label"]) for r in lines(A)]   # judged again later: the last line wins
    _jsonl(tmp_path / "results.jsonl", first + lines(A) + [{"question_id": "adv-1", "round": 1, "label": False}])
    _jsonl(tmp_path / "scores" / "llm-gpt-judge" / "results.jsonl", lines(B, "llm", "gpt-judge"))
    assert list(read_judgings(tmp_path)) == ["deterministic (run)", "llm-gpt-judge"]
    block = judge_sensitivity(tmp_path)
    assert block["questions"] == 6 and [d["question_id"] for d in block["disagreements"]] == ["q2", "q5"]
    assert block["notes"] == [] and block["judges"][0]["lines"] == 6   # the adversary's round is not the run's score
    assert block["judges"][1]["source"] == "scores/llm-gpt-judge/results.jsonl"
    assert judge_sensitivity(tmp_path / "scores" / "llm-gpt-judge") is None   # a re-judging has no judgings of its own


def test_report_section_shows_the_figures():
    md = judge_sensitivity_section(JudgeSensitivityBlock.model_validate(sensitivity_block({"a": lines(A), "b": lines(B)})))
    assert "| t1 | 3 | 66.7% [20.8%, 93.9%] | 33.3% [6.1%, 79.2%] | 33.3 pts [" in md
    assert "| a | b | 6 | 66.7% | 0.33 | 1 | 1 |" in md
    assert "| q2 | t1 | correct | wrong |" in md and "| q5 | t2 | wrong | correct |" in md


# --- end to end: an offline run, re-judged by an LLM judge that says "no" to two answers -----------------------

SAMPLE = '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'


@pytest.mark.slow
def test_score_by_another_judge_adds_the_section_to_the_runs_report(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-judge-test")
    config = tmp_path / "offline.toml"
    config.write_text(SAMPLE + '[run]\nlimit = 5\nprogress = false\noutput_dir = "runs"\n', encoding="utf-8")
    assert main(["run", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("offline-*")
    own = {r["question_id"]: r for r in read_lines(run_dir / "results.jsonl")}
    assert "judge_sensitivity" not in json.loads((run_dir / "summary.json").read_text())   # judged once
    refused = {own[q]["question"] for q in sorted(own)[:2]}   # the LLM judge says "no" to these two, "yes" elsewhere

    def judge(request: dict) -> dict:
        return {"text": "no" if any(question in last_prompt(request) for question in refused) else "yes"}

    with ScriptedOpenAIServer(judge) as server:
        rejudge = tmp_path / "judge.toml"
        rejudge.write_text(SAMPLE + llm_judge_toml(server.base_url), encoding="utf-8")
        capsys.readouterr()
        assert main(["score", str(run_dir), str(rejudge)]) == 0
    assert f"run report (every judging side by side): {run_dir / 'report.html'}" in capsys.readouterr().out
    llm = {q: own[q]["question"] not in refused for q in own}
    expected = sorted(q for q in own if own[q]["label"] is not llm[q])
    assert expected, "the offline labels and the LLM's must differ somewhere for this test to mean anything"
    block = json.loads((run_dir / "summary.json").read_text())["judge_sensitivity"]
    assert [j["name"] for j in block["judges"]] == ["deterministic (run)", "llm-gpt-judge"]
    assert sorted(d["question_id"] for d in block["disagreements"]) == expected
    (pair,) = block["pairs"]
    assert pair["n"] == len(own) and pair["agree"] == len(own) - len(expected)
    assert block["overall"]["judges"]["llm-gpt-judge"]["correct"] == len(own) - 2
    offline_correct = sum(1 for r in own.values() if r["label"])
    assert block["overall"]["spread"]["value"] == pytest.approx(abs(offline_correct - (len(own) - 2)) / len(own))
    report = (run_dir / "report.md").read_text()
    assert "## Does the judge decide it?" in report and all(f"| {q} |" in report for q in expected)
    assert main(["report", str(run_dir)]) == 0   # rebuilt from the files: the same block
    assert json.loads((run_dir / "summary.json").read_text())["judge_sensitivity"] == block
