"""`calibrate` on BEAM: plain labels files ({question_id, hypothesis, label}) against the clone's questions,
each answer graded by its rubric (the suite hands the case to the judge)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.cli import main

QID = "beam-100K-1-information_extraction-0"       # rubric: "LLM response should state: March 29"
ABS = "beam-100K-1-abstention-0_abs"


def _config(tmp_path: Path, data: Path) -> Path:
    config = tmp_path / "calibrate.toml"
    config.write_text(f'[dataset]\nkind = "beam"\nfile = "{data}"\nchats = [1]\n[provider]\ntype = "offline"\n'
                      '[run]\nprogress = false\noutput_dir = "out"\n', encoding="utf-8")
    return config


def _labels(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_calibrate_grades_beam_answers_by_their_rubric(tmp_path, beam_100k, capsys):
    first = _labels(tmp_path / "a.jsonl", [
        {"question_id": QID, "hypothesis": "Your first sprint ends on March 29.", "label": True},
        {"question_id": ABS, "hypothesis": "I don't have any information about that in our chats.", "label": True}])
    second = _labels(tmp_path / "b.jsonl", [
        {"question_id": QID, "hypothesis": "It ends in June.", "label": True}])   # the labeller says right: disagreement
    assert main(["calibrate", str(_config(tmp_path, beam_100k)), "--labels", str(first), "--labels", str(second),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 3 and summary["disagreements"] == 1
    assert set(summary["by_type"]) == {"information_extraction", "abstention"}
    verdicts = [json.loads(line) for line in
                (tmp_path / "out" / "calibration" / "deterministic" / "verdicts.jsonl").read_text().splitlines()]
    graded = {(v["question_id"], v["verdict"]) for v in verdicts}
    assert graded == {(QID, True), (QID, False), (ABS, True)}
    assert all("rubric item" in v["grade"]["reason"] for v in verdicts)   # BEAM's rubric grader, not LongMemEval's


def test_an_unknown_beam_question_id_is_named(tmp_path, beam_100k, capsys):
    labels = _labels(tmp_path / "a.jsonl", [{"question_id": "beam-100K-9-x-0", "hypothesis": "x", "label": True}])
    assert main(["calibrate", str(_config(tmp_path, beam_100k)), "--labels", str(labels)]) == 2
    assert "beam-100K-9-x-0" in capsys.readouterr().err
