"""summary.json's `qa_corrected` and `errata` blocks, and the report's "Gold errata" section.

    qa_corrected   the `qa` block (scoring/qa_metrics.py) over the results lines as their errata correct them:
                   a corrected answer's label against the corrected answer, a moved category's question type; with
                   an evidence correction also `retrieval`, the retrieval block over the corrected evidence
    errata         {"questions": lines corrected, "corrections": [{"question_id", "field", "published", "corrected",
                   "turn", "source", "label_published", "label_corrected"}], "labels_changed": questions whose label
                   differs}; both blocks only when some results line carries a correction ([dataset] errata)
"""

from __future__ import annotations

import json
from typing import Any

from benchmarker.errata.corrected import corrected_line, corrected_questions
from benchmarker.reporting.fmt import pct
from benchmarker.scoring.qa_metrics import qa_metrics
from benchmarker.scoring.retrieval_metrics import retrieval_metrics


def errata_blocks(results: list[dict[str, Any]]) -> dict[str, Any]:
    """`qa_corrected` and `errata` from the results lines alone ({} when none carries a correction)."""
    corrected_lines = [r for r in results if r.get("errata")]
    if not corrected_lines:
        return {}
    corrected = [corrected_line(r) for r in results]
    qa = qa_metrics(corrected)
    if any(e.get("field") == "evidence" for r in corrected_lines for e in r["errata"]):
        qa["retrieval"] = retrieval_metrics(corrected)
    changed = sum(1 for r in corrected_lines if corrected_line(r).get("label") != r.get("label"))
    return {"qa_corrected": qa, "errata": {"questions": len(corrected_lines), "corrections": corrected_questions(results),
                                           "labels_changed": changed}}


def errata_section(summary: dict[str, Any]) -> list[str]:
    """Both accuracies, as published and corrected, and the corrected questions (none without errata)."""
    corrected, errata = summary.get("qa_corrected"), summary.get("errata")
    if not corrected or not errata:
        return []
    published = summary.get("qa") or {}
    out = ["## Gold errata", "",
           f"{errata.get('questions', 0)} question(s) corrected by `[dataset] errata`; "
           f"{errata.get('labels_changed', 0)} label(s) changed.", "",
           "| | as published | corrected |", "|---|---|---|",
           f"| **overall accuracy** | {_acc(published.get('overall'))} | {_acc(corrected.get('overall'))} |",
           f"| task-averaged | {pct((published.get('task_averaged') or {}).get('accuracy'))} | "
           f"{pct((corrected.get('task_averaged') or {}).get('accuracy'))} |"]
    for qtype in sorted(set(published.get("by_type") or {}) | set(corrected.get("by_type") or {})):
        out.append(f"| {qtype} | {_acc((published.get('by_type') or {}).get(qtype))} | "
                   f"{_acc((corrected.get('by_type') or {}).get(qtype))} |")
    out += ["", "| question | field | published | corrected | label (published / corrected) | source |",
            "|---|---|---|---|---|---|"]
    for row in errata.get("corrections") or []:
        out.append(f"| `{row.get('question_id')}` | {row.get('field')} | {_cell(row.get('published'))} | "
                   f"{_cell(row.get('corrected'))} | {_label(row.get('label_published'))} / "
                   f"{_label(row.get('label_corrected'))} | {row.get('source')} |")
    return out + [""]


def _acc(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("accuracy") is None:
        return "n/a"
    return f"{pct(cell['accuracy'])} ({cell.get('correct')}/{cell.get('n')})"


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("|", "\\|").replace("\n", " ")


def _label(value: Any) -> str:
    return {True: "correct", False: "wrong"}.get(value, "unjudged")
