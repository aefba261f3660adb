"""The run directory's JSONL: torn tails from a killed writer are dropped, real damage is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.errors import UserError
from benchmarker.log.jsonl import JsonlWriter, latest_by, read_jsonl, repair_tail


def test_a_torn_tail_is_skipped_and_cut_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"question_id": "a"}\n{"question_id": "b"}\n{"question_id": "c", "lab')
    assert [r["question_id"] for r in read_jsonl(path)] == ["a", "b"]
    writer = JsonlWriter(path)  # repairs the tail before appending
    writer.write({"question_id": "c"})
    writer.close()
    assert [r["question_id"] for r in read_jsonl(path)] == ["a", "b", "c"]


def test_a_bad_line_in_the_middle_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"question_id": "a"}\nnot json\n{"question_id": "b"}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"r.jsonl:2: not valid JSON"):
        list(read_jsonl(path))


def test_repair_tail_keeps_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2')
    repair_tail(path)
    assert path.read_bytes() == b'{"a": 1}\n'


def test_latest_by_keeps_the_last_line_per_key_in_first_seen_order() -> None:
    lines = [{"question_id": "a", "v": 1}, {"question_id": "b", "v": 1}, {"question_id": "a", "v": 2}]
    assert latest_by(lines, "question_id") == [{"question_id": "a", "v": 2}, {"question_id": "b", "v": 1}]
