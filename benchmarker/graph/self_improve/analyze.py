"""ANALYZE: where the configuration in force fails on the training split, and why.

Failures are grouped by question type, category and level, and by cause (from the retrieval
metrics of each answer): not retrieved, partially retrieved (some evidence sessions missing),
retrieved but misread by the reader, or judged wrong although the gold answer is in the reply
(a grader disagreement, which no proposal should try to fix).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

RETRIEVAL_CAUSES = ("not_retrieved", "partially_retrieved")
READER_CAUSES = ("retrieved_but_misread", "wrong_answer")
DIMENSIONS = (("by_type", "type"), ("by_category", "category"), ("by_level", "level"))
EXAMPLES_PER_CAUSE = 3


def analyze(rows: dict[str, dict[str, Any]], ids: list[str]) -> dict[str, Any]:
    """Scores, failure groups and causes over `ids` (the training split)."""
    scored = {qid: rows[qid] for qid in ids if qid in rows and rows[qid]["score"] is not None}
    failures = {qid: r for qid, r in scored.items() if r["score"] < 1.0}
    causes = Counter(r["cause"] for r in failures.values())
    out: dict[str, Any] = {
        "n": len(scored),
        "score": round(sum(r["score"] for r in scored.values()) / len(scored), 4) if scored else None,
        "failures": len(failures),
        "causes": dict(causes.most_common()),
        "dominant_cause": causes.most_common(1)[0][0] if causes else None,
        "retrieval_failures": sum(causes[c] for c in RETRIEVAL_CAUSES),
        "reader_failures": sum(causes[c] for c in READER_CAUSES),
        "chars_per_hit": _chars_per_hit(scored.values()),
    }
    for key, field in DIMENSIONS:
        if any(r.get(field) for r in scored.values()):
            out[key] = _groups(scored.values(), field)
    groups = [(key, name, g["score"], g["n"]) for key, _ in DIMENSIONS for name, g in out.get(key, {}).items()
              if g["failures"]]
    out["worst"] = sorted(groups, key=lambda t: (t[2], -t[3]))[:5]
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for qid, r in sorted(failures.items()):
        if len(examples[r["cause"]]) < EXAMPLES_PER_CAUSE:
            examples[r["cause"]].append({"question_id": qid, "type": r["type"], "question": r.get("question", ""),
                                         "answer": r.get("answer", ""), "hypothesis": r.get("hypothesis", "")})
    out["examples"] = dict(examples)
    return out


def _groups(rows, field: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r.get(field) or "?"].append(r)
    return {name: {"n": len(g), "score": round(sum(r["score"] for r in g) / len(g), 4),
                   "failures": sum(1 for r in g if r["score"] < 1.0),
                   "causes": dict(Counter(r["cause"] for r in g if r["score"] < 1.0))}
            for name, g in sorted(groups.items())}


def _chars_per_hit(rows) -> float | None:
    """Average context characters per retrieved hit: how much one more hit costs the reader."""
    pairs = [(r["context_chars"], r["hits"]) for r in rows if r.get("context_chars") and r.get("hits")]
    if not pairs:
        return None
    return round(sum(c for c, _ in pairs) / sum(h for _, h in pairs), 1)


def analysis_text(analysis: dict[str, Any]) -> str:
    """A short plain-text account of the analysis, for the model prompts and the log."""
    lines = [f"training split: {analysis['n']} scored questions, mean score {analysis['score']}, "
             f"{analysis['failures']} failures",
             "failures by cause: " + (", ".join(f"{c} {n}" for c, n in analysis["causes"].items()) or "none")]
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
