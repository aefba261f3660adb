"""JSON nested 100,000 deep (issue 42, item 3): refused by one helper before json.loads recurses, and every
JSONL reader treats such a line as it treats a line that is not JSON: one error naming file and line, or a
skipped line. Never a RecursionError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.errors import UserError
from benchmarker.log.json_limits import JsonLimitError, deeper_than, load_json
from benchmarker.log.jsonl import parse_object, read_json_object, read_jsonl, torn_tail

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT, DEEP.encode(), '{"q": ' + DEEP + "}"])
def test_a_deep_text_is_one_decode_error_not_a_recursion_error(text: str | bytes) -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        load_json(text)
    assert isinstance(caught.value, JsonLimitError)
    assert str(caught.value) == caught.value.msg == "nested deeper than 100 levels"


def test_the_depth_walk_counts_containers_only_and_does_not_recurse() -> None:
    assert not deeper_than({"a": [1, {"b": []}]}, 4) and deeper_than({"a": [1, {"b": []}]}, 3)
    assert not deeper_than([[]] * 10_000, 2)  # many containers, shallow
    assert not deeper_than("[[[[", 0) and not deeper_than(7, 0)
    value: list = []
    for _ in range(50_000):  # deeper than the interpreter's recursion limit: a recursive walk would raise
        value = [value]
    assert deeper_than(value, 49_999) and not deeper_than(value, 50_001)


def test_at_the_limit_parses_one_past_it_is_refused() -> None:
    assert load_json("[" * 100 + "]" * 100) is not None
    with pytest.raises(JsonLimitError, match="deeper than 100"):
        load_json("[" * 101 + "]" * 101)
    assert load_json('["' + "[" * 5000 + '"]') == ["[" * 5000]  # quoted brackets are text, not nesting
    assert load_json("[" * 500 + "]" * 500, max_depth=1000) is not None  # deeper than 100 when a reader allows it
    assert load_json("[[1]]", max_depth=2) == [[1]]
    with pytest.raises(JsonLimitError, match="deeper than 1 levels"):
        load_json("[[1]]", max_depth=1)


def test_a_text_over_the_size_limit_is_refused_before_parsing() -> None:
    with pytest.raises(JsonLimitError, match="larger than 10 bytes"):
        load_json(b'{"a": "0123456789"}', max_bytes=10)
    assert load_json('{"a": 1}', max_bytes=10) == {"a": 1}


def test_a_deep_line_in_the_middle_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"question_id": "a"}\n' + DEEP + '\n{"question_id": "b"}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"results.jsonl:2: not valid JSON \(nested deeper than 100 levels\)"):
        list(read_jsonl(path))


def test_a_deep_last_line_without_newline_is_a_torn_tail_like_any_other(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text('{"question_id": "a"}\n{"question_id": "b"}\n' + DEEP + "\n", encoding="utf-8")
    assert torn_tail(path) == 3  # a finished run's verb refuses it by number
    assert [r["question_id"] for r in read_jsonl(path)] == ["a", "b"]  # a resuming run redoes it


def test_the_lenient_readers_give_none_and_empty(tmp_path: Path) -> None:
    assert parse_object(DEEP_OBJECT.encode()) is None
    path = tmp_path / "summary.json"
    path.write_text(DEEP_OBJECT, encoding="utf-8")
    assert read_json_object(path) == {}
