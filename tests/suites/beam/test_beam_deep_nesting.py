"""The BEAM loader on files nested 100,000 deep (issue 42, item 3): a DatasetError naming the file (and row or
line), never a RecursionError traceback; a Python-literal field whose quoted brackets look deep still loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.errors import DatasetError
from benchmarker.suites.beam.data import load_beam
from tests.suites.beam.test_beam_loader import broken, write_json

DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deep_chat_file_is_named(tmp_path: Path) -> None:
    folder = broken(tmp_path)
    (folder / "chat.json").write_text(DEEP, encoding="utf-8")
    with pytest.raises(DatasetError, match=r"chat\.json: .*not JSON \(nested deeper than 100 levels\)"):
        load_beam(folder, "100K")


def test_a_deep_row_of_a_jsonl_export_is_named_by_line(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n" + DEEP + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"rows\.jsonl: line 2: not JSON \(nested deeper than 100 levels\)"):
        load_beam(rows, "100K")


def test_a_deep_literal_field_is_named_by_row_and_field(tmp_path: Path) -> None:
    row = write_json(tmp_path / "row.json", [{"conversation_id": "1", "chat": DEEP, "probing_questions": "{}"}])
    with pytest.raises(DatasetError, match=r"row\.json: row 0: chat: neither JSON nor a Python literal "
                                           r"\(\w+; as JSON: nested deeper than 100 levels\)"):
        load_beam(row, "100K")


def test_quoted_brackets_in_a_python_literal_are_text(tmp_path: Path) -> None:
    text = "[" * 150
    row = write_json(tmp_path / "row.json", [{"conversation_id": "7", "chat": repr([[{"role": "user", "content": text,
                                                                                    "id": 1}]]),
                                              "probing_questions": "{}"}])
    (conversation,) = load_beam(row, "100K").conversations
    assert conversation.sessions[0].messages[0].content.endswith(text)
