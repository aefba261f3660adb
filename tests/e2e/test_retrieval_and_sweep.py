"""Retrieval-only mode on the five real questions, a 2 x 2 sweep on generated data, and `compare`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import read_lines as lines
from tests.e2e.cli import run_cli as cli
from tests.shared_data import REAL_5Q

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not REAL_5Q.exists(), reason="../shared/data/longmemeval/longmemeval_s_5q.json is absent")
def test_retrieval_only_on_the_five_real_questions(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(f"""
dataset_file = "{REAL_5Q}"
run_id = "real5"
[memory]
embedder = "static"
alpha = 0.5
[run]
mode = "retrieval"
output_dir = "{tmp_path / 'runs'}"
progress = false
""", encoding="utf-8")
    proc = cli("run", str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = tmp_path / "runs" / "real5"
    results = lines(run_dir / "results.jsonl")
    assert len(results) == 5
    assert all(r["label"] is None and r["grade"]["judge"] == "none" for r in results)  # nothing to judge
    summary = json.loads((run_dir / "summary.json").read_text())
    metrics = summary["retrieval"]["metrics"]
    assert summary["retrieval"]["excluded_abstention"] == 1  # the _abs question is skipped, as officially
    # Every evidence session of these questions is findable by keyword+vector search at k=10.
    assert metrics["session.recall_any@5"] >= 0.75
    assert metrics["session.recall_all@10"] >= 0.75
    assert metrics["session.recall_any@30"] is None  # k above top_k is not available, not zero
    hits = results[0]["retrieved"]
    assert hits and all(h["session_id"] and h["turn_index"] is not None for h in hits)


def test_two_by_two_sweep_reuses_one_ingestion_and_compare_reads_points(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(f"""
run_id = "sweep"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 4
[memory]
embedder = "static"
[run]
output_dir = "{tmp_path / 'runs'}"
progress = false
[sweep]
alpha = [0.0, 1.0]
top_k = [1, 10]
""", encoding="utf-8")
    proc = cli("run", str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = tmp_path / "runs" / "sweep"
    memories = lines(run_dir / "memories.jsonl")
    questions = len(json.loads((run_dir / "data" / "sample_longmemeval.json").read_text()))
    assert sum(1 for m in memories if m["status"] == "ingested") == questions  # ingested once, not 4 times
    points = sorted(p.name for p in (run_dir / "points").iterdir())
    assert points == ["alpha=0.0_topk=1", "alpha=0.0_topk=10", "alpha=1.0_topk=1", "alpha=1.0_topk=10"]
    for point in points:
        assert len(lines(run_dir / "points" / point / "results.jsonl")) == questions
        assert (run_dir / "points" / point / "summary.json").exists()
    sweep = json.loads((run_dir / "sweep.json").read_text())
    assert len(sweep["points"]) == 4 and sweep["best"]
    assert (run_dir / "plots" / "sweep_heatmap.png").exists()
    assert "data:image/png;base64," in (run_dir / "report.html").read_text()
    # More entries retrieved must not lower session recall.
    s1 = json.loads((run_dir / "points" / "alpha=0.0_topk=1" / "summary.json").read_text())
    s10 = json.loads((run_dir / "points" / "alpha=0.0_topk=10" / "summary.json").read_text())
    assert s10["retrieval"]["metrics"]["session.recall_any@1"] >= s1["retrieval"]["metrics"]["session.recall_any@1"]

    compare = cli("compare", str(run_dir / "points" / "alpha=0.0_topk=1"), str(run_dir / "points" / "alpha=0.0_topk=10"),
                  cwd=tmp_path)
    assert compare.returncode == 0, compare.stderr[-2000:]
    assert "McNemar" in compare.stdout

    rebuilt = cli("report", str(run_dir), cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr[-2000:]


def test_qa_waits_for_a_lagging_index(tmp_path: Path) -> None:
    """With indexing delayed, QA still sees every entry: it polls until the last write is searchable."""
    cfg = tmp_path / "run.toml"
    cfg.write_text(f"""
run_id = "lag"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[memory]
embedder = "none"
alpha = 0.0
index_lag_ms = 1500
[run]
mode = "retrieval"
question_types = ["single-session-user", "knowledge-update"]
output_dir = "{tmp_path / 'runs'}"
progress = false
""", encoding="utf-8")
    proc = cli("run", str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = lines(tmp_path / "runs" / "lag" / "results.jsonl")
    assert results and all(r["index_searchable"] for r in results)
    waits = [d for d in lines(tmp_path / "runs" / "lag" / "decisions.jsonl") if d["tool"] == "_wait_searchable"]
    assert waits and max(w["latency_ms"] for w in waits) >= 1000  # it really had to poll the lagging index
    assert all(r["retrieved"] for r in results if not r["is_abstention"])
