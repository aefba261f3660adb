"""The files a finished results directory gets: summary.json, report.{md,html}, plots, and
LongMemEval's own evaluation outputs, computed from the run directory's files alone.

The run graph's `summarise` node, `report RUN_DIR` and `score RUN_DIR CONFIG` all call this, so a
report can be rebuilt (or a finished run re-summarised after a metrics fix) without re-running
anything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarker.errors import UserError
from benchmarker.log.jsonl import latest_by, read_jsonl, write_json_atomic


def write_outputs(answers_dir: Path, run_dir: Path, run_meta: dict[str, Any]) -> tuple[dict[str, Any], Path]:
    """summary.json + report.{md,html} + plots for one results directory."""
    from benchmarker.eval.report import write_report
    from benchmarker.eval.sections import extra_sections, suite_summaries
    from benchmarker.eval.summary import build_summary

    results = latest_by(read_jsonl(answers_dir / "results.jsonl"), "question_id")
    decisions = list(read_jsonl(run_dir / "decisions.jsonl"))
    summary = build_summary(results, run_meta=run_meta | {"decisions": decisions})
    level_scores = latest_by(read_jsonl(answers_dir / "levels.jsonl"), "case_id")
    summary.update(suite_summaries(results, run_dir=run_dir, level_scores=level_scores,
                                   thresholds=run_meta.get("thresholds")))
    write_json_atomic(answers_dir / "summary.json", summary)
    if any(r.get("kind") == "longmemeval" and r.get("label") is not None for r in results):
        from benchmarker.eval.official import write_official_outputs

        write_official_outputs(answers_dir, [r for r in results if r.get("kind") == "longmemeval"])
    write_report(answers_dir, summary, results, extra_sections=extra_sections(summary))
    return summary, answers_dir / "report.html"


def rebuild_outputs(run_dir: Path) -> Path:
    """The `report` verb: recompute every summary and report from the files on disk."""
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.exists():
        raise UserError(f"{run_dir}: no manifest.json; is this a run directory?")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    meta = {"run_id": manifest.get("run_id"), "offline": manifest.get("models", {}).get("offline", False),
            # the manifest's "config" block holds the config as run under its own "config" key
            "mode": manifest.get("config", {}).get("config", {}).get("run", {}).get("mode", "agent"),
            "judge": manifest.get("judge", {}).get("kind"), "tokens": manifest.get("tokens", {}),
            "dataset_kind": manifest.get("dataset", {}).get("kind"),
            "thresholds": (manifest.get("thresholds") or {}).get("eval")}
    if manifest.get("replay"):
        agent = (manifest.get("tokens") or {}).get("roles", {}).get("agent") or {}
        meta["replay"] = manifest["replay"] | {"agent_calls": agent.get("calls", 0)}
    points = sorted(p for p in (run_dir / "points").glob("*") if p.is_dir()) if (run_dir / "points").exists() else []
    if not points:
        return write_outputs(run_dir, run_dir, meta)[1]
    results = []
    for point in points:
        summary, _ = write_outputs(point, run_dir, meta | {"point": point.name})
        results.append((point.name, point, summary))
    write_sweep_files(run_dir, results)
    return run_dir / "report.html"


def write_sweep_files(run_dir: Path, points: list[tuple[str, Path, dict[str, Any]]]) -> dict[str, Any]:
    """The comparison table over sweep points and the alpha x top_k heatmap report."""
    from benchmarker.eval.report import write_report
    from benchmarker.eval.sweep import sweep_table

    table = sweep_table(points)
    write_json_atomic(run_dir / "sweep.json", table)
    (run_dir / "sweep.md").write_text(table["markdown"], encoding="utf-8")
    best = table.get("best") or {}
    best_summary = next((s for label, _, s in points if label == best.get("label")), points[0][2] if points else {})
    results = latest_by(read_jsonl(Path(best.get("dir", run_dir)) / "results.jsonl"), "question_id") if best else []
    write_report(run_dir, best_summary, results, sweep=table["heatmap"],
                 extra_sections=[("Sweep", table["markdown"])])
    return {"sweep": table, "best": best}
