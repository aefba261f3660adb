"""Runs against each preset's real server, started as a user would: the embedded Mycelian service
over stdio, @modelcontextprotocol/server-memory with npx, kuzu-memory from its own venv (`make
servers`), and a user's own mapping for a namespace-scoped server written in these tests.

Runs are small (the first 4 of 9 generated questions) and in-process (`benchmarker.cli.main`) to keep CI fast.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines
from tests.floor import offline_floor, pinned

HERE = Path(__file__).parent
REPO = HERE.parents[2]
KUZU = REPO / ".venv-servers" / "kuzu" / "bin" / "kuzu-memory"
N = 4  # questions (and so cases, servers, scopes) per run: enough for concurrency, resume and scoping
SMALL = f"""
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
limit = {N}
concurrency = 2
output_dir = "runs"
progress = false
"""

pytestmark = pytest.mark.slow


# The offline floor of SMALL on each server (offline agent and reader, deterministic grader), derived once
# on main c5d6748 by running each test with its dict empty and copying what the failure printed.
FLOOR_METRICS = ("session.recall_any@5", "turn.recall_any@10")
SMALL_FLOOR = {'accuracy': 0.25,
               'labels': {'27cd8130': True, '5304317f_abs': False, '7c69dee1': False, 'f89897b9': False},
               'retrieval': {'session.recall_any@5': 1.0, 'turn.recall_any@10': 1.0}}
FLOOR: dict = {"mycelian": SMALL_FLOOR, "mcp-server-memory": SMALL_FLOOR}  # the same answers on both servers


def write_config(tmp_path: Path, name: str, memory: str, run: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(SMALL.replace("[run]\n", f"[run]\n{run}\n") + f"\n[memory]\n{memory}\n", encoding="utf-8")
    return path


def run_dir_of(tmp_path: Path, name: str) -> Path:
    (found,) = (tmp_path / "runs").glob(f"{name}-*")
    return found


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))


def test_mycelian_over_stdio_answers_like_over_http(tmp_path):
    for name, transport in (("http", "streamable_http"), ("stdio", "stdio")):
        assert main(["run", str(write_config(tmp_path, name, f'transport = "{transport}"'))]) == 0
    http, stdio = run_dir_of(tmp_path, "http"), run_dir_of(tmp_path, "stdio")
    answers = [{r["question_id"]: (r["hypothesis"], r["label"]) for r in read_lines(d / "results.jsonl")}
               for d in (http, stdio)]
    assert answers[0] == answers[1] and len(answers[0]) == N
    got = offline_floor(stdio, FLOOR_METRICS)
    assert got == FLOOR["mycelian"], pinned(got)
    manifest = json.loads((stdio / "manifest.json").read_text())
    assert manifest["memory"]["transport"] == "stdio" and manifest["memory"]["command"] == sys.executable
    assert "--transport" in manifest["memory"]["args"]


@pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node.js with npx")
def test_mcp_server_memory_by_npx_agent_run_resumes_without_rewriting(tmp_path):
    config = write_config(tmp_path, "kg", 'backend = "mcp"\npreset = "mcp-server-memory"')
    assert main(["run", str(config)]) == 0
    run_dir = run_dir_of(tmp_path, "kg")
    results = read_lines(run_dir / "results.jsonl")
    assert len(results) == N and all(r["memory_server"] == "mcp-server-memory" for r in results)
    # one server process, one JSONL file per case, written by the agent's create_entities calls
    folders = sorted(p.name for p in (run_dir / "memory-servers").iterdir() if p.name != "_probe")
    assert len(folders) == N and all((run_dir / "memory-servers" / f / "memory.jsonl").is_file() for f in folders)
    writes = [d for d in read_lines(run_dir / "decisions.jsonl") if d["caller"] == "agent"]
    assert writes and {d["tool"] for d in writes} == {"create_entities"}
    # hits are entities holding the agent's verbatim texts: traced back to sessions and turns
    answered = [r for r in results if not r["is_abstention"]]
    assert sum(r["hits_traced"] for r in answered) > 0
    summary = summary_of(run_dir)
    assert summary["retrieval"]["available"] is True
    got = offline_floor(run_dir, FLOOR_METRICS)
    assert got == FLOOR["mcp-server-memory"], pinned(got)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["memory"]["preset"] == "mcp-server-memory" and manifest["memory"]["command"] == "npx"
    # the same command again: nothing re-ingested, nothing re-asked, same numbers
    decisions = (run_dir / "decisions.jsonl").read_text()
    assert main(["run", str(config)]) == 0
    assert (run_dir / "decisions.jsonl").read_text() == decisions
    assert summary_of(run_dir)["qa"] == summary["qa"]


@pytest.mark.skipif(shutil.which("npx") is None, reason="needs Node.js with npx")
def test_mcp_server_memory_retrieval_run_traces_every_hit(tmp_path):
    config = write_config(tmp_path, "kgr", 'backend = "mcp"\npreset = "mcp-server-memory"', run='mode = "retrieval"')
    assert main(["run", str(config)]) == 0
    run_dir = run_dir_of(tmp_path, "kgr")
    results = read_lines(run_dir / "results.jsonl")
    assert all(r["hits_traced"] == len(r["retrieved"]) for r in results)
    writes = [d for d in read_lines(run_dir / "decisions.jsonl") if d["tool"] == "create_entities"]
    assert writes and all(d["caller"] == "retrieval" for d in writes)
    assert summary_of(run_dir)["retrieval"]["available"] is True


@pytest.mark.skipif(not KUZU.exists(), reason="kuzu-memory is not installed: run `make servers`")
def test_kuzu_memory_agent_run(tmp_path):
    config = write_config(tmp_path, "kuzu", f'backend = "mcp"\npreset = "kuzu-memory"\ncommand = "{KUZU}"')
    assert main(["run", str(config)]) == 0
    run_dir = run_dir_of(tmp_path, "kuzu")
    results = read_lines(run_dir / "results.jsonl")
    assert len(results) == N and all(r["retrieved"] is not None for r in results)
    assert {d["tool"] for d in read_lines(run_dir / "decisions.jsonl") if d["caller"] == "agent"} == {"kuzu_remember"}
    # kuzu_recall returns text lines without ids or scores: hits are traced by their text
    assert all(h["entry_id"] is None and h["score"] is None for r in results for h in r["retrieved"])
    assert sum(r["hits_traced"] for r in results) > 0
    assert summary_of(run_dir)["retrieval"]["available"] is True


def test_a_users_namespace_mapping_keeps_cases_apart_on_one_server(tmp_path):
    memory = (f'backend = "mcp"\nmapping = "{HERE / "notes_mapping.toml"}"\ncommand = "{sys.executable}"\n'
              f'args = ["{HERE / "namespace_notes_server.py"}"]')
    config = write_config(tmp_path, "notes", memory)
    assert main(["run", str(config)]) == 0
    run_dir = run_dir_of(tmp_path, "notes")
    assert not (run_dir / "memory-servers").exists()  # one shared server, no folder per case
    saves = [d for d in read_lines(run_dir / "decisions.jsonl") if d["tool"] == "save_note"]
    by_case: dict[str, set[str]] = {}
    for call in saves:
        by_case.setdefault(call["case_id"], set()).add(call["args"]["user_id"])
    assert len(by_case) == N and all(len(users) == 1 for users in by_case.values())
    assert len({next(iter(u)) for u in by_case.values()}) == N  # a namespace per case
    results = read_lines(run_dir / "results.jsonl")
    assert all(h["score"] is not None and h["entry_id"] for r in results for h in r["retrieved"])
    assert summary_of(run_dir)["retrieval"]["available"] is True


def test_a_missing_server_command_says_how_to_install_it(tmp_path, capsys):
    config = write_config(tmp_path, "nokuzu", 'backend = "mcp"\npreset = "kuzu-memory"\ncommand = "no-such-kuzu"')
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert "[memory].command 'no-such-kuzu'" in err and "is not on PATH" in err and "pip install kuzu-memory" in err


def test_a_preset_on_the_embedded_backend_is_refused_by_key(tmp_path, capsys):
    config = write_config(tmp_path, "bad", 'preset = "mcp-server-memory"\nsearch_alpha = 0.5')
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert "[memory].backend" in err and 'set backend = "mcp"' in err
    assert "[memory].search_alpha" in err and "sweep top_k instead" in err


def test_a_container_mapping_creates_one_container_per_case(tmp_path):
    memory = (f'backend = "mcp"\nmapping = "{HERE / "container_mapping.toml"}"\ncommand = "{sys.executable}"\n'
              f'args = ["{HERE / "namespace_notes_server.py"}"]')
    config = write_config(tmp_path, "books", memory, run='mode = "retrieval"')
    assert main(["run", str(config)]) == 0
    run_dir = run_dir_of(tmp_path, "books")
    memories = {m["case_id"]: m["memory_id"] for m in read_lines(run_dir / "memories.jsonl")}
    assert sorted(memories.values()) == sorted(f"nb-{i}" for i in range(1, N + 1))
    for call in read_lines(run_dir / "decisions.jsonl"):
        if call["tool"] == "save_note":
            assert call["args"]["user_id"] == memories[call["case_id"]]
    assert summary_of(run_dir)["retrieval"]["available"] is True
