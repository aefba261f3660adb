"""log/lines.py's TypedDicts describe the lines log/records.py's models write: a field added to a record (or a key a
grade writes) without its reader type would let a reader's typo or a stale key pass mypy unseen."""

from __future__ import annotations

from typing import get_type_hints

from benchmarker.log.lines import DecisionLine, ErrorLine, GradeLine, MemoryLine, ResultLine, TokenCounts
from benchmarker.log.records import DecisionRecord, ErrorRecord, MemoryRecord, ResultRecord
from benchmarker.scoring.grade import Grade, GradeTokens


def _keys(shape: type) -> set[str]:
    return set(get_type_hints(shape))


def test_every_record_field_has_its_key_in_the_line_type() -> None:
    pairs = [(ResultRecord, ResultLine), (DecisionRecord, DecisionLine), (MemoryRecord, MemoryLine),
             (ErrorRecord, ErrorLine)]
    for record, line in pairs:
        missing = set(record.model_fields) - _keys(line)
        assert not missing, f"{line.__name__} lacks {sorted(missing)} that {record.__name__} writes"


def test_a_grade_writes_only_keys_the_grade_line_names() -> None:
    grade = Grade(label=None, judge="llm", model="m", reason="unjudged: boom", tokens=GradeTokens(input=3, output=1),
                  reply="x", error="boom")
    fields = grade.line_fields()
    written = fields["grade"]
    assert isinstance(written, dict)
    assert set(written) <= _keys(GradeLine)
    assert isinstance(written["tokens"], dict) and set(written["tokens"]) <= _keys(TokenCounts)
    assert set(fields) <= _keys(ResultLine)
