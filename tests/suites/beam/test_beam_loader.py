"""The BEAM loader on the shared sample (three 100K conversations) and on made-up files: every layout gives
the same questions, evidence ids land on the right messages, 10M plans are renumbered like the repository's
`combine_10m_chats`, and a broken file fails naming the file / row and the field."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarker.datasets.schema import Question
from benchmarker.errors import DatasetError
from benchmarker.suites.beam.data import ABILITIES, Parsed, beam_cases, load_beam, questions_of

MARKER = re.compile(r"\s*->->[^\n]*$")  # "->-> 1,3", and once "->-> 2,N/A" (conversation 1, id 108)
DATE = re.compile(r"^\d{4}/\d{2}/\d{2} \((Mon|Tue|Wed|Thu|Fri|Sat|Sun)\) 00:00$")


def all_questions(parsed: Parsed, size: str = "100K") -> list[Question]:
    return [q for conv in parsed.conversations for q in questions_of(conv, size, [])]


def comparable(questions: list[Question]) -> list[tuple[Any, ...]]:
    """What must not depend on the layout a conversation was read from."""
    return [(q.question_id, q.question_type, q.question, q.answer, q.question_date, q.answer_session_ids,
             json.dumps(q.rubric, sort_keys=True), json.dumps(q.evidence, sort_keys=True)) for q in questions]


def raw_messages(folder: Path) -> dict[int, dict[str, Any]]:
    chat = json.loads((folder / "chat.json").read_text(encoding="utf-8"))
    return {m["id"]: m for batch in chat for turn in batch["turns"] for m in turn}


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def hf_row(folder: Path) -> dict[str, Any]:
    """A Hugging Face row of a repository conversation: batches as flat message lists, questions as repr()."""
    chat = json.loads((folder / "chat.json").read_text(encoding="utf-8"))
    questions = json.loads((folder / "probing_questions" / "probing_questions.json").read_text(encoding="utf-8"))
    return {"conversation_id": folder.name, "chat": [[m for turn in b["turns"] for m in turn] for b in chat],
            "probing_questions": repr(questions)}


# --- the shared sample ------------------------------------------------------------------------

def test_the_three_shared_conversations_load(beam_100k: Path) -> None:
    parsed = load_beam(beam_100k, "100K")
    assert [c.conversation_id for c in parsed.conversations] == ["1", "2", "3"]
    questions = all_questions(parsed)
    assert len(questions) == 60 and len({q.question_id for q in questions}) == 60
    for conv in parsed.conversations:
        mine = questions_of(conv, "100K", [])
        assert len(mine) == 20
        assert {a: sum(q.question_type == a for q in mine) for a in ABILITIES} == dict.fromkeys(ABILITIES, 2)
        assert [s.session_id for s in conv.sessions] == [f"beam-{conv.conversation_id}-b{i}" for i in (1, 2, 3)]
        assert all(DATE.match(s.date) for s in conv.sessions), [s.date for s in conv.sessions]
        assert all(q.question_date == conv.sessions[-1].date for q in mine)  # asked after the last batch
    first = parsed.conversations[0]
    assert first.sessions[0].date == "2024/03/15 (Fri) 00:00"  # "March-15-2024" on the batch's first message
    users = [m.content for conv in parsed.conversations for s in conv.sessions for m in s.messages if m.role == "user"]
    assert users and not any("->->" in text for text in users)
    cases = list(beam_cases(parsed, "100K"))
    assert [(c.case_id, c.kind, len(c.sessions), len(c.questions)) for c in cases] == \
        [(f"beam-100K-{n}", "beam", 3, 20) for n in (1, 2, 3)]


def test_abstention_ids_and_evidence_turns_point_at_the_cited_messages(beam_100k: Path) -> None:
    parsed = load_beam(beam_100k, "100K")
    checked = 0
    for conv in parsed.conversations:
        raw = raw_messages(beam_100k / conv.conversation_id)
        sessions = {s.session_id: s for s in conv.sessions}
        source = json.loads((beam_100k / conv.conversation_id / "probing_questions" / "probing_questions.json")
                            .read_text(encoding="utf-8"))
        for q in questions_of(conv, "100K", []):
            assert q.question_id.endswith("_abs") == (q.question_type == "abstention") == q.is_abstention
            index = int(q.question_id.rsplit("-", 1)[1].removesuffix("_abs"))
            cited = source[q.question_type][index].get("source_chat_ids")
            flat = [i for v in cited.values() for i in v] if isinstance(cited, dict) else list(cited or [])
            assert q.evidence["message_ids"] == list(dict.fromkeys(flat))  # list and dict forms, in order
            assert len(q.evidence["turns"]) == len(q.evidence["message_ids"]) and "dropped" not in q.evidence
            for mid, (session_id, turn) in zip(q.evidence["message_ids"], q.evidence["turns"], strict=True):
                message = sessions[session_id].messages[turn]
                original = raw[mid]
                assert message.role == original["role"]
                assert message.content == (MARKER.sub("", original["content"]) if original["role"] == "user"
                                           else original["content"])
                checked += 1
            assert q.answer_session_ids == tuple(dict.fromkeys(t[0] for t in q.evidence["turns"]))
    assert checked > 60
    forms = {type(json.loads((beam_100k / "1" / "probing_questions" / "probing_questions.json").read_text())
                  [a][0].get("source_chat_ids")).__name__ for a in ABILITIES}
    assert {"list", "dict"} <= forms  # both forms were exercised above


# --- layouts ----------------------------------------------------------------------------------

def test_every_layout_gives_the_same_questions(beam_100k: Path, tmp_path: Path) -> None:
    expected = comparable(all_questions(load_beam(beam_100k, "100K")))
    clone = tmp_path / "clone"
    for n in ("1", "2", "3"):
        (clone / "chats" / "100K").mkdir(parents=True, exist_ok=True)
        (clone / "chats" / "100K" / n).symlink_to(beam_100k / n, target_is_directory=True)
    assert comparable(all_questions(load_beam(clone, "100K"))) == expected           # the clone's root
    assert comparable(all_questions(load_beam(clone / "chats", "100K"))) == expected  # its chats/ folder
    rows = [hf_row(beam_100k / n) for n in ("1", "2", "3")]
    array = write_json(tmp_path / "beam_100k.json", rows)
    assert comparable(all_questions(load_beam(array, "100K"))) == expected            # an HF .json array
    lines = tmp_path / "beam_100k.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert comparable(all_questions(load_beam(lines, "100K"))) == expected            # HF .jsonl rows
    assert comparable(all_questions(load_beam(lines, "100K", ["2"]))) == \
        [q for q in expected if q[0].startswith("beam-100K-2-")]
    single = tmp_path / "one" / "2"
    shutil.copytree(beam_100k / "2", single)
    assert comparable(all_questions(load_beam(single, "100K"))) == \
        [q for q in expected if q[0].startswith("beam-100K-2-")]                     # one conversation's folder


def message(mid: int, role: str, text: str, anchor: str | None = None) -> dict[str, Any]:
    return {"role": role, "id": mid, "content": text, **({"time_anchor": anchor} if anchor else {})}


def plan(texts: list[str], anchor: str) -> list[dict[str, Any]]:
    """One plan of one batch, its message ids numbered from 0 as each 10M plan's are."""
    turns = [[message(2 * i, "user", f"{t} ->-> 1,{i if i else 'N/A'}", anchor if i == 0 else None),
              message(2 * i + 1, "assistant", f"noted {t}")] for i, t in enumerate(texts)]
    return [{"batch_number": 1, "time_anchor": None, "turns": turns}]


QUESTIONS: dict[str, Any] = {"information_extraction": [
    {"question": "Where?", "answer": "Lisbon", "rubric": ["LLM response should state: Lisbon"],
     "source_chat_ids": [5]}]}


def test_a_10m_chat_renumbers_later_plans_like_combine_10m_chats(tmp_path: Path) -> None:
    chat = [{"plan-1": plan(["alpha", "beta"], "January-02-2024")},
            {"plan-2": plan(["gamma", "moved to Lisbon"], "February-03-2024")}]  # ids 0..3 again
    folder = tmp_path / "10M" / "1"
    write_json(folder / "chat.json", chat)
    write_json(folder / "probing_questions" / "probing_questions.json", QUESTIONS)
    conv = load_beam(tmp_path, "10M").conversations[0]
    # plan 1 keeps ids 0..3; plan 2's are shifted by plan 1's last id (3) + 1 -> 4..7
    assert conv.places == {0: ("beam-1-b1", 0), 1: ("beam-1-b1", 1), 2: ("beam-1-b1", 2), 3: ("beam-1-b1", 3),
                           4: ("beam-1-b2", 0), 5: ("beam-1-b2", 1), 6: ("beam-1-b2", 2), 7: ("beam-1-b2", 3)}
    assert [s.date for s in conv.sessions] == ["2024/01/02 (Tue) 00:00", "2024/02/03 (Sat) 00:00"]
    (q,) = questions_of(conv, "10M", [])
    assert q.evidence["turns"] == [["beam-1-b2", 1]]
    assert conv.sessions[1].messages[1].content == "noted gamma"
    assert conv.sessions[1].messages[2].content == "moved to Lisbon"  # the marker stripped
    assert conv.sessions[0].messages[0].content == "alpha"  # "->-> 1,N/A" too


def test_an_evidence_id_naming_no_message_is_dropped_and_counted(tmp_path: Path) -> None:
    folder = tmp_path / "7"
    write_json(folder / "chat.json", plan(["alpha"], "March-01-2024"))
    write_json(folder / "probing_questions" / "probing_questions.json",
               {"information_extraction": [QUESTIONS["information_extraction"][0] | {"source_chat_ids": [1, 99]}]})
    dropped: list[dict[str, Any]] = []
    (q,) = questions_of(load_beam(folder, "100K").conversations[0], "100K", dropped)
    assert q.evidence["turns"] == [["beam-7-b1", 1]] and q.evidence["dropped"] == [99]
    assert dropped == [{"question_id": q.question_id, "ids": [99], "why": "names no message of the conversation"}]


# --- errors -----------------------------------------------------------------------------------

def broken(tmp_path: Path, *, chat: Any = None, question: dict[str, Any] | None = None) -> Path:
    folder = tmp_path / "5"
    write_json(folder / "chat.json", chat if chat is not None else plan(["alpha", "beta"], "March-01-2024"))
    item = {"question": "Where?", "answer": "Lisbon", "rubric": ["LLM response should state: Lisbon"],
            "source_chat_ids": [1]} | (question or {})
    write_json(folder / "probing_questions" / "probing_questions.json",
               {"information_extraction": [{k: v for k, v in item.items() if v is not None}]})
    return folder


@pytest.mark.parametrize(("change", "words"), [
    ({"question": {"rubric": None}}, ["probing_questions.information_extraction[0]", "`rubric`"]),
    ({"question": {"answer": None}}, ["probing_questions.information_extraction[0]", "no reference answer",
                                      "ideal_answer"]),
    ({"chat": [[{"role": "narrator", "id": 0, "content": "x"}]]}, ["chat batch 1 message 0", "`role`",
                                                                    "'narrator'"]),
], ids=["missing-rubric", "no-reference", "bad-role"])
def test_a_broken_conversation_names_the_file_and_field(tmp_path: Path, change: dict[str, Any],
                                                        words: list[str]) -> None:
    folder = broken(tmp_path, **change)
    with pytest.raises(DatasetError) as error:
        parsed = load_beam(folder, "100K")
        questions_of(parsed.conversations[0], "100K", [])
    assert str(folder) in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_a_wanted_conversation_that_is_absent_is_named(tmp_path: Path) -> None:
    broken(tmp_path)
    with pytest.raises(DatasetError, match=r"\[dataset\]\.chats: conversation\(s\) 99 not in .*; it holds 5"):
        load_beam(tmp_path, "100K", ["99"])  # [dataset] chats = [99], as plan() passes it
    rows = write_json(tmp_path / "rows.json", [{"conversation_id": "1", "chat": [], "probing_questions": {}}])
    with pytest.raises(DatasetError, match=r"conversation\(s\) 99 not in .*rows\.json"):
        load_beam(rows, "100K", ["99"])


def test_a_row_or_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    folder = broken(tmp_path)
    (folder / "chat.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"chat\.json: line 1 column 2: not JSON"):
        load_beam(folder, "100K")
    lines = tmp_path / "rows.jsonl"
    lines.write_text("\n{oops\n")
    with pytest.raises(DatasetError, match=r"rows\.jsonl: line 2: not JSON"):
        load_beam(lines, "100K")
    row = write_json(tmp_path / "row.json", [{"conversation_id": "1", "chat": "[[{'role': ", "probing_questions": "{}"}])
    with pytest.raises(DatasetError, match=r"row\.json: row 0: chat: neither JSON nor a Python literal"):
        load_beam(row, "100K")
    missing = write_json(tmp_path / "missing.json", [{"conversation_id": "1", "chat": []}])
    with pytest.raises(DatasetError, match=r"missing\.json: row 0 \(conversation 1\): missing field `probing_questions`"):
        load_beam(missing, "100K")
