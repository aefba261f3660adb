"""Read an errata file and check each line against the dataset's gold; refuse the file naming FILE:LINE otherwise.

One correction a line, a JSON object with exactly these keys:

    question_id   the harness's own id (e.g. LoCoMo's "conv-26-q006"): it must be in the dataset
    field         "answer", "evidence" or "category"
    published     the value the dataset file holds now: it must match the file
    corrected     the value it should hold
    turn          the dataset's own id of the turn that proves it (LoCoMo "D2:1"; LongMemEval "<session_id>:<i>",
                  i counted from 0 in that session)
    quote         words of that turn: they must appear in it (whitespace and case aside)
    source        where the correction was published or argued (an http(s) URL)
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.errata.gold import FIELDS, GoldIndex, GoldQuestion, as_ids, as_text
from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.lines import Erratum, Json

KEYS = ("question_id", "field", "published", "corrected", "turn", "quote", "source")
MAX_ERRATA_BYTES = 64 * 2**20   # a correction is a few hundred bytes: 64 MiB is far above any real file
_URL = re.compile(r"^https?://\S+$")


class ErrataDescription(TypedDict):
    """The manifest's dataset.errata block: which file, its hash, how many corrections of how many questions."""

    file: str
    sha256: str
    corrections: int
    questions: int


@dataclass(frozen=True)
class Errata:
    """A checked errata file: question_id -> its corrections (dicts a case carries and a results line keeps)."""

    path: str
    sha256: str
    corrections: dict[str, list[Erratum]]

    def describe(self) -> ErrataDescription:
        """The manifest's dataset.errata block."""
        return {"file": self.path, "sha256": self.sha256,
                "corrections": sum(len(c) for c in self.corrections.values()), "questions": len(self.corrections)}


def read_errata_bytes(path: Path) -> bytes:
    """The file's bytes within the size limit; a one-line UserError naming it when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_ERRATA_BYTES:
            raise UserError(f"{path}: errata file is {size:,} bytes, above the {MAX_ERRATA_BYTES:,} read")
        return path.read_bytes()
    except OSError as err:
        raise UserError(f"{path}: cannot read the errata file ({err.strerror or err})") from None


def errata_sha256(path: Path) -> str:
    return hashlib.sha256(read_errata_bytes(path)).hexdigest()


def check_errata(path: Path, gold: GoldIndex) -> Errata:
    """Every line of the errata file at `path`, checked against `gold`; UserError "FILE:LINE: problem" on the first bad one."""
    data = read_errata_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (bad byte at offset {err.start})") from None
    corrections: dict[str, list[Erratum]] = {}
    seen: set[tuple[str, str]] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = _entry(line, gold, seen)
        except ValueError as err:
            raise UserError(f"{path}:{number}: {err}") from None
        corrections.setdefault(entry["question_id"], []).append(entry)
    if not corrections:
        raise UserError(f"{path}: no corrections (one JSON object a line: {', '.join(KEYS)})")
    return Errata(str(path), hashlib.sha256(data).hexdigest(), corrections)


def _entry(line: str, gold: GoldIndex, seen: set[tuple[str, str]]) -> Erratum:
    try:
        raw = load_json(line)
    except json.JSONDecodeError as err:
        raise ValueError(f"not a JSON object ({err.msg})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object with keys {', '.join(KEYS)}")
    if missing := [k for k in KEYS if k not in raw]:
        raise ValueError(f"missing key(s) {', '.join(missing)}")
    if unknown := sorted(set(raw) - set(KEYS)):
        raise ValueError(f"unknown key(s) {', '.join(unknown)}; a line has exactly {', '.join(KEYS)}")
    qid, field = raw["question_id"], raw["field"]
    if field not in FIELDS:
        raise ValueError(f"field {json.dumps(field)} is not one of {', '.join(FIELDS)}")
    if not isinstance(qid, str) or qid not in gold.questions:
        raise ValueError(f"question_id {json.dumps(qid)} is not a question of the dataset")
    if (qid, field) in seen:
        raise ValueError(f"a second correction of {qid}'s {field}; one line a question and field")
    seen.add((qid, field))
    question = gold.questions[qid]
    fields = _checked_value(field, raw["published"], raw["corrected"], question, gold)
    _check_turn(raw["turn"], raw["quote"], question, gold)
    if not isinstance(raw["source"], str) or not _URL.match(raw["source"].strip()):
        raise ValueError(f"source {json.dumps(raw['source'])} is not an http(s) URL; cite where the correction is argued")
    return {"question_id": qid, "field": field, "published": raw["published"], "corrected": raw["corrected"],
            "turn": raw["turn"], "source": raw["source"].strip(), "fields": fields}


def _checked_value(field: str, published: Any, corrected: Any, question: GoldQuestion,
                   gold: GoldIndex) -> dict[str, Json]:
    """Check published against the file and corrected for sense; the results-line fields the correction sets."""
    if field == "answer":
        if question.abstention:
            raise ValueError("is an abstention question (its gold is that the answer was never said); no answer to correct")
        _same(as_text(published), question.answer, published)
        if not isinstance(corrected, str | int | float) or isinstance(corrected, bool) or not as_text(corrected):
            raise ValueError("corrected answer must be a non-empty string (or a number)")
        _differs(as_text(corrected), question.answer)
        return {"answer": as_text(corrected)}
    if field == "evidence":
        ids = as_ids(published)
        if ids is None:
            raise ValueError("published evidence must be a list of the dataset's ids (strings)")
        ids = gold.canonical_ids(ids)
        _same(ids, gold.canonical_ids(question.evidence), published)
        new = as_ids(corrected)
        if new is None or not new:
            raise ValueError("corrected evidence must be a non-empty list of the dataset's ids (strings)")
        new = gold.canonical_ids(new)
        _differs(new, ids)
        found = gold.evidence_fields(question.case_id, new)
        if found is None:
            raise ValueError(f"corrected evidence {json.dumps(corrected)} names an id that is not in {question.case_id}")
        return found
    _same(as_text(published), question.category, published)
    if as_text(corrected) not in gold.categories:
        raise ValueError(f"corrected category {json.dumps(corrected)} is not one this dataset's questions can move to "
                         f"({', '.join(gold.categories)})")
    _differs(as_text(corrected), question.category)
    return dict(gold.categories[as_text(corrected)])


def _same(got: Any, want: Any, written: Any) -> None:
    if got != want:
        raise ValueError(f"published {json.dumps(written)} does not match the dataset's {json.dumps(want)}")


def _differs(new: Any, old: Any) -> None:
    if new == old:
        raise ValueError("corrected is the same as published; drop the line")


def _check_turn(turn: Any, quote: Any, question: GoldQuestion, gold: GoldIndex) -> None:
    if not isinstance(turn, str) or not turn.strip():
        raise ValueError("turn is empty; name the dataset's turn that proves the correction (e.g. D2:1)")
    found = gold.turns.get(question.case_id, {}).get(turn.strip())
    if found is None:
        raise ValueError(f"turn {json.dumps(turn)} is not a turn of {question.case_id}")
    if not isinstance(quote, str) or not quote.strip():
        raise ValueError(f"quote is empty; copy the words of {turn} that prove the correction")
    if _plain(quote) not in _plain(found.text):
        raise ValueError(f"quote {json.dumps(quote[:80])} is not in turn {turn} of {question.case_id}")


def _plain(text: str) -> str:
    return " ".join(text.split()).casefold()
