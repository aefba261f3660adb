"""Graders with perspectives beside the main score: through the real langchain-openai client against
a local OpenAI-compatible server; offline nothing is graded and the summary says so."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.cli import main
from benchmarker.scoring.graders import parse_grade
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer, last_prompt, llm_judge_toml

RUN = ('[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
       '[run]\nlimit = 1\nprogress = false\noutput_dir = "runs"\n')


GRADER_CALLS: list[str] = []


def script(request: dict) -> dict:
    prompt = last_prompt(request)
    GRADER_CALLS.extend(word for word in ("SIMPLICITY", "QUALITY", "REGRESSION") if word in prompt)
    if "SIMPLICITY" in prompt:
        return {"text": '{"score": 0.9, "reason": "direct"}'}
    if "QUALITY" in prompt:
        return {"text": 'Here: {"score": 0.25, "reason": "misses the point"}'}
    if "REGRESSION" in prompt:
        return {"text": '{"score": 0.5, "reason": "as good"}'}
    return {"text": "yes"}   # the main LongMemEval judge


def test_perspective_scores_sit_beside_the_main_score(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-grader-test")
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "base.toml").write_text(RUN, encoding="utf-8")
    assert main(["run", str(tmp_path / "base" / "base.toml")]) == 0
    (baseline,) = (tmp_path / "base" / "runs").glob("base-*")
    with ScriptedOpenAIServer(script) as server:
        config = tmp_path / "graded.toml"
        config.write_text(RUN + llm_judge_toml(server.base_url) +
                          f'[multi_agent]\ngraders = ["quality", "simplicity", "regression"]\nbaseline_run = "{baseline}"\n',
                          encoding="utf-8")
        assert main(["run", str(config)]) == 0
        (run_dir,) = (tmp_path / "runs").glob("graded-*")
        lines = read_lines(run_dir / "graders.jsonl")
        assert len(lines) == 3 and len(GRADER_CALLS) == 3  # 1 answer x 3 perspectives
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["qa"]["overall"]["accuracy"] == 1.0   # the main judge said yes: graders never change it
        means = {name: row["mean"] for name, row in summary["graders"]["perspectives"].items()}
        assert means == {"quality": 0.25, "simplicity": 0.9, "regression": 0.5}
        assert "## Graders with perspectives" in (run_dir / "report.md").read_text()
        assert main(["run", str(config)]) == 0   # resumed: nothing graded twice
        assert len(read_lines(run_dir / "graders.jsonl")) == 3 and len(GRADER_CALLS) == 3


def test_offline_nothing_is_graded_and_the_summary_says_so(tmp_path: Path):
    config = tmp_path / "offline.toml"
    config.write_text(RUN + '[multi_agent]\ngraders = ["quality"]\n', encoding="utf-8")
    assert main(["run", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("offline-*")
    block = json.loads((run_dir / "summary.json").read_text())["graders"]
    assert block["perspectives"]["quality"] == {"graded": 0, "mean": None, "by_main_label": {}, "ungraded": 0}
    assert "not graded" in block["note"] and not (run_dir / "graders.jsonl").exists()


def test_a_grade_must_be_a_score_from_0_to_1():
    assert parse_grade('{"score": 1, "reason": "x"}')["score"] == 1.0
    for bad in ('{"score": 7}', "no json", '{"reason": "x"}'):
        try:
            parse_grade(bad)
        except ValueError:
            continue
        raise AssertionError(bad)
