"""The five shared LongMemEval_S questions through the offline memory agent: one entry per message, sessions
in date order, every miss attributed to one stage (the offline floor's counts pinned), and the same run's
no-memory, full-context and oracle baselines beside it. Its own file: at
80 s it is the suite's longest test, and `make test` hands out whole files (--dist loadfile)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.suites.longmemeval.data import parse_date
from tests.attribution_check import check_attribution
from tests.e2e.cli import read_lines as lines
from tests.e2e.cli import run_cli as cli
from tests.e2e.four_way import four_way
from tests.shared_data import REAL_5Q

ATTRIBUTION_5Q: dict[str, int] = {"correct": 1, "false_answer": 1, "not_retrieved": 1, "not_used": 2}  # offline floor

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not REAL_5Q.exists(), reason="../shared/data/longmemeval/longmemeval_s_5q.json is absent")
def test_five_real_questions_through_the_offline_memory_agent(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text(f"""
dataset_file = "{REAL_5Q}"
run_id = "real5-agent"
[memory]
embedder = "static"
[run]
concurrency = 2
output_dir = "{tmp_path / 'runs'}"
progress = false
[baselines]
full_context_tokens = 20000
""", encoding="utf-8")
    proc = cli("run", str(cfg), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = tmp_path / "runs" / "real5-agent"
    data = json.loads(REAL_5Q.read_text(encoding="utf-8"))
    results = {r["question_id"]: r for r in lines(run_dir / "results.jsonl")}
    assert set(results) == {q["question_id"] for q in data}
    assert all(r["label"] in (True, False) and r["hypothesis"] for r in results.values())
    decisions = lines(run_dir / "decisions.jsonl")
    adds = [d for d in decisions if d["tool"] == "add_entry" and d["caller"] == "agent" and not d.get("error")]
    assert len(adds) == sum(len(s) for q in data for s in q["haystack_sessions"])  # one entry per message
    puts = [d for d in decisions if d["tool"] == "put_context" and d["caller"] == "agent"]
    assert puts and all(len(d["args"]["content"]) <= 5000 for d in puts)
    # Sessions are ingested in date order: each question's session dates never go backwards.
    for q in data:
        dates = [d["args"]["tags"]["session_date"] for d in adds if d["question_id"] == q["question_id"]]
        parsed = [parse_date(x) for x in dates]
        assert parsed == sorted(parsed)
    # Every miss attributed to one stage, as the files define it; the offline floor's counts pinned.
    assert check_attribution(run_dir) == ATTRIBUTION_5Q, check_attribution(run_dir)
    # Is memory needed here? The same run with no memory, its whole history and its gold evidence (issue 41).
    four_way(run_dir, tmp_path)
    full = lines(run_dir / "baselines" / "full_context" / "answers.jsonl")
    # LongMemEval_S haystacks are ~115k tokens: cut to 20,000 by dropping the oldest sessions first
    assert len(full) == 5 and all(a["history_cut"]["sessions_dropped"] > 0 for a in full)
    assert all(a["context_tokens"] <= 20_000 < a["history_cut"]["tokens_before"] for a in full)
