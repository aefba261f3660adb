"""`report` on a run whose results line names an evidence `turn_index` that is not a whole number (issue 42,
item 8): the report is written with a note naming the line, never a traceback. A run built by hand, no services."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarker.cli import main
from tests.scoring.synthetic_run import small_run, write_run


@pytest.mark.parametrize("bad", ["x", None])
def test_report_skips_a_non_numeric_evidence_turn_index_with_a_note(tmp_path: Path, capsys, bad: Any) -> None:
    rows = small_run()
    damaged = rows[3]  # q1b: judged wrong, so its evidence is read for attribution
    assert damaged["label"] is False
    damaged["evidence_turns"] = [[damaged["evidence_turns"][0][0], bad]]
    damaged["evidence"] = [{"session_id": damaged["evidence_turns"][0][0], "turn_index": bad, "role": "user",
                            "content": "I adopted a beagle named Biscuit."}]
    damaged["retrieved"][0]["turn_index"] = bad
    run_dir = write_run(tmp_path / "run", rows, run_id="run")
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest.update({"started_at": "2024-01-01T10:00:00+00:00", "models": {"offline": True},
                     "dataset": {"kind": "longmemeval"}, "judge": {"kind": "llm"}})
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    assert main(["report", str(run_dir)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["attribution"]["n"] == 13  # every judged line attributed, the damaged one included
    note = f"(first: q1b with {json.dumps(bad)}): those evidence turns were skipped"
    assert any(note in n for n in summary["attribution"]["notes"]), summary["attribution"]["notes"]
    assert note in (run_dir / "report.md").read_text(encoding="utf-8")
