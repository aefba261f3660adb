"""End to end through the CLI as a subprocess, on the embedded defaults (offline models, generated data)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarker.registry import SUITE_LOOKUP
from tests.e2e.cli import read_lines, run_cli
from tests.floor import offline_floor, pinned
from tests.once import built_once

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cli_quickstart")]
ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(body, encoding="utf-8")
    return path


QUICK = """
run_id = "e2e"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 4
[memory]
embedder = "{embedder}"
[run]
output_dir = "{out}"
progress = false
"""


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> Path:
    def build() -> Path:
        tmp = tmp_path_factory.mktemp("quick")
        cfg = write_config(tmp, QUICK.format(out=tmp / "runs", embedder="minilm"))
        proc = run_cli("run", str(cfg), cwd=tmp)
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert "e2e" in proc.stdout
        return tmp / "runs" / "e2e"

    return built_once(__name__, build)


def test_run_writes_every_output_file(quick_run: Path) -> None:
    for name in ("manifest.json", "memories.jsonl", "decisions.jsonl", "answers.jsonl", "hypotheses.jsonl",
                 "results.jsonl", "summary.json", "report.md", "report.html"):
        assert (quick_run / name).exists(), name


def test_outputs_agree_with_each_other_and_the_dataset(quick_run: Path) -> None:
    dataset = json.loads((quick_run / "data" / "sample_longmemeval.json").read_text(encoding="utf-8"))
    ids = {q["question_id"] for q in dataset}
    results = read_lines(quick_run / "results.jsonl")
    hypotheses = read_lines(quick_run / "hypotheses.jsonl")
    assert {r["question_id"] for r in results} == ids
    assert len(results) == len(ids)  # answered once each
    assert {h["question_id"] for h in hypotheses} == ids
    by_id = {q["question_id"]: q for q in dataset}
    for r in results:
        assert r["answer"] == str(by_id[r["question_id"]]["answer"])
        assert r["question_type"] == by_id[r["question_id"]]["question_type"]
    memories = read_lines(quick_run / "memories.jsonl")
    assert {m["case_id"] for m in memories if m["status"] == "ingested"} == ids
    manifest = json.loads((quick_run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "finished"
    assert manifest["dataset"]["sha256"] and manifest["package_version"]
    summary = json.loads((quick_run / "summary.json").read_text(encoding="utf-8"))
    assert summary["counts"]["questions"] == len(ids)
    official = list((quick_run / "official").glob("hypotheses.jsonl.eval-results-*"))
    assert official and all("autoeval_label" in json.loads(l) for l in official[0].read_text().splitlines())


# The offline floor of QUICK (minilm embedder), derived once on main c5d6748 by running this module with
# QUICK_FLOOR = {} and copying what the failure printed: the generated data, the offline agent and
# reader and the deterministic grader are deterministic, so any change is a change in one of them.
QUICK_FLOOR: dict = {
    'accuracy': 0.1111,
    'labels': {'1a2a73ed': True, '504867ba': False, '6dadd6c7_abs': False, 'd5704f32_abs': False, 'e645f129': False,
               'ef7ddc76': False, 'f26b4776': False, 'gpt4_1bac27a7_abs': False, 'gpt4_bdc14f1f': False},
    'retrieval': {'session.ndcg_any@10': 1.0, 'session.recall_all@10': 1.0, 'session.recall_any@5': 1.0,
                  'turn.recall_any@10': 1.0}}
QUICK_METRICS = ("session.recall_any@5", "session.recall_all@10", "turn.recall_any@10", "session.ndcg_any@10")


def test_the_offline_floor_is_pinned(quick_run: Path) -> None:
    got = offline_floor(quick_run, QUICK_METRICS)
    assert got == QUICK_FLOOR, pinned(got)


def test_every_message_was_written_once_with_its_session_tags(quick_run: Path) -> None:
    dataset = json.loads((quick_run / "data" / "sample_longmemeval.json").read_text(encoding="utf-8"))
    decisions = read_lines(quick_run / "decisions.jsonl")
    adds = [d for d in decisions if d["tool"] == "add_entry" and d.get("caller") == "agent" and not d.get("error")]
    expected = sum(len(s) for q in dataset for s in q["haystack_sessions"])
    assert len(adds) == expected
    tags = adds[0]["args"]["tags"]
    assert {"session_id", "session_date", "turn_index", "role"} <= set(tags)


def test_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, "[run]\nconcurency = 2\n")
    proc = run_cli("run", str(cfg), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert "concurency" in proc.stderr and "run.toml" in proc.stderr
    assert not (tmp_path / "runs").exists()  # nothing started


def test_unreachable_memory_server_is_a_clear_error(tmp_path: Path) -> None:
    cfg = write_config(tmp_path, '[memory]\nbackend = "mcp"\nmcp_url = "http://127.0.0.1:9/mcp"\n'
                                 f'[run]\noutput_dir = "{tmp_path / "runs"}"\nprogress = false\n')
    proc = run_cli("run", str(cfg), cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert "cannot reach the memory MCP server at http://127.0.0.1:9/mcp" in proc.stderr
    assert "[memory].mcp_url" in proc.stderr and "Traceback" not in proc.stderr


def test_score_rejudges_a_finished_run_without_touching_it(quick_run: Path, tmp_path: Path) -> None:
    from tests.fakes.openai_server import ScriptedOpenAIServer

    before = (quick_run / "results.jsonl").read_text(encoding="utf-8")
    with ScriptedOpenAIServer(lambda request: {"text": "yes"}) as judge:
        cfg = write_config(tmp_path, f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{judge.base_url}"\n'
                                     '[models]\nagent = "a"\nqa = "q"\neval = "judge-x"\n[eval]\njudge = "llm"\n')
        env = dict(os.environ, OPENAI_API_KEY="dummy")
        first = run_cli("score", str(quick_run), str(cfg), cwd=tmp_path, env=env, timeout=300)
        assert first.returncode == 0, first.stderr[-3000:]
        asked = len(judge.requests)
        again = run_cli("score", str(quick_run), str(cfg), cwd=tmp_path, env=env, timeout=300)
        assert again.returncode == 0 and len(judge.requests) == asked  # resumable: nothing judged twice
    assert "overall accuracy" in first.stdout and "re-judged by llm-judge-x" in first.stdout  # a table, not only paths
    out = quick_run / "scores" / "llm-judge-x"
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "> **Re-judged answers** of run `e2e` by `llm` (judge-x), thresholds the defaults" in report
    assert "- memory searched: backend `embedded`, embedder `minilm`, alpha `0.6` (the service's), top_k `10`" in report
    results = read_lines(out / "results.jsonl")
    assert asked == len(results) and all(r["label"] is True and r["grade"]["judge"] == "llm" for r in results)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["qa"]["overall"]["accuracy"] == 1.0
    assert (out / "report.html").exists()
    assert (quick_run / "results.jsonl").read_text(encoding="utf-8") == before


def test_report_is_a_pure_rebuild_of_what_run_wrote(quick_run: Path, tmp_path: Path) -> None:
    import shutil

    from benchmarker.reporting.outputs import rebuild_outputs

    copy = Path(shutil.copytree(quick_run, tmp_path / "copy"))
    written = json.loads((copy / "summary.json").read_text(encoding="utf-8"))
    rebuild_outputs(copy, suites=SUITE_LOOKUP)
    # before the fix `report` added the server's transport, url and preset to run.memory
    assert json.loads((copy / "summary.json").read_text(encoding="utf-8")) == written
    assert (copy / "report.md").read_text(encoding="utf-8") == (quick_run / "report.md").read_text(encoding="utf-8")
