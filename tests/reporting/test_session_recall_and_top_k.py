"""Issue 44: one sweep showed recall@10 0.5 at top_k 10 and 1.0 at top_k 50 for the same alpha. The ranking is the
same; session-level @k counts k distinct sessions (LongMemEval's rule), which 10 hits may not reach. Pinned here with
the docs that explain it, so a change to either is seen."""

from __future__ import annotations

from pathlib import Path

from benchmarker.scoring.retrieval_metrics import question_retrieval

DOCS = Path(__file__).parents[2] / "docs"
# 50 hits in one fixed order, five turns of each session: the top 10 hits hold sessions s0 and s1 only
HITS = [{"rank": i + 1, "session_id": f"s{i // 5}", "turn_index": i % 5} for i in range(50)]
RECORD = {"question_id": "q", "answer_session_ids": ["s0", "s3"], "evidence_turns": [["s0", 0], ["s1", 2]]}


def at_top_k(top_k: int) -> dict:
    got = question_retrieval(RECORD | {"retrieved": HITS[:top_k], "top_k": top_k}, ks=(10,))
    assert got is not None
    return {level: values["recall_all@10"] for level, values in got.items()}


def test_session_recall_at_10_grows_with_top_k_on_the_same_ranking_and_turn_recall_does_not():
    assert at_top_k(10) == {"session": 0.0, "turn": 1.0}   # s3 is the 16th hit: not among 10 hits' sessions
    assert at_top_k(50) == {"session": 1.0, "turn": 1.0}   # ...but among the first ten distinct sessions of 50
    assert "Session @k depends on `top_k`" in (DOCS / "reports.md").read_text(encoding="utf-8")
