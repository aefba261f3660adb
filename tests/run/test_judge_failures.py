"""A judge that cannot be reached stops `score` (and `run`) with exit 1 and the real cause, instead
of exiting 0 with every answer "unjudged"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from embedded_memory.launcher import free_port
from tests.run.test_run_inputs import _small

DEAD_JUDGE = """
dataset_file = "{data}"
[provider]
type = "openai"
[provider.openai]
base_url = "http://127.0.0.1:{port}/v1"
[models]
agent = "offline-memory-agent"
qa = "offline-extractive-reader"
eval = "gpt-4o-mini"
[eval]
judge = "llm"
[retry]
max_attempts = 1
initial_backoff_s = 0.01
max_backoff_s = 0.01
[memory]
embedder = "static"
[run]
output_dir = "{out}"
progress = false
max_failures_in_a_row = 2
"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.json"
    path.write_text(json.dumps([_small(f"q{i}") for i in range(4)]), encoding="utf-8")
    return path


def test_score_with_an_unreachable_judge_exits_1_naming_the_cause(tmp_path: Path, data: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "runs"
    offline = tmp_path / "offline.toml"
    offline.write_text(f'run_id = "r"\ndataset_file = "{data}"\n[memory]\nembedder = "static"\n'
                       f'[run]\noutput_dir = "{out}"\nprogress = false\n', encoding="utf-8")
    assert main(["run", str(offline)]) == 0
    judge_cfg = tmp_path / "judge.toml"
    judge_cfg.write_text(DEAD_JUDGE.format(data=data, port=free_port(), out=out), encoding="utf-8")
    capsys.readouterr()

    assert main(["score", str(out / "r"), str(judge_cfg)]) == 1
    err = capsys.readouterr().err
    assert "judge model failed on 2 answers in a row" in err
    assert "judge call failed" in err and "Connection" in err  # the real cause, not "unparsable replies"
    written = (out / "r" / "scores" / "llm-gpt-4o-mini" / "results.jsonl")
    lines = [json.loads(line) for line in written.read_text().splitlines()] if written.exists() else []
    assert len(lines) <= 2 and all(line["grade"]["judge_error"] for line in lines)


def test_run_with_an_unreachable_judge_stops_the_same_way(tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    cfg = tmp_path / "run.toml"
    cfg.write_text(DEAD_JUDGE.format(data=data, port=free_port(), out=tmp_path / "runs"), encoding="utf-8")
    assert main(["run", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "failed" in err and "in a row" in err and "Connection" in err
