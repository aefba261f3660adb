"""Retrieval-only runs (no agent, reader or judge): compare, report, summary and rebuilt report say what ran."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.scoring.synthetic_run import result, write_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting import plots
from benchmarker.reporting.compare import compare_runs, format_compare
from benchmarker.reporting.outputs import rebuild_outputs
from benchmarker.reporting.report import write_report
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import parse_summary

RETRIEVAL_META = {"run_id": "index-a", "offline": True, "mode": "retrieval", "judge": "deterministic", "point": "",
                  "top_k": 10, "alpha": None, "memory": {"backend": "embedded", "embedder": "static", "alpha": 0.6}}


def hits(qid: str, evidence_rank: int | None, n: int = 10) -> list[dict[str, Any]]:
    """n ranked hits, each from its own session; the evidence turn (`<qid>-s1`, turn 1) at `evidence_rank`."""
    return [{"entry_id": f"{qid}-e{rank}", "score": 1 / rank, "rank": rank,
             "session_id": f"{qid}-s1" if rank == evidence_rank else f"{qid}-other{rank}",
             "session_date": "2023/05/20", "turn_index": 1, "role": "user", "summary": f"hit {rank}"}
            for rank in range(1, n + 1)]


def retrieval_result(qid: str, evidence_rank: int | None, top_k: int = 10) -> dict[str, Any]:
    """A results line as a retrieval-only run writes it: nothing answered, nothing judged."""
    record = result(qid, "multi-session", None, hits=hits(qid, evidence_rank, top_k), top_k=top_k)
    record.update(mode="retrieval", hypothesis="", label=None, autoeval_label=None,
                  grade={"judge": "none", "reason": "retrieval-only run: no answer to judge", "unjudged": False})
    return record


def run_of(ranks: dict[str, int | None], top_k: int = 10) -> list[dict[str, Any]]:
    return [retrieval_result(qid, rank, top_k) for qid, rank in ranks.items()]


def test_compare_two_retrieval_only_runs_paired_per_question(tmp_path):
    # base finds q0..q3 at rank 2 and misses q4, q5; the new index finds q0..q4 at rank 1.
    base = write_run(tmp_path / "base", run_of({"q0": 2, "q1": 2, "q2": 2, "q3": 2, "q4": None, "q5": None}),
                     run_id="alpha-0.6")
    new = write_run(tmp_path / "new", run_of({"q0": 1, "q1": 1, "q2": 1, "q3": 1, "q4": 1, "q5": None}),
                    run_id="alpha-0.3")
    cmp = compare_runs([base, new], suites=SUITE_LOOKUP)
    r = cmp["pairs"][0]["retrieval"]
    assert r["available"] and r["questions"] == {"session": 6, "turn": 6}
    at1 = r["metrics"]["session.recall_any@1"]
    assert (at1["n"], at1["baseline"], at1["run"], at1["better"], at1["worse"]) == (6, 0.0, 5 / 6, 5, 0)
    assert at1["mcnemar_p"] == pytest.approx(2 * 0.5 ** 5)  # exact McNemar, b = 0, c = 5
    assert at1["bootstrap"]["diff"] == pytest.approx(5 / 6) and at1["bootstrap"]["lo"] > 0
    at10 = r["metrics"]["turn.recall_any@10"]
    assert (at10["baseline"], at10["run"], at10["gained"], at10["lost"]) == (4 / 6, 5 / 6, ["q4"], [])
    # LongMemEval's DCG weighs ranks 1 and 2 alike: moving the evidence from rank 2 to 1 changes no ndcg@3.
    assert r["metrics"]["session.ndcg_any@3"]["better"] == 1  # only q4, found at last
    assert "session.recall_any@30" not in r["metrics"]  # above top_k: never measured, not compared
    text = format_compare(cmp, suites=SUITE_LOOKUP)
    assert "| session recall_any@1 | 6 | 0.000 | 0.833 | +0.833 [" in text
    assert "| 5 / 0 | 1 |" in text  # raw p 0.0625, Holm-adjusted over the table's 16 McNemar p-values
    assert "Holm-adjusted over the 16 p-values in this table" in text
    assert "turn recall_any@10, evidence gained: `q4`" in text
    assert "| mode | `retrieval` | `retrieval` |" in text and "| top_k | `10` | `10` |" in text
    assert "accuracy is not compared" in text and "| overall |" not in text and "questions judged in both" not in text


def test_compare_runs_of_different_top_k_compares_only_the_shared_k(tmp_path):
    base = write_run(tmp_path / "k10", run_of({"q0": 4, "q1": 2}))
    small = write_run(tmp_path / "k3", run_of({"q0": None, "q1": 2}, top_k=3))
    r = compare_runs([base, small], suites=SUITE_LOOKUP)["pairs"][0]["retrieval"]["metrics"]
    assert {k.rsplit("@", 1)[1] for k in r} == {"1", "3"}
    assert r["session.recall_any@3"]["lost"] == []  # q0 at rank 4 was not in either top 3
    assert r["session.recall_any@1"]["n"] == 2


def test_retrieval_only_report_says_what_ran(tmp_path):
    results = run_of({"q0": 1, "q1": 1, "q2": 3, "q3": None, "q4": 1}) + [retrieval_result("q9_abs", None)]
    decisions = [{"tool": "add_entry", "latency_ms": 4.0, "caller": "retrieval"},
                 {"tool": "add_entry", "latency_ms": 6.0, "caller": "retrieval"},
                 {"tool": "_ingest_done", "latency_ms": 5400.0, "caller": "harness"}]
    summary = build_summary(results, run_meta=RETRIEVAL_META | {"decisions": decisions}, suites=SUITE_LOOKUP).as_dict()
    assert summary["counts"]["unjudged"] == 0 and summary["counts"]["not_graded"] == 6
    assert summary["offline"] is False and not any("unjudged" in n for n in summary["notes"])
    md = write_report(tmp_path, parse_summary(summary), results, suites=SUITE_LOOKUP)["markdown"].read_text()
    assert "Retrieval-only run" in md
    assert "embedder `static`, alpha `0.6` (the service's), top_k `10`" in md
    for misleading in ("Deterministic agent", "extractive reader", "unjudged", "## QA accuracy", "Cost and speed"):
        assert misleading not in md
    worst = md.split("## Worst questions by retrieval", 1)[1].split("## Speed", 1)[0]
    assert [line.split("`")[1] for line in worst.splitlines() if line.startswith("### ")] == ["q3", "q2"]
    assert "1 of 5 scored questions had no evidence session among their top_k hits" in worst
    assert "| 30 |" not in md  # k above top_k: said in the notes, no row of n/a
    assert not (tmp_path / "plots" / "accuracy_by_type.png").exists()


def test_ingest_done_is_not_a_tool_call(tmp_path):
    decisions = [{"tool": "add_entry", "latency_ms": 4.0}, {"tool": "search_memories", "latency_ms": 8.0},
                 {"tool": "_ingest_done", "latency_ms": 5400.0}, {"tool": "_wait_searchable", "latency_ms": 900.0}]
    summary = build_summary([{"question_id": "a", "question_type": "x", "label": True}],
                            run_meta={"decisions": decisions}, suites=SUITE_LOOKUP).as_dict()
    latency = summary["speed"]["tool_latency_ms"]
    assert (latency["n"], latency["max"]) == (2, 8.0)
    assert set(summary["speed"]["tool_latency_by_tool_ms"]) == {"add_entry", "search_memories"}
    md = write_report(tmp_path, parse_summary(summary), [], suites=SUITE_LOOKUP)["markdown"].read_text()
    assert "Memory tool latency over 2 calls" in md and "_ingest_done" not in md


def test_recall_plot_runs_only_over_the_measured_k(tmp_path, monkeypatch):
    summary = build_summary(run_of({"q0": 1, "q1": 3}), run_meta=RETRIEVAL_META, suites=SUITE_LOOKUP).as_dict()
    closed = []
    monkeypatch.setattr(plots.plt, "close", closed.append)  # keep the figure to look at its axis
    assert plots.plot_recall_curves(parse_summary(summary).retrieval, tmp_path / "recall.png").stat().st_size > 1000
    ax = closed[0].axes[0]
    assert [int(t) for t in ax.get_xticks()] == [1, 3, 5, 10]
    assert ax.get_xlim()[1] < 30
    md = write_report(tmp_path, parse_summary(summary), run_of({"q0": 1, "q1": 3}), suites=SUITE_LOOKUP)["markdown"].read_text()
    assert "Plotted at the k values this run measured (k = 1, 3, 5, 10)." in md


def _manifest(run_dir: Path, *, top_k: int = 10, search_alpha: float = -1.0) -> None:
    config = {"run": {"mode": "retrieval"}, "params": {"top_k": top_k}, "memory": {"search_alpha": search_alpha}}
    run_dir.joinpath("manifest.json").write_text(json.dumps({
        "run_id": run_dir.name, "models": {"offline": True}, "config": {"config": config},
        "memory": {"backend": "embedded", "embedder": "static", "alpha": 0.6, "mcp_url": "http://127.0.0.1:1/mcp"},
        "judge": {"kind": "deterministic"}, "dataset": {"kind": "sample"}}), encoding="utf-8")


def test_report_rebuild_keeps_the_search_settings_the_run_wrote(tmp_path):
    run_dir = write_run(tmp_path / "plain", run_of({"q0": 1, "q1": None}, top_k=7))
    _manifest(run_dir, top_k=7, search_alpha=0.3)
    written = {"run": {"mode": "retrieval", "point": "", "top_k": 7, "alpha": 0.3}}
    (run_dir / "summary.json").write_text(json.dumps(written), encoding="utf-8")
    rebuild_outputs(run_dir, suites=SUITE_LOOKUP)
    run = json.loads((run_dir / "summary.json").read_text())["run"]
    assert (run["point"], run["top_k"], run["alpha"]) == ("", 7, 0.3)
    assert run["memory"] == {"backend": "embedded", "embedder": "static", "alpha": 0.6}
    assert "alpha `0.3` (sent with each search), top_k `7`" in (run_dir / "report.md").read_text()


def test_report_rebuild_of_a_sweep_point_without_a_summary_reads_its_label(tmp_path):
    run_dir = tmp_path / "sweep"
    run_dir.mkdir()
    _manifest(run_dir)
    point = write_run(run_dir / "points" / "alpha=0.5_topk=5", run_of({"q0": 2}, top_k=5))
    service = write_run(run_dir / "points" / "alpha=service_topk=5", run_of({"q0": 1}, top_k=5))
    rebuild_outputs(run_dir, suites=SUITE_LOOKUP)
    run = json.loads((point / "summary.json").read_text())["run"]
    assert (run["point"], run["top_k"], run["alpha"]) == ("alpha=0.5_topk=5", 5, 0.5)
    assert json.loads((service / "summary.json").read_text())["run"]["alpha"] is None  # the service's own
