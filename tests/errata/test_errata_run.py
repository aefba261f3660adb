"""A LoCoMo run with an errata file: the corrected answer is judged a second time (offline, by the deterministic
grader), summary.json has `qa` as published and `qa_corrected`, the report shows both and lists the corrections."""

from __future__ import annotations

import json

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines
from tests.errata.test_errata_check import FIXTURE, GOOD, config, write_errata

pytestmark = pytest.mark.slow


def test_an_errata_run_reports_both_accuracies_and_lists_the_corrections(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    moved = {**GOOD, "question_id": "conv-26-q001", "field": "category", "published": 2, "corrected": 4,
             "turn": "D1:3", "quote": "LGBTQ support group"}
    write_errata(tmp_path / "a.jsonl", GOOD, moved)
    assert main(["run", str(config(tmp_path, "a.jsonl"))]) == 0
    (run_dir,) = (tmp_path / "runs").glob("run-*")
    line = next(r for r in read_lines(run_dir / "results.jsonl") if r["question_id"] == "conv-30-q002")
    assert line["label"] is False and line["answer"] == GOOD["published"]   # judged against the published gold
    (answer,) = [e for e in line["errata"] if e["field"] == "answer"]
    assert answer["label"] is True and answer["grade"]["judge"] == "deterministic"   # and again, against the corrected
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["qa"]["overall"]["correct"], summary["qa_corrected"]["overall"]["correct"]) == (6, 7)
    assert summary["qa"]["by_type"]["temporal"]["n"] == 3 and summary["qa_corrected"]["by_type"]["temporal"]["n"] == 2
    assert summary["qa_corrected"]["by_type"]["single-hop"]["n"] == 7   # the category correction moved it
    assert [(c["question_id"], c["field"], c["source"]) for c in summary["errata"]["corrections"]] == [
        ("conv-26-q001", "category", GOOD["source"]), ("conv-30-q002", "answer", GOOD["source"])]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["dataset"]["errata"]["corrections"] == 2 and len(manifest["dataset"]["errata"]["sha256"]) == 64
    report = (run_dir / "report.md").read_text()
    assert "## Gold errata" in report and "| **overall accuracy** | 40.0% (6/15) | 46.7% (7/15) |" in report
    assert f"| `conv-30-q002` | answer | {GOOD['published']} | {GOOD['corrected']} | wrong / correct | " \
           f"{GOOD['source']} |" in report
    (run_dir / "summary.json").unlink()
    assert main(["report", str(run_dir)]) == 0   # recomputed from the run's files alone
    assert json.loads((run_dir / "summary.json").read_text())["qa_corrected"] == summary["qa_corrected"]


def test_a_run_without_errata_has_no_corrected_block(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(config(tmp_path))]) == 0
    (run_dir,) = (tmp_path / "runs").glob("run-*")
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "qa_corrected" not in summary and "errata" not in summary
    assert "Gold errata" not in (run_dir / "report.md").read_text()
    assert FIXTURE.is_file()


def test_a_longmemeval_format_run_and_its_rescoring_judge_the_corrected_answer(tmp_path, monkeypatch):
    """The sample suite (LongMemEval's format, offline): the correction reaches scoring in the run and in `score`."""
    from benchmarker.suites.sample.data import write_sample

    monkeypatch.chdir(tmp_path)
    write_sample(tmp_path / "copy.json", seed=7, questions_per_type=1, sessions_per_question=3)
    item = next(i for i in json.loads((tmp_path / "copy.json").read_text()) if i["question_type"] == "multi-session")
    session, turns = next((sid, s) for sid, s in zip(item["haystack_session_ids"], item["haystack_sessions"],
                                                     strict=True) if sid in item["answer_session_ids"])
    write_errata(tmp_path / "e.jsonl", {"question_id": item["question_id"], "field": "answer",
                                        "published": item["answer"], "corrected": "zebra quartz", "turn": f"{session}:0",
                                        "quote": turns[0]["content"][:20], "source": "https://example.org/lme"})
    path = tmp_path / "sample.toml"
    path.write_text('[dataset]\nkind = "sample"\nseed = 7\nquestions_per_type = 1\nsessions_per_question = 3\n'
                    'errata = "e.jsonl"\n[run]\noutput_dir = "runs"\nprogress = false\n'
                    f'question_ids = ["{item["question_id"]}"]\n', encoding="utf-8")
    assert main(["run", str(path)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("sample-*")
    (line,) = read_lines(run_dir / "results.jsonl")
    assert line["errata"][0]["corrected"] == "zebra quartz" and line["errata"][0]["label"] is False
    assert json.loads((run_dir / "summary.json").read_text())["errata"]["questions"] == 1
    assert main(["score", str(run_dir), str(path)]) == 0
    (rescored,) = read_lines(next((run_dir / "scores").glob("*/results.jsonl")))
    assert rescored["errata"][0]["label"] is False and rescored["errata"][0]["grade"]["judge"] == "deterministic"
