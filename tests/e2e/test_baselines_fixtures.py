"""`baselines` and `oracle` after a real offline run on the shared LoCoMo fixture: the report's "Is memory needed
here?" shows the four accuracies and the headroom captured, recomputed from the result lines (tests/e2e/four_way.py).
The five shared LongMemEval_S questions get the same check in test_five_real_questions_agent.py, on its own run."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines
from tests.e2e.four_way import four_way

LOCOMO = Path(__file__).resolve().parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"

pytestmark = pytest.mark.slow


def test_locomo_fixture_four_ways(tmp_path):
    config = tmp_path / "locomo.toml"
    config.write_text(f'run_id = "locomo-mini"\n[dataset]\nkind = "locomo"\nfile = "{LOCOMO}"\n[run]\n'
                      'output_dir = "runs"\nprogress = false\nconcurrency = 2\n', encoding="utf-8")
    assert main(["run", str(config)]) == 0
    run_dir = tmp_path / "runs" / "locomo-mini"
    got = four_way(run_dir, tmp_path)
    # the offline floor: the reader with no context declines, which is right only on the 3 adversarial questions
    assert got["no_memory"] == pytest.approx(3 / 15)
    full = read_lines(run_dir / "baselines" / "full_context" / "answers.jsonl")
    assert len(full) == 15 and all(a["history_cut"]["sessions_dropped"] == 0 for a in full)
    assert {a["case_id"]: a["context_tokens"] for a in full}.keys() == {"conv-26", "conv-30"}
    assert (run_dir / "baselines" / "no_memory" / "hypotheses.jsonl").exists()
