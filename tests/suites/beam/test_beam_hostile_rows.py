"""Hostile BEAM rows (issue 42, item 6): two rows with one conversation id, and values that used to raise a
traceback (a number-typed time anchor, a bad byte, non-string literal keys, a 5,000-digit plan key, "²" as an
evidence id, a 100,000-character id) are each refused with one line naming the file, the row and the field;
a file whose ids are distinct runs every question the estimate counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.errors import DatasetError
from benchmarker.suites.beam import SUITE
from benchmarker.suites.beam.data import load_beam, questions_of, scan
from benchmarker.suites.beam.ids import MAX_CONVERSATION_ID
from benchmarker.suites.settings import PlanSettings

QUESTION = {"question": "Where?", "answer": "Lisbon", "rubric": ["LLM response should state: Lisbon"],
            "source_chat_ids": [1]}


def chat(anchor: Any = "March-01-2024") -> list[dict[str, Any]]:
    return [{"batch_number": 1, "time_anchor": anchor,
             "turns": [[{"role": "user", "id": 0, "content": "I moved ->-> 1,1"},
                        {"role": "assistant", "id": 1, "content": "to Lisbon"}]]}]


def row(cid: Any = "1", **fields: Any) -> dict[str, Any]:
    return {"conversation_id": cid, "chat": chat(),
            "probing_questions": {"information_extraction": [QUESTION, QUESTION | {"question": "When?"}]}} | fields


def rows_file(tmp_path: Path, rows: list[dict[str, Any]], name: str = "rows.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    """The one line the loader refuses `path` with (the plan's scan is what every verb runs first)."""
    with pytest.raises(DatasetError) as error:
        scan(path, "100K")
    message = str(error.value)
    assert "\n" not in message and str(path) in message
    return message


def test_two_rows_with_one_conversation_id_are_refused_naming_both(tmp_path: Path) -> None:
    path = rows_file(tmp_path, [row("1"), row("2"), row("1")])
    message = refusal(path)
    assert message.startswith(f"{path}: row 2: conversation_id '1' is also row 0's")
    # an id given as a number and the same id as a string are one conversation; so is a row without an id
    # (it takes its position + 1) and a row that names that number
    assert "row 1: conversation_id '7' is also row 0's" in refusal(rows_file(tmp_path, [row(7), row("7")]))
    unnamed = {k: v for k, v in row().items() if k != "conversation_id"}
    assert "row 1: conversation_id '1' is also row 0's" in refusal(rows_file(tmp_path, [unnamed, row("1")]))


def test_duplicate_lines_in_a_jsonl_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (row("a"), row("b"), row("a"))) + "\n", encoding="utf-8")
    assert refusal(path).startswith(f"{path}: row 3: conversation_id 'a' is also row 1's")


def test_a_bad_byte_in_a_jsonl_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(json.dumps(row("1")).encode() + b"\n" + b'{"conversation_id": "\xff"}\n')
    assert refusal(path) == f"{path}: line 2: not UTF-8 at byte 21"


@pytest.mark.parametrize(("fields", "words"), [
    ({"chat": chat(anchor=5)}, ["row 0: chat batch 1: field `time_anchor` must be a string, got int"]),
    ({"chat": [{"batch_number": 1, "turns": [[{"role": "user", "id": 0, "content": "x", "time_anchor": ["May"]}]]}]},
     ["row 0: chat batch 1: field `time_anchor` must be a string, got list"]),
    ({"probing_questions": "{1: [], 'custom_ability': []}"},
     ["row 0: probing_questions: key 1 must be a string (an ability name)"]),
    ({"probing_questions": "{'information_extraction': [{'question': 'Where?', 'answer': 'L', 'rubric': ['x'], "
                           "(1, 2): 'y'}]}"},
     ["row 0: probing_questions.information_extraction[0]: field names must be strings, got (1, 2)"]),
    ({"chat": [{"plan-" + "9" * 5000: chat()}]}, ["row 0: chat[0]: plan key `plan-999", "has 5,000 digits"]),
    ({"probing_questions": {"information_extraction": [QUESTION | {"source_chat_ids": ["²"]}]}},
     ["row 0: probing_questions.information_extraction[0]: field `source_chat_ids` holds '²'"]),
    ({"probing_questions": {"information_extraction": [QUESTION | {"source_chat_ids": {"a": ["1" * 5000]}}]}},
     ["row 0: probing_questions.information_extraction[0]: field `source_chat_ids` holds '111"]),
    ({"conversation_id": "x" * 100_000},
     ["row 0: field `conversation_id` is 100,000 characters long", f"at most {MAX_CONVERSATION_ID}"]),
    ({"conversation_id": ["1"]}, ["row 0: field `conversation_id` must be a string or a whole number, got list"]),
], ids=["time-anchor-int", "message-time-anchor-list", "literal-int-key", "literal-tuple-field",
        "plan-5000-digits", "superscript-two", "evidence-5000-digits", "id-100k-chars", "id-list"])
def test_a_hostile_value_is_one_line_naming_the_row_and_field(tmp_path: Path, fields: dict[str, Any],
                                                             words: list[str]) -> None:
    message = refusal(rows_file(tmp_path, [row(**fields)]))
    for word in words:
        assert word in message


def test_a_number_of_5000_digits_is_one_line_naming_the_file_or_row(tmp_path: Path) -> None:
    """int() refuses more than 4,300 digits with a plain ValueError, which is not a JSONDecodeError."""
    digits = "1" * 5000
    array = tmp_path / "rows.json"
    array.write_text(json.dumps([row()])[:-2] + f', "x": {digits}}}]', encoding="utf-8")
    assert refusal(array) == f"{array}: holds a number too long to read"
    lines = tmp_path / "rows.jsonl"
    lines.write_text(json.dumps(row())[:-1] + f', "x": {digits}}}\n', encoding="utf-8")
    assert refusal(lines) == f"{lines}: line 1: holds a number too long to read"
    literal = rows_file(tmp_path, [row(chat=f"[{digits}]")])
    assert refusal(literal).startswith(f"{literal}: row 0: chat: neither JSON nor a Python literal")


def test_strict_checks_still_read_ascii_ids_and_plans(tmp_path: Path) -> None:
    """The strict checks refuse only what is hostile: " 1 " is still message 1, plan-2 still a plan, and an id
    of exactly the cap is a conversation."""
    cid = "c" * MAX_CONVERSATION_ID
    path = rows_file(tmp_path, [row(cid, chat=[{"plan-2": chat()}], probing_questions={
        "information_extraction": [QUESTION | {"source_chat_ids": [" 1 "]}]})])
    (conv,) = load_beam(path, "100K").conversations
    (question,) = questions_of(conv, "100K", [])
    assert conv.conversation_id == cid and question.evidence["turns"] == [[f"beam-{cid}-b1", 1]]


def _config(tmp_path: Path, data: Path) -> Path:
    config = tmp_path / "beam.toml"
    config.write_text(f'[dataset]\nkind = "beam"\nfile = "{data}"\nsize = "100K"\n[provider]\ntype = "offline"\n'
                      f'[run]\noutput_dir = "{tmp_path / "runs"}"\n', encoding="utf-8")
    return config


def test_the_plan_counts_the_questions_its_cases_hold(tmp_path: Path) -> None:
    """What `estimate` reports (the plan's count) is what a run streams, for a file with distinct ids."""
    data = rows_file(tmp_path, [row("1"), row("2"), row("3")])
    plan = SUITE.data.plan(PlanSettings.of(load_config(_config(tmp_path, data))), tmp_path)
    streamed = [q.question_id for group in plan.groups for case in group.cases() for q in case.questions]
    assert plan.total_questions == len(streamed) == len(set(streamed)) == 6
    assert plan.details["conversations"] == ["1", "2", "3"]


def test_estimate_refuses_duplicate_ids_with_one_line_and_exit_2(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = rows_file(tmp_path, [row("1"), row("1")])
    assert main(["estimate", str(_config(tmp_path, data))]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {data}: row 1: conversation_id '1' is also row 0's; each conversation must appear "
                   f"once (two rows with one id would be run as one conversation)")
