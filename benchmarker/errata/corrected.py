"""A results line as its errata correct it: what `qa_corrected` is computed from (summary.json, `verify`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, cast

from benchmarker.log.lines import Json, ResultLine


class CorrectionRow(TypedDict):
    """summary.json's errata.corrections[]: one correction, both values and both labels."""

    question_id: str | None
    field: str | None
    published: Json
    corrected: Json
    turn: str | None
    source: str | None
    label_published: bool | None
    label_corrected: bool | None


def corrected_line(record: ResultLine) -> ResultLine:
    """The line with each correction applied: a corrected answer's label (judged against it), a moved category's
    question_type, corrected evidence turns; a line without corrections is returned as it is."""
    entries = record.get("errata") or []
    if not entries:
        return record
    out: dict[str, object] = dict(record)
    for entry in entries:
        out.update(entry.get("fields") or {})
        if entry.get("field") == "answer" and "label" in entry:
            out["label"], out["grade"] = entry["label"], entry.get("grade") or {}
    return cast(ResultLine, out)   # a correction sets results-line keys only (errata/check.py checks each)


def corrected_questions(results: Sequence[ResultLine]) -> list[CorrectionRow]:
    """One row per correction of these lines: the question, the field, both values, the source and both labels."""
    rows: list[CorrectionRow] = []
    for record in results:
        label_corrected = corrected_line(record).get("label")
        for entry in record.get("errata") or []:
            rows.append({"question_id": record.get("question_id"), "field": entry.get("field"),
                         "published": entry.get("published"), "corrected": entry.get("corrected"),
                         "turn": entry.get("turn"), "source": entry.get("source"),
                         "label_published": record.get("label"), "label_corrected": label_corrected})
    return rows
