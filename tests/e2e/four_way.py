"""The four-way check the baselines tests share: after `baselines` and `oracle` on a finished run, the report's
"Is memory needed here?" shows the four accuracies and the headroom captured, each recomputed here from the result
lines alone, with code independent of scoring/headroom.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines


def labels(path: Path) -> dict[str, bool | None]:
    """question id -> the last label written for it (the dataset's own questions)."""
    out: dict[str, bool | None] = {}
    for line in read_lines(path):
        if not line.get("round"):
            out[line["question_id"]] = line.get("label")
    return out


def accuracy(found: dict[str, bool | None]) -> float:
    judged = [v for v in found.values() if v is not None]
    return sum(judged) / len(judged)


def headroom_from_lines(run_dir: Path) -> tuple[float, int]:
    memory, none, oracle = (labels(run_dir / p) for p in ("results.jsonl", "baselines/no_memory/results.jsonl",
                                                            "oracle/results.jsonl"))
    shared = [q for q in memory if None not in (memory[q], none.get(q), oracle.get(q))]
    mean = {name: sum(bool(d[q]) for q in shared) / len(shared) for name, d in
            (("memory", memory), ("none", none), ("oracle", oracle))}
    return (mean["memory"] - mean["none"]) / (mean["oracle"] - mean["none"]), len(shared)


def four_way(run_dir: Path, tmp_path: Path) -> dict[str, float]:
    assert main(["baselines", str(run_dir)]) == 0
    assert main(["oracle", str(run_dir)]) == 0  # rebuilds the run's report: the oracle joins the four-way view
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    section = report.split("## Is memory needed here?")[1].split("\n## ")[0]
    assert "| type | no memory | memory | full context | oracle |" in section
    assert "![is memory needed](plots/is_memory_needed.png)" in section
    assert (run_dir / "plots" / "is_memory_needed.png").stat().st_size > 1000
    block = json.loads((run_dir / "summary.json").read_text())["baselines"]
    assert block["conditions"] == ["no_memory", "memory", "full_context", "oracle"]
    got = {}
    for condition, path in (("no_memory", "baselines/no_memory/results.jsonl"), ("memory", "results.jsonl"),
                            ("full_context", "baselines/full_context/results.jsonl"),
                            ("oracle", "oracle/results.jsonl")):
        got[condition] = accuracy(labels(run_dir / path))
        assert block["accuracy"][condition]["overall"]["accuracy"] == pytest.approx(got[condition])
    overall = re.search(r"^\| \*\*overall\*\* \| (.+) \|$", section, re.M)
    assert overall is not None
    shown = [float(m) / 100 for m in re.findall(r"(\d+\.\d)% \[", overall.group(1))]
    assert shown == pytest.approx([got[c] for c in block["conditions"]], abs=0.0005)
    value, n = headroom_from_lines(run_dir)
    assert block["headroom"]["value"] == pytest.approx(value) and block["headroom"]["n"] == n
    assert f"**Headroom captured** (memory - no memory) / (oracle - no memory): **{100 * value:.1f}%**" in section
    low, high = block["headroom"]["ci95"]
    assert low <= value <= high
    mc = block["mcnemar_memory_vs_full_context"]
    memory, full = labels(run_dir / "results.jsonl"), labels(run_dir / "baselines/full_context/results.jsonl")
    assert mc["memory_only"] == sum(1 for q in memory if memory[q] and full.get(q) is False)
    assert f"right only with memory {mc['memory_only']}" in section
    bundle = tmp_path / "bundle"
    assert main(["view", str(run_dir.parent), "--bundle", str(bundle)]) == 0
    page = (bundle / "runs" / run_dir.name / "index.html").read_text(encoding="utf-8")
    assert "Is memory needed here?" in page and "Headroom captured" in page
    return got
