"""Report parts for retrieval: what a retrieval-only run measured, its worst questions, hit tables.

A retrieval-only run writes every message straight to memory and searches once per question; no
agent, reader or judge runs. Its report therefore names the index it measured (backend, embedder,
alpha, top_k) and ranks questions by what the search found, never by an answer's label.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from benchmarker.log.lines import ResultLine, RetrievedHit
from benchmarker.reporting.summary_metric_blocks import CountsBlock, RetrievalBlock
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.summary_run_block import MemoryInfo, RunBlock
from benchmarker.scoring.retrieval_metrics import evidence_sets, question_retrieval

WORST_LIMIT = 15
HITS_SHOWN = 5
LEVELS = ("session", "turn")
# Worst first: evidence never found, then found only in part, then found but ranked low.
ORDER = (("session", "recall_any"), ("turn", "recall_any"), ("session", "recall_all"), ("turn", "recall_all"),
         ("session", "ndcg_any"), ("turn", "ndcg_any"))


def clip(text: Any, limit: int = 160) -> str:
    """One line of at most `limit` characters."""
    s = " ".join(str(text if text is not None else "").split())
    return s if len(s) <= limit else s[:limit - 1] + "…"


def cell(text: Any, limit: int = 160) -> str:
    """`clip` made safe inside a markdown table."""
    return clip(text, limit).replace("|", "\\|")


def retrieval_header(summary: RunSummary) -> list[str]:
    """The opening lines of a retrieval-only report: what ran, on which index, over which questions."""
    counts, r = summary.counts or CountsBlock(), summary.retrieval or RetrievalBlock()
    scored = r.questions or {}
    return ["> **Retrieval-only run.** Every dataset message was written straight to memory as one entry "
            "(no memory agent) and each question was searched once; recall and ndcg at k measure that search "
            "against the evidence sessions and turns. No reader and no judge ran, so there is no QA accuracy.", "",
            f"- questions: {counts.questions or 0} (scored for retrieval: {scored.get('session', 0)} at "
            f"session level, {scored.get('turn', 0)} at turn level; {r.excluded_abstention or 0} abstention "
            "questions excluded, as in LongMemEval's scripts)",
            f"- index searched: {index_description(summary.run)}"]


def index_description(run: RunBlock) -> str:
    """Backend, embedder, alpha and top_k from summary.run, in words."""
    memory = run.memory or MemoryInfo()
    parts = [f"backend `{memory.backend}`"] if memory.backend else []
    if memory.embedder:
        parts.append(f"embedder `{memory.embedder}`" + (" (BM25 only)" if memory.embedder == "none" else ""))
    if run.alpha is not None:
        parts.append(f"alpha `{run.alpha}` (sent with each search)")
    elif memory.alpha is not None:
        parts.append(f"alpha `{memory.alpha}` (the service's)")
    if run.top_k is not None:
        parts.append(f"top_k `{run.top_k}`")
    if run.point:
        parts.append(f"sweep point `{run.point}`")
    return ", ".join(parts) or "not recorded"


def evidence_mark(hit: RetrievedHit, evidence: dict[str, set[Hashable]]) -> str:
    """✔ turn for an evidence turn, ✔ for another turn of an evidence session, else nothing."""
    turn = hit.get("turn_index")
    if turn is not None and (str(hit.get("session_id")), turn) in evidence["turn"]:
        return "✔ turn"
    return "✔" if str(hit.get("session_id")) in evidence["session"] else ""


def hits_table(record: ResultLine, evidence: dict[str, set[Hashable]]) -> list[str]:
    """The first HITS_SHOWN hits of a question with their evidence marks ("retrieved: nothing" when none)."""
    hits = sorted(record.get("retrieved") or [], key=lambda h: h.get("rank") or 0)[:HITS_SHOWN]
    if not hits:
        return [] if record.get("retrieved") is None else ["- retrieved: nothing"]
    out = ["", "| rank | session | turn | evidence | preview |", "|---|---|---|---|---|"]
    for h in hits:
        preview = h.get("summary") or h.get("raw_preview") or ""
        out.append(f"| {h.get('rank')} | `{cell(h.get('session_id'), 40)}` | {h.get('turn_index')} "
                   f"| {evidence_mark(h, evidence)} | {cell(preview, 180)} |")
    return out


def evidence_session_ids(evidence: dict[str, set[Hashable]]) -> list[str]:
    """The evidence session ids, sorted (evidence_sets holds them as strings)."""
    return sorted(s for s in evidence["session"] if isinstance(s, str))


def _top_k(record: ResultLine) -> int:
    return int(record.get("top_k") or len(record.get("retrieved") or []) or 1)


def _sort_key(item: tuple[ResultLine, dict[str, dict[str, float | None]], int]) -> tuple:
    record, per_q, k = item
    values = tuple(_value(per_q, level, metric, k) for level, metric in ORDER)
    return values + (str(record.get("question_id")),)


def _value(per_q: dict[str, dict[str, float | None]], level: str, metric: str, k: int) -> float:
    value = per_q.get(level, {}).get(f"{metric}@{k}")
    return 1.0 if value is None else value  # no evidence at that level: nothing was missed there


def _scores_line(per_q: dict[str, dict[str, float | None]], k: int) -> str:
    parts = []
    for level in LEVELS:
        if level not in per_q:
            parts.append(f"{level}: no evidence")
            continue
        v = per_q[level]
        parts.append(f"{level} recall_any {v[f'recall_any@{k}']:g}, recall_all {v[f'recall_all@{k}']:g}, "
                     f"ndcg_any {v[f'ndcg_any@{k}']:.3f}")
    return f"- at k = {k}: " + "; ".join(parts)


def worst_by_retrieval(results: Sequence[ResultLine]) -> list[str]:
    """Questions whose search missed or under-ranked their evidence, worst first (ORDER), at their top_k."""
    out = ["## Worst questions by retrieval", ""]
    scored = []
    for record in results:
        k = _top_k(record)
        per_q = question_retrieval(record, ks=(k,))
        if per_q:
            scored.append((record, per_q, k))
    if not scored:
        return out + ["No question was scored for retrieval (no hits recorded, or no evidence outside the "
                      "abstention questions).", ""]
    imperfect = sorted((x for x in scored if any(_value(x[1], lv, "ndcg_any", x[2]) < 1.0 for lv in LEVELS)),
                       key=_sort_key)
    if not imperfect:
        return out + [f"All {len(scored)} scored questions ranked their evidence first at every level "
                      "(ndcg_any = 1 at top_k).", ""]
    missed = sum(1 for _, per_q, k in scored if _value(per_q, "session", "recall_any", k) == 0.0)
    chosen = imperfect[:WORST_LIMIT]
    out.append(f"{missed} of {len(scored)} scored questions had no evidence session among their top_k hits; "
               f"{len(imperfect)} missed or under-ranked some evidence. Showing {len(chosen)}, worst first "
               "(session then turn recall_any, recall_all, then ndcg_any, at the question's top_k). "
               "✔ marks a hit from an evidence session, ✔ turn the evidence turn itself.")
    for record, per_q, k in chosen:
        evidence = evidence_sets(record)
        turns = ", ".join(f"`{s}` #{t}" for s, t in sorted(p for p in evidence["turn"] if isinstance(p, tuple))) or "none"
        out += ["", f"### `{record.get('question_id')}` ({record.get('question_type')})", "",
                f"- question: {clip(record.get('question'), 400)}",
                f"- answer: {clip(record.get('answer'), 400)}",
                _scores_line(per_q, k),
                f"- evidence sessions: {', '.join(f'`{s}`' for s in evidence_session_ids(evidence)) or 'none'}; "
                f"evidence turns: {turns}"]
        out += hits_table(record, evidence)
    return out + [""]
