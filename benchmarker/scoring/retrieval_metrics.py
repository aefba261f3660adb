"""Retrieval quality of the QA-time search, with LongMemEval's definitions (src/retrieval/eval_utils.py).

For one question and cutoff k, over a ranked list of items and a set of evidence items:
  recall_any@k = 1 if any evidence item is in the top k, else 0;
  recall_all@k = 1 if every evidence item is in the top k, else 0;
  ndcg_any@k   = DCG(top k) / DCG(ideal), binary relevance, where LongMemEval's DCG is
                 rel_1 + sum_{i>=2} rel_i / log2(i)  (so ranks 1 and 2 both weigh 1) and the
                 ideal list has min(|evidence|, k) relevant items first.
Reported means over questions, for k in 1, 3, 5, 10, 30, 50, at two levels:
  - session ("session.recall_any@5" ...): evidence = answer_session_ids; the ranked list is the
    hits' session ids deduplicated in order of first occurrence (a session ranks where its best
    entry ranks), like LongMemEval's session-level scoring, which expands k until k distinct
    sessions are seen. Sessions are only those found in the `top_k` hits, so @k can be computed
    on fewer than k sessions. (LongMemEval's turn->session helper counts every turn of an
    evidence session as relevant in nDCG; we count each session once.)
  - turn ("turn.ndcg_any@10" ...): evidence = evidence_turns ([session_id, turn_index] of the
    has_answer turns); hits ranked as (session_id, turn_index), duplicates of one turn (a
    retried add_entry) counted once at their first rank.
A hit without a session id (an entry the harness could not map) still takes its rank, as a
non-relevant item. Excluded, as in the official scripts: abstention questions (`_abs`), and
questions with no evidence at that level; questions without a `retrieved` list are not
scored at all. A k larger than the question's `top_k` is not available: the value is null and
"notes" says why (the search never returned that many hits).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

from benchmarker.log.jsonl import Keyed
from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import K_VALUES, LEVELS, METRICS
from benchmarker.scoring.qa_metrics import is_abstention
from benchmarker.scoring.retrieval_shapes import RetrievalMetrics, TracedHits, TypeRetrieval

# re-exported: callers import them with the metrics
__all__ = ["K_VALUES", "LEVELS", "METRICS", "RetrievalMetrics", "TracedHits", "TypeRetrieval"]



def dcg(relevances: Sequence[float], k: int) -> float:
    """LongMemEval's DCG: first item undiscounted, item i (1-based, i >= 2) divided by log2(i)."""
    rel = list(relevances)[:k]
    return (rel[0] + sum(r / math.log2(i) for i, r in enumerate(rel[1:], start=2))) if rel else 0.0


def score_ranking(ranked: Sequence[Hashable], evidence: set[Hashable], k: int) -> dict[str, float]:
    """recall_any, recall_all and ndcg_any at k for one ranked list."""
    top = list(ranked[:k])
    found = evidence.intersection(top)
    ideal = dcg([1.0] * min(len(evidence), k), k)
    actual = dcg([1.0 if item in evidence else 0.0 for item in top], k)
    return {"recall_any": float(bool(found)), "recall_all": float(found == evidence),
            "ndcg_any": actual / ideal if ideal else 0.0}


def _ordered_hits(hits: Sequence[Keyed]) -> list[Keyed]:
    indexed = list(enumerate(hits))
    indexed.sort(key=lambda p: (rank if isinstance(rank := p[1].get("rank"), (int, float)) else p[0] + 1, p[0]))
    return [h for _, h in indexed]


def _turn_key(session_id: Any, turn_index: Any) -> tuple[str, int] | None:
    if session_id in (None, "") or turn_index in (None, ""):
        return None
    try:
        return str(session_id), int(turn_index)
    except (TypeError, ValueError, OverflowError):  # "x", "²", Infinity: a damaged line is no turn
        return None


def session_ranking(hits: Sequence[Keyed]) -> list[str]:
    """Session ids in order of first occurrence among the ranked hits."""
    out: list[str] = []
    for i, hit in enumerate(_ordered_hits(hits)):
        sid = hit.get("session_id")
        key = str(sid) if sid not in (None, "") else f"?unmapped-{i}"
        if key not in out:
            out.append(key)
    return out


def turn_ranking(hits: Sequence[Keyed]) -> list[tuple[str, int] | str]:
    """(session_id, turn_index) per hit in rank order, first occurrence only."""
    out: list[tuple[str, int] | str] = []
    for i, hit in enumerate(_ordered_hits(hits)):
        key = _turn_key(hit.get("session_id"), hit.get("turn_index")) or f"?unmapped-{i}"
        if key not in out:
            out.append(key)
    return out


def evidence_sets(record: ResultLine) -> dict[str, set[Hashable]]:  # session ids; (session, turn) pairs
    """The evidence of a record at each level."""
    turns = {_turn_key(*pair[:2]) for pair in record.get("evidence_turns") or [] if len(pair) >= 2}
    return {"session": {str(s) for s in record.get("answer_session_ids") or []},
            "turn": {t for t in turns if t is not None}}


def question_retrieval(record: ResultLine, ks: Sequence[int] = K_VALUES) -> dict[str, dict[str, float | None]] | None:
    """Per-question metrics {"session": {"recall_any@5": ...}, "turn": {...}}; None if not scored.

    A level is missing when the question has no evidence there; a value is None when k > top_k.
    """
    hits = record.get("retrieved")
    if hits is None or is_abstention(record):
        return None
    top_k = int(record.get("top_k") or len(hits))
    rankings: dict[str, Sequence[Hashable]] = {"session": session_ranking(hits), "turn": turn_ranking(hits)}
    out: dict[str, dict[str, float | None]] = {}
    for level, evidence in evidence_sets(record).items():
        if not evidence:
            continue
        values: dict[str, float | None] = {}
        for k in ks:
            scores = score_ranking(rankings[level], evidence, k) if k <= top_k else None
            for metric in METRICS:
                values[f"{metric}@{k}"] = None if scores is None else scores[metric]
        out[level] = values
    return out


def _aggregate(per_question: list[dict[str, dict[str, float | None]]],
               ks: Sequence[int]) -> tuple[dict[str, float | None], dict[str, int]]:
    means: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for level in LEVELS:
        for k in ks:
            for metric in METRICS:
                name = f"{metric}@{k}"
                vals = [v for q in per_question if level in q and (v := q[level][name]) is not None]
                means[f"{level}.{name}"] = (sum(vals) / len(vals)) if vals else None
                if metric == METRICS[0]:
                    counts[f"{level}@{k}"] = len(vals)
    return means, counts


def retrieval_metrics(results: Sequence[ResultLine], ks: Sequence[int] = K_VALUES) -> RetrievalMetrics:
    """The `retrieval` block of summary.json (module docstring)."""
    with_hits = [r for r in results if r.get("retrieved") is not None]
    if not with_hits:
        outside = sorted({f"{a.get('type')} agent {a.get('name')!r}" for r in results
                          if isinstance(a := r.get("agent"), dict)})
        why = (f"not available: the answers come from an outside agent ({', '.join(outside)}) that keeps its own "
               "memory; the harness never sees what it retrieved") if outside else \
            "no retrieval data: the results carry no `retrieved` hits"
        return {"available": False, "k_values": list(ks), "metrics": {}, "n": {}, "by_type": {}, "notes": [why]}
    traced, untraceable = _tracing(with_hits)
    if untraceable:
        return {"available": False, "k_values": list(ks), "metrics": {}, "n": {}, "by_type": {},
                "traced": traced, "notes": [untraceable]}
    scored = [(r, q) for r in with_hits if (q := question_retrieval(r, ks))]
    means, counts = _aggregate([q for _, q in scored], ks)
    by_type: dict[str, TypeRetrieval] = {}
    for qtype in sorted({str(r.get("question_type")) for r, _ in scored}):
        m, c = _aggregate([q for r, q in scored if str(r.get("question_type")) == qtype], ks)
        by_type[qtype] = {"metrics": m, "n": c}
    top_ks = sorted({int(r.get("top_k") or len(r.get("retrieved") or [])) for r in with_hits})
    notes = []
    unavailable = [k for k in ks if k > max(top_ks)]
    if unavailable:
        notes.append(f"k = {', '.join(map(str, unavailable))} exceed top_k = {max(top_ks)}: not available (null)")
    if traced is not None:
        notes.append(f"{traced['hits_traced']} of {traced['hits']} hits ({traced['share']:.0%}) traced back to the "
                     f"dataset message that wrote them ({', '.join(traced['servers'])} returns no tags); an "
                     "untraced hit counts as not relevant")
    excluded = sum(1 for r in with_hits if is_abstention(r))
    return {"available": True, "k_values": list(ks), "top_k": top_ks, "metrics": means, "n": counts,
            "traced": traced,
            "excluded_abstention": excluded,
            "questions": {"session": sum(1 for _, q in scored if "session" in q),
                          "turn": sum(1 for _, q in scored if "turn" in q)},
            "by_type": by_type, "notes": notes}


def _tracing(with_hits: Sequence[ResultLine]) -> tuple[TracedHits | None, str]:
    """How many hits of a mapped server (records with `hits_traced`) could be traced to dataset
    messages, and why metrics are not available when none could (never a silent zero)."""
    mapped = [r for r in with_hits if r.get("hits_traced") is not None]
    if not mapped:
        return None, ""  # Mycelian: every hit carries the harness's tags
    hits = sum(len(r.get("retrieved") or []) for r in mapped)
    found = sum(r.get("hits_traced") or 0 for r in mapped)
    servers = sorted({str(r.get("memory_server") or "the memory server") for r in mapped})
    traced: TracedHits = {"hits": hits, "hits_traced": found, "share": found / hits if hits else 0.0, "servers": servers}
    if hits and not found:
        return traced, (f"not available: none of the {hits} hits {', '.join(servers)} returned could be traced to a "
                        "dataset message (it returns no tags, and no hit held a text that was written verbatim, "
                        "e.g. the agent rewrote what it stored)")
    return traced, ""
