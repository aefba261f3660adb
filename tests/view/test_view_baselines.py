"""The run page's "Is memory needed here?": the chart's geometry and the page, from a summary's baselines block."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.cli import main
from benchmarker.scoring.headroom import is_memory_needed
from benchmarker.view.baselines_chart import PLOT_H, TOP, baselines_chart
from tests.view.view_fixture import write_run

EVIL_TYPE = "<script>alert(1)</script>"


def _lines(bits: str, qtype: str = "multi-session") -> list[dict]:
    return [{"question_id": f"q{i}", "question_type": EVIL_TYPE if i == 0 else qtype, "label": b == "1"}
            for i, b in enumerate(bits)]


def _block() -> dict:
    return is_memory_needed({"no_memory": _lines("0000"), "memory": _lines("1100"), "full_context": _lines("1110"),
                             "oracle": _lines("1111")})


def test_one_bar_per_condition_and_type_with_its_interval():
    chart = baselines_chart(_block())
    assert chart is not None and [label for label, _ in chart.groups] == [EVIL_TYPE, "multi-session", "all"]
    assert len(chart.bars) == 4 * 3 and [w for w, _ in chart.legend] == ["no memory", "memory", "full context",
                                                                          "oracle"]
    overall = {b.condition: b for b in chart.bars[-4:]}
    assert overall["memory"].height == PLOT_H * 0.5 and overall["memory"].y == TOP + PLOT_H * 0.5
    assert overall["memory"].ci_top < overall["memory"].y < overall["memory"].ci_bottom  # the whisker spans the bar top
    assert baselines_chart(None) is None and baselines_chart({"accuracy": "x"}) is None


def test_the_run_page_shows_the_section_escaped(tmp_path: Path):
    run = tmp_path / "runs" / "run-a"
    write_run(run, "a", "2024-01-01T10:00:00+00:00")
    summary = json.loads((run / "summary.json").read_text())
    (run / "summary.json").write_text(json.dumps(summary | {"baselines": _block()}))
    assert main(["view", str(tmp_path / "runs"), "--bundle", str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "runs" / "run-a" / "index.html").read_text(encoding="utf-8")
    section = page.split('<section class="is-memory-needed">')[1].split("</section>")[0]
    assert EVIL_TYPE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert section.count("<rect") == 12 + 4 and "Headroom captured" in section and "50.0%" in section
    assert "right only with memory 0, right only with the full context 1" in section
