"""`estimate`: token counts worked out by hand on a one-question, two-message dataset."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarker.config import load_config
from benchmarker.run.estimate import cost, estimate_run

DATA = [{
    "question_id": "q1", "question_type": "single-session-user", "question": "Where?", "answer": "Osaka",
    "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s1"],
    "haystack_dates": ["2023/05/20 (Sat) 10:00"],
    "haystack_sessions": [[{"role": "user", "content": "x" * 40}, {"role": "assistant", "content": "y" * 40}]],
    "answer_session_ids": ["s1"],
}]


def config(tmp_path: Path):
    data = tmp_path / "d.json"
    data.write_text(json.dumps(DATA), encoding="utf-8")
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'dataset_file = "{data}"\n[provider]\ntype = "openai"\n[models]\nagent = "m"\nqa = "m"\n'
                   'eval = "j"\n[prices]\n"m" = { input = 1.0, output = 2.0 }\n', encoding="utf-8")
    return load_config(cfg), cfg


def test_estimate_counts_the_rolling_transcript(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path)
    est = estimate_run(cfg, tmp_path)
    # Turn 1: 40 chars = 10 tokens + 20 header -> 30; 2 calls + 2 bootstrap = 4 calls of
    # 2400 + 1500 + 30 = 3930 tokens, plus 4*3/2*150 = 900 for earlier calls re-sent -> 16,620.
    # Turn 2 (last of the session): 60 so far; 2 + 3 context calls = 5 calls of 3960 + 10*150 -> 21,300.
    assert est.tokens["agent"] == {"input": 16_620 + 21_300, "output": 9 * 120}
    assert est.agent_calls == 9 and est.messages == 2 and est.sessions == 1
    # QA: 350 + min(10 entries * 120, 16000 / 4) = 1550 in, 60 out; the judge 350 / 5.
    assert est.tokens["qa"] == {"input": 1550, "output": 60}
    assert est.tokens["eval"] == {"input": 350, "output": 5}
    usd = cost(est, cfg)
    assert abs(usd["agent"] - (37_920 * 1.0 + 1080 * 2.0) / 1e6) < 1e-12
    assert usd["eval"] is None  # no price for "j": said, not guessed


def test_estimate_verb_prints_the_table(tmp_path: Path) -> None:
    _, path = config(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "benchmarker.cli", "estimate", str(path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "| agent | m | 37,920 | 1,080 | 0.04 |" in proc.stdout
    assert "no price in [prices]" in proc.stdout
    assert not (tmp_path / "runs").exists()  # estimating starts nothing
