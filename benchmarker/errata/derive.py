"""`errata derive`: the errata lines that turn a published dataset file into a corrected copy of it.

Each question both files hold is compared field by field (answer, evidence, category, read by the suite's own
loader); a difference is one line whose `turn` and `quote` are left empty for the user to fill from the transcript:
the check refuses an empty one, so no correction is used unproven.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.errata.check import KEYS
from benchmarker.errata.gold import GoldIndex, GoldQuestion


def derive_lines(published: GoldIndex, corrected: GoldIndex, source: str = "") -> list[dict[str, object]]:
    """One errata line per field that differs, in the published file's question order."""
    lines: list[dict[str, object]] = []
    for qid, old in published.questions.items():
        new = corrected.questions.get(qid)
        if new is None:
            continue
        for field, before, after in _fields(old, new, published, corrected):
            if before != after:
                lines.append(dict(zip(KEYS, (qid, field, before, after, "", "", source), strict=True)))
    return lines


def _fields(old: GoldQuestion, new: GoldQuestion, published: GoldIndex,
            corrected: GoldIndex) -> list[tuple[str, object, object]]:
    out: list[tuple[str, object, object]] = [("category", old.category, new.category)]
    if not old.abstention:
        out.insert(0, ("answer", old.answer, new.answer))
    out.insert(1, ("evidence", list(published.canonical_ids(old.evidence)), list(corrected.canonical_ids(new.evidence))))
    return out


def missing_questions(published: GoldIndex, corrected: GoldIndex) -> tuple[int, int]:
    """(questions only in the published file, only in the corrected one): not corrections, but worth saying."""
    return (len(set(published.questions) - set(corrected.questions)),
            len(set(corrected.questions) - set(published.questions)))


def errata_text(lines: list[dict[str, object]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def derived_note(out: Path, count: int) -> str:
    return (f"wrote {count} correction(s) to {out}; fill each line's turn and quote (the words of the dataset's turn "
            "that prove it) and source (a URL) before naming it in [dataset] errata: the run refuses an empty one")
