"""The LoCoMo loader: samples become one case per conversation; every problem in a broken file is
listed with the sample, its id and the field; selection is by question and stratified by category."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarker.datasets.selection import select_question_ids
from benchmarker.errors import DatasetError
from benchmarker.suites.locomo.data import CATEGORY_NAMES, NOT_MENTIONED, load_locomo, locomo_date, select_locomo, turn_text

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_mini.json"


def test_the_fixture_becomes_two_cases_with_every_question():
    parsed = load_locomo(FIXTURE)
    assert [(c.case_id, c.kind, len(c.sessions), len(c.questions)) for c in parsed.cases] == \
        [("conv-26", "locomo", 3, 10), ("conv-30", "locomo", 2, 5)]
    assert parsed.dropped_evidence == 1  # D9:99 names no turn
    case = parsed.cases[0]
    assert [s.session_id for s in case.sessions] == ["session_1", "session_2", "session_3"]
    assert case.sessions[0].date == "2023/05/08 (Mon) 13:56"
    assert {m.role for s in case.sessions for m in s.messages} == {"Caroline", "Melanie"}
    assert case.metadata["speakers"] == ["Caroline", "Melanie"]
    questions = {q.question_id: q for q in case.questions}
    assert questions["conv-26-q003"].answer == "3"  # numbers become text
    assert questions["conv-26-q005"].evidence["turns"] == [["session_1", 4], ["session_2", 1]]  # "D1:5; D2:2"
    adversarial = questions["conv-26-q009_abs"]
    assert adversarial.is_abstention and adversarial.answer == NOT_MENTIONED
    assert adversarial.rubric == {"adversarial_answer": "violin"} and adversarial.question_type == "adversarial"
    assert all(q.question_date == "2023/06/09 (Fri) 19:55" for q in case.questions)  # the last session's date


def test_dates_photos_and_categories():
    assert locomo_date("1:56 pm on 8 May, 2023") == "2023/05/08 (Mon) 13:56"
    assert locomo_date("10:04 am on 1 Jan, 2024") == "2024/01/01 (Mon) 10:04"
    assert locomo_date("sometime in spring") == "sometime in spring"  # kept as written
    assert turn_text({"text": "Look!", "blip_caption": "a photo of a cake"}) == "Look! [shared a photo: a photo of a cake]"
    assert turn_text({"text": "", "blip_caption": "a dog"}) == "[shared a photo: a dog]"
    assert CATEGORY_NAMES == {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def test_a_broken_file_lists_every_problem_with_sample_id_and_field(tmp_path):
    good = json.loads(FIXTURE.read_text())
    broken = [
        good[0] | {"qa": [{"question": "q?", "category": 7}, {"question": "q?", "category": 4}]},
        {"sample_id": "conv-x", "conversation": {"speaker_a": "A", "speaker_b": "",
                                                 "session_1": [{"speaker": "A", "dia_id": "D1:1"}]}, "qa": []},
        "not a sample",
        good[1] | {"sample_id": "conv-26"},
    ]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(DatasetError) as err:
        load_locomo(path)
    text = str(err.value)
    assert "6 problem(s)" in text
    for expected in ("sample 0 (conv-26) qa[0]: category 7 is not one of 1-5",
                     "sample 0 (conv-26) qa[1]: category 4 needs an answer",
                     "sample 1 (conv-x): conversation needs speaker_a and speaker_b",
                     "sample 1 (conv-x): session_1_date_time is missing",
                     "sample 2: expected an object, got str",
                     "sample 3 (conv-26): sample_id repeated"):
        assert expected in text


@pytest.mark.parametrize("content, message", [
    (b"{}", "non-empty JSON list"), (b"[]", "(empty)"), (b"[1,", "not valid JSON"), (b"\xff[]", "not UTF-8")])
def test_not_a_locomo_file(tmp_path, content, message):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(DatasetError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_locomo(path)


def test_selection_keeps_only_chosen_questions_and_skips_conversations_without_any():
    parsed = load_locomo(FIXTURE)
    wanted = set(select_question_ids(parsed.index(), question_types=["adversarial"]))
    cases = list(select_locomo(parsed, wanted))
    assert [(c.case_id, [q.question_id for q in c.questions]) for c in cases] == [
        ("conv-26", ["conv-26-q009_abs", "conv-26-q010_abs"]), ("conv-30", ["conv-30-q005_abs"])]
    sampled = set(select_question_ids(parsed.index(), sample=5, sample_seed=3))
    types = {q.question_type for c in parsed.cases for q in c.questions if q.question_id in sampled}
    assert len(sampled) == 5 and len(types) == 5  # stratified: one of each category


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40)), max_size=6), st.sampled_from(["; ", ", ", " "]))
def test_evidence_ids_are_found_however_they_are_joined(pairs, separator):
    from benchmarker.suites.locomo.evidence import parse_evidence

    text = separator.join(f"D{n}:{i}" for n, i in pairs)
    assert parse_evidence([text]).ids == list(dict.fromkeys(pairs))
