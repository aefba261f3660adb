"""A run's inputs are checked before any paid work: the whole selected dataset up front, and on
resume that the data, prompts, judge and thresholds are the ones the run started with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarker.agent.prompts import PROMPTS_ENV, prompts_dir
from benchmarker.cli import main
from tests.suites.longmemeval.test_longmemeval_loader import instance

CONFIG = """
run_id = "pinned"
dataset_file = "{data}"
[memory]
embedder = "static"
[run]
output_dir = "{out}"
progress = false
"""


def _small(qid: str, answer: str = "blue") -> dict:
    return instance(qid, question_type="single-session-user", question="What colour is my car?", answer=answer,
                    haystack_dates=["2023/05/20 (Sat) 09:00"], haystack_session_ids=[f"s-{qid}"],
                    haystack_sessions=[[{"role": "user", "content": f"My car is {answer}.", "has_answer": True},
                                        {"role": "assistant", "content": "Nice."}]],
                    answer_session_ids=[f"s-{qid}"])


def _setup(tmp_path: Path, items: list[dict]) -> tuple[Path, Path, Path]:
    data, out, cfg = tmp_path / "data.json", tmp_path / "runs", tmp_path / "run.toml"
    data.write_text(json.dumps(items), encoding="utf-8")
    cfg.write_text(CONFIG.format(data=data, out=out), encoding="utf-8")
    return data, out / "pinned", cfg


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bad_instances_are_all_reported_before_the_service_starts(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    items = [_small(f"q{i}") for i in range(5)]
    items[2]["haystack_dates"] = ["20 May 2023"]
    items[4]["answer"] = ["not", "a", "string"]
    data, run_dir, cfg = _setup(tmp_path, items)

    assert main(["run", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert str(data) in err and "2 problem(s)" in err and "nothing was paid for" in err
    assert "instance 2 (0-based), question_id 'q2': field `haystack_dates[0]`" in err
    assert "instance 4 (0-based), question_id 'q4': field `answer`" in err
    # Nothing ran: no memory service, no answers, no manifest.
    assert not (run_dir / "memory.sqlite").exists() and not (run_dir / "answers.jsonl").exists()
    assert not (run_dir / "manifest.json").exists()
    assert main(["estimate", str(cfg)]) == 2  # estimate refuses the same file


@pytest.mark.slow
def test_resume_with_changed_data_prompts_or_judge_stops_with_exit_2(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    data, run_dir, cfg = _setup(tmp_path, [_small("q1"), _small("q2", "red")])
    assert main(["run", str(cfg)]) == 0
    results = _lines(run_dir / "results.jsonl")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["inputs"]["dataset"] == manifest["dataset"]["sha256"]

    # Same inputs: resumes (nothing to do) and exits 0.
    assert main(["run", str(cfg)]) == 0
    capsys.readouterr()

    # One answer edited in the data file: refused, naming the file and the way out; nothing rewritten.
    edited = [_small("q1"), _small("q2", "green")]
    data.write_text(json.dumps(edited), encoding="utf-8")
    assert main(["run", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "started with other inputs" in err and f"the dataset ({data}) changed" in err
    assert 'run_id = "<new name>"' in err and "mycelian-longmemeval score" in err
    assert _lines(run_dir / "results.jsonl") == results
    assert json.loads((run_dir / "manifest.json").read_text())["dataset"]["sha256"] == manifest["dataset"]["sha256"]

    # Data restored, but a prompt edited: refused, naming the prompt file.
    data.write_text(json.dumps([_small("q1"), _small("q2", "red")]), encoding="utf-8")
    edited_prompts = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), edited_prompts, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (edited_prompts / "qa_reader.txt").write_text("Answer in one word.\n{question}\n{context}\n", encoding="utf-8")
    monkeypatch.setenv(PROMPTS_ENV, str(edited_prompts))
    assert main(["run", str(cfg)]) == 2
    assert "1 prompt file(s) changed: qa_reader.txt" in capsys.readouterr().err
    monkeypatch.delenv(PROMPTS_ENV)

    # A stricter threshold with the run id pinned: refused, naming the key and both values.
    cfg.write_text(cfg.read_text() + "[eval.thresholds]\nanswer_f1 = 0.9\n", encoding="utf-8")
    assert main(["run", str(cfg)]) == 2
    assert "[eval.thresholds] answer_f1: 0.8 -> 0.9" in capsys.readouterr().err


def test_an_empty_dataset_is_an_error_not_an_empty_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, run_dir, cfg = _setup(tmp_path, [])
    assert main(["run", str(cfg)]) == 2
    assert f"{data}: holds no instances" in capsys.readouterr().err
    assert not (run_dir / "report.md").exists()


def test_an_output_dir_that_cannot_be_written_names_the_key(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the runs folder should be", encoding="utf-8")
    data, _, cfg = _setup(tmp_path, [_small("q1")])
    cfg.write_text(CONFIG.format(data=data, out=blocker / "runs"), encoding="utf-8")
    assert main(["run", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "cannot write the run directory" in err and "[run].output_dir" in err and str(cfg) in err


@pytest.mark.parametrize("argv, expected", [
    (["--questions-per-type", "0"], "expected an integer 1..50, got 0"),
    (["--sessions-per-question", "x"], "expected an integer 3..200, got 'x'"),
])
def test_sample_flags_out_of_range_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    argv: list[str], expected: str) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["sample", str(tmp_path / "s.json"), *argv])
    assert stop.value.code == 2 and expected in capsys.readouterr().err


def test_sample_onto_a_directory_or_unwritable_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sample", str(tmp_path)]) == 2
    assert "is a directory; give a file path" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["sample", str(blocker / "s.json")]) == 2
    assert f"cannot write {blocker / 's.json'}" in capsys.readouterr().err
