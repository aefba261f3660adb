"""A tool mapping's server under attack (issue 26, found by the fuzzer's "mappings" group): a scope
path out of the run directory, a server stuck at start, a huge tool result. Each is refused with a
clear error (exit 2 before any case, or the case failing into errors.jsonl), in bounded time.

The server is bench/fuzz/mapped_server.py (stdlib-only stdio MCP, one process per case); runs are
small retrieval-mode runs in this process (`benchmarker.cli.main`)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.errors import ConfigError, UserError
from benchmarker.memory.launch import ServerLaunch
from benchmarker.memory.tool_mapping import parse_mapping

SERVER = Path(__file__).resolve().parents[3] / "bench" / "fuzz" / "mapped_server.py"
MAPPING = """name = "fuzz-notes"
[server]
transport = "stdio"
command = "{python}"
args = ["{server}"]
env = {{ NOTES_PATH = "{notes}" }}
[scope]
kind = "process"
[write]
tool = "save_note"
arguments = {{ text = "{{text}}" }}
text_paths = ["text"]
[search]
tool = "find_notes"
arguments = {{ query = "{{query}}", limit = "{{top_k}}" }}
hits = "results[*]"
text = "text"
id = "id"
"""
RUN = """run_id = "r"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
mode = "retrieval"
limit = 1
output_dir = "runs"
progress = false
[memory]
backend = "mcp"
mapping = "mapping.toml"
"""


def mapping_text(notes: str = "{scope_dir}/notes.jsonl") -> str:
    return MAPPING.format(python=sys.executable, server=SERVER, notes=notes)


def write_run(tmp_path: Path, memory: str = "") -> Path:
    (tmp_path / "mapping.toml").write_text(mapping_text(), encoding="utf-8")
    (tmp_path / "run.toml").write_text(RUN + memory, encoding="utf-8")
    return tmp_path / "run.toml"


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    return line


def test_a_mapping_whose_scope_path_climbs_out_is_refused_when_it_loads():
    with pytest.raises(ConfigError, match=r"server\.env: '\{scope_dir\}/\.\./\.\./x' leaves \{scope_dir\}"):
        parse_mapping(mapping_text("{scope_dir}/../../x"), "user.toml")
    text = mapping_text().replace(f'args = ["{SERVER}"]', f'args = ["{SERVER}", "--notes", "{{scope_dir}}/../x"]')
    with pytest.raises(ConfigError, match=r"server\.args: .* leaves \{scope_dir\}"):
        parse_mapping(text, "user.toml")


def test_memory_overrides_may_not_climb_out_or_drop_the_scope_dir():
    from benchmarker.memory.drivers.mapped import check_scope_launch

    mapping = parse_mapping(mapping_text(), "user.toml")
    ok = ServerLaunch(transport="stdio", command="x", env={"NOTES_PATH": "{scope_dir}/elsewhere.jsonl"})
    check_scope_launch(mapping, ok, "run.toml")
    with pytest.raises(UserError, match=r"replace NOTES_PATH, which the mapping keeps under \{scope_dir\}"):
        check_scope_launch(mapping, ServerLaunch(transport="stdio", command="x", env={"NOTES_PATH": "/tmp/all.jsonl"}),
                           "run.toml")
    with pytest.raises(UserError, match=r"args: '\{scope_dir\}/\.\.' leaves"):
        check_scope_launch(mapping, ServerLaunch(transport="stdio", command="x", args=("{scope_dir}/..",),
                                                 env={"NOTES_PATH": "{scope_dir}/n"}), "run.toml")


def test_a_symlinked_server_folder_is_refused(tmp_path):
    from benchmarker.memory.drivers.mapped import scope_folder

    outside = tmp_path / "outside"
    outside.mkdir()
    run_dir = tmp_path / "run"
    (run_dir / "memory-servers").mkdir(parents=True)
    (run_dir / "memory-servers" / "case1").symlink_to(outside)
    with pytest.raises(UserError, match="case1: is a symlink"):
        scope_folder(run_dir, run_dir / "memory-servers" / "case1")
    assert scope_folder(run_dir, run_dir / "memory-servers" / "case2") == run_dir / "memory-servers" / "case2"


def test_a_run_with_a_symlinked_probe_folder_stops_with_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = write_run(tmp_path)
    (tmp_path / "outside").mkdir()
    (tmp_path / "runs" / "r" / "memory-servers").mkdir(parents=True)
    (tmp_path / "runs" / "r" / "memory-servers" / "_probe").symlink_to(tmp_path / "outside")
    assert main(["run", str(config)]) == 2
    assert "_probe: is a symlink" in error_line(capsys)
    assert list((tmp_path / "outside").iterdir()) == []


def test_a_server_that_never_answers_initialize_is_refused_after_start_timeout_s(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = write_run(tmp_path, 'env = { FUZZ_MODE = "hang" }\nstart_timeout_s = 1.0\n')
    started = time.monotonic()
    assert main(["run", str(config)]) == 2
    assert time.monotonic() - started < 30  # 60 s before start_timeout_s existed
    assert "did not answer MCP initialize within 1 s ([memory].start_timeout_s)" in error_line(capsys)


def test_a_search_result_over_max_result_mb_fails_the_case_and_stays_out_of_the_run_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = write_run(tmp_path, 'env = { FUZZ_MODE = "huge", FUZZ_HUGE_MB = "2" }\nmax_result_mb = 1\n')
    main(["run", str(config)])
    run_dir = tmp_path / "runs" / "r"
    errors = [json.loads(line)["error"] for line in (run_dir / "errors.jsonl").read_text().splitlines()]
    assert errors and "over [memory].max_result_mb = 1" in errors[0]
    assert all(p.stat().st_size < 1 << 20 for p in run_dir.glob("*.jsonl"))
