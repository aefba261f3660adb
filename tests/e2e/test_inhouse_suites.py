"""The in-house suites end to end on the embedded defaults with the offline models, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import read_lines as lines
from tests.e2e.cli import run_cli

pytestmark = pytest.mark.slow


def run(tmp_path: Path, body: str, run_id: str) -> Path:
    cfg = tmp_path / f"{run_id}.toml"
    cfg.write_text(f'run_id = "{run_id}"\n{body}\n[memory]\nembedder = "static"\n'
                   f'[run]\noutput_dir = "{tmp_path / "runs"}"\nprogress = false\nconcurrency = 2\n', encoding="utf-8")
    proc = run_cli("run", str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return tmp_path / "runs" / run_id


def test_every_level_runs_as_its_own_graph_node_and_is_scored(tmp_path: Path) -> None:
    run_dir = run(tmp_path, '[dataset]\nkind = "levels"\nseed = 3', "levels")
    summary = json.loads((run_dir / "summary.json").read_text())
    by_level = summary["levels"]["by_level"]
    assert set(by_level) == {f"L{i}" for i in range(1, 17)}
    assert all(v["level_score"] is not None and v["n"] >= 5 for v in by_level.values())
    level_lines = {l["level"]: l for l in lines(run_dir / "levels.jsonl")}
    # L13 is scored from the agent's actual tool calls captured in decisions.jsonl.
    l13 = level_lines["L13"]
    assert l13["scoring"] == "tool_trace" and l13["detail"]
    assert all("score" in scenario for scenario in l13["detail"].values())
    assert level_lines["L15"]["scoring"] == "adversarial"
    report = (run_dir / "report.md").read_text()
    assert "Levels L1-L16" in report
    assert by_level["L7"]["title"] == "Teaching" and "| L7 | Teaching |" in report  # names, not only ids
    # No LLM judge configured: LLM dimensions are reported as not graded, never as zero.
    llm_dims = {"temporal_awareness", "source_attribution", "confidence_calibration"}
    for result in lines(run_dir / "results.jsonl"):
        rubric = result["rubric"]
        assert not llm_dims & set(rubric["graded_dimensions"])
        assert llm_dims & set(rubric["ungraded_dimensions"])
        assert all(rubric["scores"].get(d) is None for d in llm_dims)
        assert not llm_dims & set(rubric["overall_covers"])


def test_long_horizon_multi_seed_statistics(tmp_path: Path) -> None:
    run_dir = run(tmp_path, '[dataset]\nkind = "long_horizon"\nturns = 120\nquestions = 12\nseeds = [1, 2]', "lh")
    results = lines(run_dir / "results.jsonl")
    assert {r["seed"] for r in results} == {1, 2}
    assert len({r["question_id"] for r in results}) == len(results)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["multi_seed"]["by_category"]
    assert "long_horizon" in summary and "Multi-seed statistics" in (run_dir / "report.md").read_text()
    # Its evidence is not scored as retrieval, but it names the turns: every miss is attributed from them.
    judged = [r for r in results if r["label"] is not None]
    assert judged and all(r["attribution"] and (r["evidence"] or r["is_abstention"]) for r in judged)
    assert not any(r["attribution"] == "no_evidence" for r in judged), [r["attribution"] for r in judged]
    assert summary["attribution"]["n"] == len(judged)


def test_fact_extraction_runs_and_reports_targets(tmp_path: Path) -> None:
    run_dir = run(tmp_path, '[dataset]\nkind = "fact_extraction"', "facts")
    results = lines(run_dir / "results.jsonl")
    assert len(results) >= 30
    assert all(r["fact_score"]["judged"] for r in results)
    summary = json.loads((run_dir / "summary.json").read_text())["fact_extraction"]
    metrics = {t["metric"] for t in summary["targets"]}
    assert {"precision", "recall", "f1", "conflict_resolution_rate", "minimalism_rate"} <= metrics
    assert all(isinstance(t["pass"], bool) for t in summary["targets"] if t["value"] is not None)
    assert "Fact extraction" in (run_dir / "report.md").read_text()
