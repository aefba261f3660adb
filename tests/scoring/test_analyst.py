"""The analyst: each wrong answer's cause from the run's logs, on crafted lines and on a real run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.scoring.analyst import CAUSES, analyse, diagnose, written_turns
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer, last_prompt, llm_judge_toml


def result(**fields):
    base = {"question_id": "q", "case_id": "c", "label": False, "is_abstention": False, "question": "Where?",
            "answer": "Lyon", "hypothesis": "Paris", "evidence_turns": [["s1", 3]],
            "retrieved": [{"session_id": "s1", "turn_index": 3}]}
    return base | fields


@pytest.mark.parametrize("fields,written,cause", [
    ({}, set(), "not_written"),
    ({"retrieved": [{"session_id": "s2", "turn_index": 0}]}, {("s1", 3)}, "not_retrieved"),
    ({}, {("s1", 3)}, "misread"),
    ({"hypothesis": "You moved to Lyon in May."}, {("s1", 3)}, "judged_wrong"),
    ({"is_abstention": True, "hypothesis": "Paris"}, set(), "answered_unanswerable"),
    ({"is_abstention": True, "hypothesis": "I don't know."}, set(), "judged_wrong"),
    ({"evidence_turns": []}, set(), "no_evidence"),
])
def test_the_first_stage_that_did_not_hold_is_the_cause(fields, written, cause):
    assert diagnose(result(**fields), written) == cause


def test_writes_count_only_into_the_cases_finished_memory():
    calls = [{"case_id": "c", "caller": "agent", "tool": "add_entry",
              "args": {"memory_id": "old", "tags": {"session_id": "s1", "turn_index": "3"}}},
             {"case_id": "c", "caller": "agent", "tool": "add_entry",
              "args": {"memory_id": "new", "tags": {"session_id": "s1", "turn_index": "4"}}},
             {"case_id": "c", "caller": "agent", "tool": "put_context", "args": {"memory_id": "new"}}]
    assert written_turns(calls, {"c": "new"}) == {"c": {("s1", 4)}}
    block = analyse([result(), result(question_id="q2", label=True)], calls, {"c": "new"})
    assert block["wrong"] == 1 and block["counts"]["not_written"] == 1 and set(block["counts"]) == set(CAUSES)


def test_a_run_with_the_analyst_on_explains_every_wrong_answer(tmp_path):
    config = tmp_path / "analysed.toml"
    config.write_text('[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
                      '[multi_agent]\nanalyst = true\n[run]\nlimit = 5\nconcurrency = 2\nprogress = false\n'
                      'output_dir = "runs"\n', encoding="utf-8")
    assert main(["run", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("analysed-*")
    block = json.loads((run_dir / "summary.json").read_text())["analyst"]
    wrong = [r for r in read_lines(run_dir / "results.jsonl") if r["label"] is False]
    assert block["wrong"] == len(wrong) > 0 and sum(block["counts"].values()) == len(wrong)
    # the offline agent writes every message: nothing is lost before retrieval
    assert block["counts"]["not_written"] == 0
    assert "## Where answers were lost" in (run_dir / "report.md").read_text()
    assert main(["report", str(run_dir)]) == 0  # rebuilt from the files: the same block
    assert json.loads((run_dir / "summary.json").read_text())["analyst"] == block


# --- analyst_explain: the judge's model explains each diagnosis, through the real client -----------

EXPLAIN_PROMPTS: list[str] = []


def _explaining_judge(request: dict) -> dict:
    prompt = last_prompt(request)
    if prompt.startswith("You review one wrong answer"):
        EXPLAIN_PROMPTS.append(prompt)
        if len(EXPLAIN_PROMPTS) == 1:
            return {"text": "I think it was the search."}   # unusable: asked again, told why
        return {"text": '{"explanation": "The stored entry was never returned.", "fix": "raise top_k"}'}
    return {"text": "no"}   # the main judge: every answer wrong


def test_a_model_explains_each_diagnosis_up_to_explain_max(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-analyst-test")
    with ScriptedOpenAIServer(_explaining_judge) as server:
        config = tmp_path / "why.toml"
        config.write_text('[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
                          '[run]\nlimit = 3\nprogress = false\noutput_dir = "runs"\n'
                          + llm_judge_toml(server.base_url) +
                          '[multi_agent]\nanalyst = true\nanalyst_explain = true\nexplain_max = 2\n', encoding="utf-8")
        assert main(["run", str(config)]) == 0
        (run_dir,) = (tmp_path / "runs").glob("why-*")
        lines = read_lines(run_dir / "analyst.jsonl")
        assert len(lines) == 2 and len(EXPLAIN_PROMPTS) == 3   # 2 answers, one reply asked again
        assert "could not be used" in EXPLAIN_PROMPTS[1] and "Gold answer:" in EXPLAIN_PROMPTS[0]
        results = {r["question_id"]: r for r in read_lines(run_dir / "results.jsonl")}
        assert all(line["status"] == "explained" and line["fix"] == "raise top_k" for line in lines)
        assert sorted(line["question_id"] for line in lines) == sorted(list(results)[:2])   # the first two, in order
        block = json.loads((run_dir / "summary.json").read_text())["analyst"]
        assert block["wrong"] == 3 and block["explained"] == 2
        shown = [row for rows in block["examples"].values() for row in rows if "explanation" in row]
        assert len(shown) == 2 and shown[0]["explanation"] == "The stored entry was never returned."
        assert "why (model-written): The stored entry was never returned. Fix: raise top_k" in (
            run_dir / "report.md").read_text()
        assert main(["run", str(config)]) == 0   # resumed: nothing explained twice, never more than explain_max
        assert len(read_lines(run_dir / "analyst.jsonl")) == 2 and len(EXPLAIN_PROMPTS) == 3


def test_an_explanation_needs_the_analyst_and_a_model(tmp_path: Path):
    from benchmarker.config import load_config
    from benchmarker.errors import ConfigError

    path = tmp_path / "bad.toml"
    path.write_text('[multi_agent]\nanalyst_explain = true\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[multi_agent\]\.analyst_explain: .*set analyst = true"):
        load_config(path)
    path.write_text('[multi_agent]\nanalyst = true\nanalyst_explain = true\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[multi_agent\]\.analyst_explain: needs a model"):
        load_config(path)
