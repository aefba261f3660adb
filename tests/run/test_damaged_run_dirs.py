"""`score`, `replay` and `judge-online` on a damaged run directory (issue 26, found by the fuzzer's
"rundirs" group): a one-line error naming the file (and line), never a traceback and never a record
dropped without a word. One real offline agent run (module fixture) is copied and damaged per test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.log.jsonl import torn_tail

pytestmark = pytest.mark.xdist_group("damaged_run_dirs")  # one worker builds the module fixture once

SOURCE = """run_id = "src"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
limit = 2
output_dir = "{out}"
progress = false
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("source")
    (base / "source.toml").write_text(SOURCE.format(out=base), encoding="utf-8")
    assert main(["run", str(base / "source.toml")]) == 0
    return base


@pytest.fixture
def run(finished: Path, tmp_path: Path) -> Path:
    """A copy of the finished run (tmp_path/src) with its config (tmp_path/source.toml)."""
    shutil.copytree(finished / "src", tmp_path / "src", ignore=shutil.ignore_patterns(".lock"))
    text = (finished / "source.toml").read_text(encoding="utf-8").replace(str(finished), str(tmp_path))
    (tmp_path / "source.toml").write_text(text, encoding="utf-8")
    manifest = json.loads((tmp_path / "src" / "manifest.json").read_text(encoding="utf-8"))
    manifest["config_path"] = str(tmp_path / "source.toml")
    (tmp_path / "src" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return tmp_path / "src"


def cut_last_line(path: Path, *, keep_newline: bool = False) -> int:
    """Cut the last line in half, as a writer killed mid-line leaves it; its line number."""
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path.write_bytes(b"\n".join(lines) + (b"\n" if keep_newline else b""))
    return len(lines)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    return line


def online_config(run: Path) -> Path:
    path = run.parent / "online.toml"
    path.write_text(f'run_id = "online"\n[run]\noutput_dir = "{run.parent / "online"}"\nprogress = false\n'
                    f'[online]\nsource = "run_dir"\nrun_dir = "{run}"\n', encoding="utf-8")
    return path


def test_torn_tail_finds_a_cut_off_last_line_with_or_without_its_newline(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n', encoding="utf-8")
    assert torn_tail(path) is None and torn_tail(tmp_path / "missing.jsonl") is None
    path.write_text('{"a": 1}\n{"b"', encoding="utf-8")
    assert torn_tail(path) == 2
    path.write_text('{"a": 1}\n{"b"\n\n', encoding="utf-8")
    assert torn_tail(path) == 2


@pytest.mark.parametrize("keep_newline", [False, True])
def test_score_refuses_an_answer_cut_off_mid_line_instead_of_scoring_one_fewer(run, capsys, keep_newline):
    number = cut_last_line(run / "answers.jsonl", keep_newline=keep_newline)
    assert main(["score", str(run), str(run.parent / "source.toml")]) == 2
    line = one_error_line(capsys)
    assert f"answers.jsonl:{number}: the last line is cut off" in line and "resume the run" in line
    assert not (run / "scores").exists()


def test_replay_refuses_a_manifest_that_is_not_an_object(run, capsys):
    (run / "manifest.json").write_text("[]", encoding="utf-8")
    assert main(["replay", str(run), str(run.parent / "source.toml")]) == 2
    assert "manifest.json: expected a JSON object" in one_error_line(capsys)


def test_replay_refuses_a_cut_off_ingest_log(run, capsys):
    number = cut_last_line(run / "memories.jsonl")
    assert main(["replay", str(run), str(run.parent / "source.toml")]) == 2
    assert f"memories.jsonl:{number}: the last line is cut off" in one_error_line(capsys)


@pytest.mark.parametrize("damage", ["cut", "empty", "missing"])
def test_judge_online_refuses_an_ingest_log_it_cannot_trust(run, capsys, damage):
    memories = run / "memories.jsonl"
    if damage == "cut":
        cut_last_line(memories)
    elif damage == "empty":
        memories.write_bytes(b"")
    else:
        memories.unlink()
    assert main(["judge-online", str(online_config(run))]) == 2
    assert "memories.jsonl" in one_error_line(capsys)
