"""ANALYZE: where the configuration in force fails on the training split, and why.

Failures are grouped by question type, category and level, and by cause. The retrieval cause
of each answer (evaluate.failure_cause, from its retrieval metrics) is always there: not
retrieved, partially retrieved (some evidence sessions missing), retrieved but misread by the
reader, or judged wrong although the gold answer is in the reply (a grader disagreement, which
no proposal should try to fix).

With `[multi_agent] analyst = true` the rows also carry the analyst's cause (`analyst_cause`,
see evaluate.py for what data it is computed from), and `causes` are the analyst's
(`"analysis": "analyst"`; otherwise `"retrieval"`), while `retrieval_causes` keeps the
retrieval-metric causes of the same failures. The analyst adds what retrieval metrics cannot
see: "not_written" (the memory agent never stored an evidence message; to retrieval metrics it
looks like not_retrieved), and "answered_unanswerable". Its "judged_wrong" is a grader
disagreement, left out of what proposals try to fix, like the retrieval cause of that name.

`target_cause`: the most common cause a proposal may try to fix (judged_wrong left out);
`write_failures` counts not_written, which no retrieval knob (top_k, alpha) can fix (propose.py
says so rather than pretending).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Literal

from benchmarker.graph.self_improve.shapes import Analysis, Dimension, Example, Group, QuestionRow, Scores

RETRIEVAL_CAUSES = ("not_retrieved", "partially_retrieved")
READER_CAUSES = ("retrieved_but_misread", "wrong_answer", "misread", "answered_unanswerable")
WRITE_CAUSES = ("not_written",)
GRADER_CAUSES = ("judged_wrong",)  # the gold answer is in the reply: no proposal should try to fix these
DIMENSIONS: tuple[tuple[Dimension, Literal["type", "category", "level"]], ...] = (
    ("by_type", "type"), ("by_category", "category"), ("by_level", "level"))
EXAMPLES_PER_CAUSE = 3


def cause_of(row: QuestionRow) -> str:
    """The cause ANALYZE uses for a row: the analyst's when it gave one, else the retrieval cause."""
    return row.get("analyst_cause") or row["cause"]


def analyze(rows: Scores, ids: list[str]) -> Analysis:
    """Scores, failure groups and causes over `ids` (the training split)."""
    scored = {qid: rows[qid] for qid in ids if qid in rows and rows[qid]["score"] is not None}
    failures = {qid: r for qid, r in scored.items() if (r["score"] or 0.0) < 1.0}  # scored: never None
    by_analyst = any("analyst_cause" in r for r in scored.values())
    causes = Counter(cause_of(r) for r in failures.values())
    fixable = Counter({c: n for c, n in causes.items() if c not in GRADER_CAUSES})
    out: Analysis = {
        "n": len(scored),
        "score": round(sum(r["score"] or 0.0 for r in scored.values()) / len(scored), 4) if scored else None,
        "failures": len(failures),
        "analysis": "analyst" if by_analyst else "retrieval",
        "causes": dict(causes.most_common()),
        "dominant_cause": causes.most_common(1)[0][0] if causes else None,
        "target_cause": fixable.most_common(1)[0][0] if fixable else None,
        "retrieval_failures": sum(causes[c] for c in RETRIEVAL_CAUSES),
        "reader_failures": sum(causes[c] for c in READER_CAUSES),
        "write_failures": sum(causes[c] for c in WRITE_CAUSES),
        "grader_failures": sum(causes[c] for c in GRADER_CAUSES),
        "chars_per_hit": _chars_per_hit(scored.values()),
    }
    if by_analyst:
        out["retrieval_causes"] = dict(Counter(r["cause"] for r in failures.values()).most_common())
        # what the analyst saw that retrieval metrics could not: per analyst cause, the retrieval causes behind it
        pairs: dict[str, Counter[str]] = defaultdict(Counter)
        for r in failures.values():
            pairs[cause_of(r)][r["cause"]] += 1
        out["cause_pairs"] = {c: dict(p.most_common()) for c, p in sorted(pairs.items())}
    for key, field in DIMENSIONS:
        if any(r.get(field) for r in scored.values()):
            out[key] = _groups(scored.values(), field)
    groups: list[tuple[str, str, float, int]] = [
        (key, name, g["score"], g["n"]) for key, _ in DIMENSIONS for name, g in out.get(key, {}).items() if g["failures"]]
    out["worst"] = sorted(groups, key=lambda t: (t[2], -t[3]))[:5]
    examples: dict[str, list[Example]] = defaultdict(list)
    for qid, r in sorted(failures.items()):
        cause = cause_of(r)
        if len(examples[cause]) < EXAMPLES_PER_CAUSE:
            examples[cause].append({"question_id": qid, "type": r["type"], "question": r.get("question", ""),
                                    "answer": r.get("answer", ""), "hypothesis": r.get("hypothesis", "")})
    out["examples"] = dict(examples)
    return out


def _groups(rows: Iterable[QuestionRow], field: Literal["type", "category", "level"]) -> dict[str, Group]:
    groups: dict[str, list[QuestionRow]] = defaultdict(list)
    for r in rows:
        groups[r.get(field) or "?"].append(r)
    return {name: {"n": len(g), "score": round(sum(r["score"] or 0.0 for r in g) / len(g), 4),
                   "failures": sum(1 for r in g if (r["score"] or 0.0) < 1.0),
                   "causes": dict(Counter(cause_of(r) for r in g if (r["score"] or 0.0) < 1.0))}
            for name, g in sorted(groups.items())}


def _chars_per_hit(rows: Iterable[QuestionRow]) -> float | None:
    """Average context characters per retrieved hit: how much one more hit costs the reader."""
    pairs = [(chars, r["hits"]) for r in rows if (chars := r.get("context_chars")) and r.get("hits")]
    if not pairs:
        return None
    return round(sum(c for c, _ in pairs) / sum(h for _, h in pairs), 1)


def analysis_text(analysis: Analysis) -> str:
    """A short plain-text account of the analysis, for the model prompts and the log."""
    by_analyst = analysis.get("analysis") == "analyst"
    label = ("failures by cause (the analyst: the first stage that did not hold, written -> retrieved -> read "
             "-> judged)" if by_analyst else "failures by cause")
    lines = [f"training split: {analysis['n']} scored questions, mean score {analysis['score']}, "
             f"{analysis['failures']} failures",
             f"{label}: " + (", ".join(f"{c} {n}" for c, n in analysis["causes"].items()) or "none")]
    if by_analyst:
        lines.append("the same failures by retrieval metrics alone: "
                     + (", ".join(f"{c} {n}" for c, n in (analysis.get("retrieval_causes") or {}).items()) or "none"))
    if analysis.get("grader_failures"):
        lines.append(f"{analysis['grader_failures']} judged_wrong failures hold the gold answer in the reply "
                     "(a grader disagreement): no change should try to fix them")
    if analysis.get("note"):
        lines.append(f"note: {analysis['note']}")
    for key, _ in DIMENSIONS:
        groups = analysis.get(key)
        if groups:
            cells = ", ".join(f"{name} {g['score']:.2f} (n={g['n']})" for name, g in groups.items())
            lines.append(f"{key.replace('_', ' ')}: {cells}")
    for cause, items in (analysis.get("examples") or {}).items():
        for item in items:
            lines.append(f"example ({cause}, {item['type']}): Q: {item['question']!r} gold: {item['answer']!r} "
                         f"reply: {item['hypothesis']!r}")
    return "\n".join(lines)
