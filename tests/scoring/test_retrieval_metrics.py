"""Retrieval metrics (LongMemEval definitions) on hand-built rankings and on real questions."""

from __future__ import annotations

import json
import math

import pytest

from benchmarker.scoring.retrieval_metrics import dcg, question_retrieval, retrieval_metrics, score_ranking, session_ranking
from tests.shared_data import REAL_5Q

FIVE_Q = REAL_5Q


def hit(rank, session, turn):
    return {"entry_id": f"e{rank}", "rank": rank, "score": 1.0 / rank, "session_id": session, "turn_index": turn}


RECORD_A = {  # single-session-user, evidence in two sessions
    "question_id": "a", "question_type": "single-session-user", "top_k": 5,
    "answer_session_ids": ["s1", "s2"], "evidence_turns": [["s1", 2], ["s2", 0]],
    "retrieved": [hit(1, "s3", 0), hit(2, "s1", 2), hit(3, "s1", 5), hit(4, "s2", 1), hit(5, "s4", 0)],
}
RECORD_B = {  # multi-session, one evidence turn retrieved first, then a duplicate of it
    "question_id": "b", "question_type": "multi-session", "top_k": 5,
    "answer_session_ids": ["s9"], "evidence_turns": [["s9", 1]],
    "retrieved": [hit(1, "s9", 1), hit(2, "s9", 1), hit(3, "s8", 0)],
}
RECORD_ABS = {**RECORD_B, "question_id": "c_abs"}
RECORD_NO_HITS = {"question_id": "d", "question_type": "multi-session", "answer_session_ids": ["s1"]}


def test_dcg_matches_longmemeval():
    # LongMemEval: rel[0] + sum(rel[1:] / log2(arange(2, n + 1)))  -> ranks 1 and 2 both weigh 1
    assert dcg([1, 1, 1], 3) == pytest.approx(1 + 1 + 1 / math.log2(3))
    assert dcg([0, 1], 2) == 1.0
    assert dcg([], 5) == 0.0


def test_session_ranking_dedupes_in_first_occurrence_order():
    assert session_ranking(RECORD_A["retrieved"]) == ["s3", "s1", "s2", "s4"]
    shuffled = list(reversed(RECORD_A["retrieved"]))  # order by rank, not list position
    assert session_ranking(shuffled) == ["s3", "s1", "s2", "s4"]


def test_score_ranking_by_hand():
    # sessions [s3, s1, s2, s4], evidence {s1, s2}: @3 DCG = 0 + 1 + 1/log2(3) = 1.6309, ideal 2
    got = score_ranking(["s3", "s1", "s2", "s4"], {"s1", "s2"}, 3)
    assert got == {"recall_any": 1.0, "recall_all": 1.0, "ndcg_any": pytest.approx(1.63093 / 2, abs=1e-4)}
    assert score_ranking(["s3", "s1"], {"s1", "s2"}, 1) == {"recall_any": 0.0, "recall_all": 0.0, "ndcg_any": 0.0}


def test_question_retrieval_by_hand():
    q = question_retrieval(RECORD_A)
    assert q["session"]["recall_any@1"] == 0.0
    assert q["session"]["ndcg_any@3"] == pytest.approx(0.81546, abs=1e-4)
    assert q["session"]["recall_all@5"] == 1.0
    assert q["session"]["recall_any@10"] is None  # k > top_k
    # turns [(s3,0), (s1,2), (s1,5), (s2,1), (s4,0)], evidence {(s1,2), (s2,0)}: @3 any 1, all 0, DCG 1 / 2
    assert q["turn"]["recall_any@3"] == 1.0 and q["turn"]["recall_all@5"] == 0.0
    assert q["turn"]["ndcg_any@3"] == pytest.approx(0.5)
    assert question_retrieval(RECORD_ABS) is None and question_retrieval(RECORD_NO_HITS) is None


def test_retrieval_metrics_aggregate_by_hand():
    r = retrieval_metrics([RECORD_A, RECORD_B, RECORD_ABS, RECORD_NO_HITS])
    m = r["metrics"]
    assert r["available"] and r["excluded_abstention"] == 1
    assert m["session.recall_any@1"] == pytest.approx(0.5)             # (0 + 1) / 2
    assert m["session.recall_all@3"] == pytest.approx(1.0)             # (1 + 1) / 2
    assert m["session.ndcg_any@3"] == pytest.approx((0.81546 + 1) / 2, abs=1e-4)
    assert m["turn.recall_all@5"] == pytest.approx(0.5)                # (0 + 1) / 2
    assert m["turn.ndcg_any@3"] == pytest.approx(0.75)                 # (0.5 + 1) / 2
    assert m["session.recall_any@10"] is None and m["turn.ndcg_any@50"] is None
    assert r["n"]["session@1"] == 2 and r["n"]["session@10"] == 0
    assert any("exceed top_k = 5" in note for note in r["notes"])
    assert r["by_type"]["single-session-user"]["metrics"]["session.recall_any@1"] == 0.0
    assert r["by_type"]["multi-session"]["metrics"]["session.recall_any@1"] == 1.0
    assert set(m) == {f"{lvl}.{met}@{k}" for lvl in ("session", "turn")
                      for met in ("recall_any", "recall_all", "ndcg_any") for k in (1, 3, 5, 10, 30, 50)}


def test_no_retrieval_data():
    r = retrieval_metrics([RECORD_NO_HITS])
    assert r["available"] is False and r["metrics"] == {} and r["notes"]


def _records_from_5q(order: str) -> list[dict]:
    data = json.loads(FIVE_Q.read_text(encoding="utf-8"))
    records = []
    for q in data:
        turns = [(sid, i) for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"])
                 for i, m in enumerate(session)]
        evidence = [[sid, i] for sid, session in zip(q["haystack_session_ids"], q["haystack_sessions"])
                    for i, m in enumerate(session) if m.get("has_answer")]
        ev = {tuple(e) for e in evidence}
        gold_sessions = set(q["answer_session_ids"])
        relevant = [t for t in turns if t in ev] + [t for t in turns if t[0] in gold_sessions and t not in ev]
        others = [t for t in turns if t[0] not in gold_sessions]
        ranked = relevant + others if order == "perfect" else others + relevant
        ranked = ranked[:50]
        records.append({"question_id": q["question_id"], "question_type": q["question_type"], "top_k": 50,
                        "answer_session_ids": q["answer_session_ids"], "evidence_turns": evidence,
                        "retrieved": [hit(i + 1, s, t) for i, (s, t) in enumerate(ranked)]})
    return records


@pytest.mark.skipif(not FIVE_Q.exists(), reason="LongMemEval 5-question sample not present")
def test_real_questions_perfect_and_worst_rankings():
    perfect = retrieval_metrics(_records_from_5q("perfect"))
    assert perfect["excluded_abstention"] == 1  # 0862e8bf_abs
    assert perfect["questions"]["session"] == 4
    m = perfect["metrics"]
    for k in (1, 3, 5, 10, 30, 50):
        assert m[f"session.recall_any@{k}"] == 1.0 and m[f"session.ndcg_any@{k}"] == pytest.approx(1.0)
        assert m[f"turn.recall_any@{k}"] == 1.0 and m[f"turn.ndcg_any@{k}"] == pytest.approx(1.0)
    # the most spread question has 3 evidence sessions: recall_all needs k >= 3
    assert m["session.recall_all@1"] < 1.0 and m["session.recall_all@3"] == 1.0
    worst = retrieval_metrics(_records_from_5q("worst"))["metrics"]
    assert worst["session.recall_any@10"] == 0.0 and worst["turn.recall_any@10"] == 0.0
