"""A results line as its errata correct it: what `qa_corrected` is computed from (summary.json, `verify`)."""

from __future__ import annotations

from typing import Any


def corrected_line(record: dict[str, Any]) -> dict[str, Any]:
    """The line with each correction applied: a corrected answer's label (judged against it), a moved category's
    question_type, corrected evidence turns; a line without corrections is returned as it is."""
    entries = record.get("errata") or []
    if not entries:
        return record
    out = dict(record)
    for entry in entries:
        out.update(entry.get("fields") or {})
        if entry.get("field") == "answer" and "label" in entry:
            out["label"], out["grade"] = entry["label"], entry.get("grade") or {}
    return out


def corrected_questions(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per correction of these lines: the question, the field, both values, the source and both labels."""
    rows = []
    for record in results:
        label_corrected = corrected_line(record).get("label")
        for entry in record.get("errata") or []:
            rows.append({"question_id": record.get("question_id"), "field": entry.get("field"),
                         "published": entry.get("published"), "corrected": entry.get("corrected"),
                         "turn": entry.get("turn"), "source": entry.get("source"),
                         "label_published": record.get("label"), "label_corrected": label_corrected})
    return rows
