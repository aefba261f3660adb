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
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from benchmarker.errata.corrected import corrected_line, corrected_questions
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.fmt import pct
from benchmarker.reporting.summary_block import Cell
from benchmarker.reporting.summary_metric_blocks import QaBlock
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.qa_metrics import qa_metrics
from benchmarker.scoring.retrieval_metrics import retrieval_metrics


def errata_blocks(results: Sequence[ResultLine]) -> dict[str, Any]:
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


def errata_section(summary: RunSummary) -> list[str]:
    """Both accuracies, as published and corrected, and the corrected questions (none without errata)."""
    corrected, errata = summary.qa_corrected, summary.errata
    if corrected is None or corrected.is_empty() or errata is None or errata.is_empty():
        return []
    published = summary.qa or QaBlock()
    published_types, corrected_types = published.by_type or {}, corrected.by_type or {}
    out = ["## Gold errata", "",
           f"{errata.questions or 0} question(s) corrected by `[dataset] errata`; "
           f"{errata.labels_changed or 0} label(s) changed.", "",
           "| | as published | corrected |", "|---|---|---|",
           f"| **overall accuracy** | {_acc(published.overall)} | {_acc(corrected.overall)} |",
           f"| task-averaged | {pct(published.task_averaged.accuracy if published.task_averaged else None)} | "
           f"{pct(corrected.task_averaged.accuracy if corrected.task_averaged else None)} |"]
    for qtype in sorted(set(published_types) | set(corrected_types)):
        out.append(f"| {qtype} | {_acc(published_types.get(qtype))} | {_acc(corrected_types.get(qtype))} |")
    out += ["", "| question | field | published | corrected | label (published / corrected) | source |",
            "|---|---|---|---|---|---|"]
    for row in errata.corrections or []:
        out.append(f"| `{row.question_id}` | {row.field} | {_cell(row.published)} | "
                   f"{_cell(row.corrected)} | {_label(row.label_published)} / "
                   f"{_label(row.label_corrected)} | {row.source} |")
    return out + [""]


def _acc(cell: Cell | None) -> str:
    if cell is None or cell.accuracy is None:
        return "n/a"
    return f"{pct(cell.accuracy)} ({cell.correct}/{cell.n})"


def _cell(value: JsonValue) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("|", "\\|").replace("\n", " ")


def _label(value: bool | None) -> str:
    return "correct" if value is True else "wrong" if value is False else "unjudged"
