"""The streaming LongMemEval loader: real data, ordering, selection, and precise errors."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarker.errors import DatasetError
from benchmarker.datasets.source import dataset_sha256
from benchmarker.suites.longmemeval.data import (
    find_longmemeval_file,
    iter_longmemeval,
    parse_date,
    scan_question_index,
    validate_longmemeval,
)
from tests.shared_data import REAL_5Q

REAL = REAL_5Q


def instance(qid: str = "q1", **over: Any) -> dict[str, Any]:
    base = {
        "question_id": qid, "question_type": "multi-session", "question": "How many?",
        "answer": 3, "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_dates": ["2023/05/21 (Sun) 10:00", "2023/05/20 (Sat) 09:00",
                           "2023/05/21 (Sun) 10:00"],
        "haystack_session_ids": ["b", "a", "c"],
        "haystack_sessions": [
            [{"role": "user", "content": "second", "has_answer": True},
             {"role": "assistant", "content": "ok"}],
            [{"role": "user", "content": "first"}],
            [],
        ],
        "answer_session_ids": ["b"],
    }
    base.update(over)
    return base


def write(tmp_path: Path, items: Any, name: str = "data.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(items, indent=2))
    return path


@pytest.fixture
def real() -> Path:
    if not REAL.exists():
        pytest.skip(f"{REAL} not present")
    return REAL


def test_real_sample_parses_in_date_order(real: Path) -> None:
    raw = json.loads(real.read_text())
    cases = list(iter_longmemeval(real))
    assert [c.case_id for c in cases] == [r["question_id"] for r in raw]
    for case, source in zip(cases, raw):
        assert case.kind == "longmemeval" and len(case.questions) == 1
        assert len(case.sessions) == len(source["haystack_sessions"])
        assert case.message_count == sum(len(s) for s in source["haystack_sessions"])
        keys = [parse_date(s.date) for s in case.sessions]
        assert keys == sorted(keys)
        question = case.questions[0]
        assert question.answer == str(source["answer"])
        assert question.answer_session_ids == tuple(source["answer_session_ids"])
        by_id = {s.session_id: s for s in case.sessions}
        if not question.is_abstention:
            assert all(any(m.has_answer for m in by_id[sid].messages)
                       for sid in question.answer_session_ids)
    assert cases[1].questions[0].answer == "3"  # int answer in the real file
    assert cases[-1].questions[0].is_abstention


def test_real_scan_index_and_only_ids(real: Path) -> None:
    index = scan_question_index(real)
    assert index[0] == ("e47becba", "single-session-user") and len(index) == 5
    picked = [c.case_id for c in iter_longmemeval(real, only_ids={"6a1eabeb", "0862e8bf_abs"})]
    assert picked == ["6a1eabeb", "0862e8bf_abs"]
    assert [c.metadata["index"] for c in iter_longmemeval(real, only_ids={"6a1eabeb"})] == [2]


def test_sessions_sorted_stably_with_ids_and_dates(tmp_path: Path) -> None:
    (case,) = iter_longmemeval(write(tmp_path, [instance()]))
    assert [s.session_id for s in case.sessions] == ["a", "b", "c"]  # b before c: same minute
    assert case.sessions[0].date == "2023/05/20 (Sat) 09:00"
    assert case.sessions[1].messages[0].has_answer is True
    assert case.sessions[1].messages[1].has_answer is False  # missing -> False
    assert case.sessions[2].messages == ()
    assert case.questions[0].answer == "3" and case.metadata == {"index": 0}


def test_only_ids_any_key_order(tmp_path: Path) -> None:
    items = []
    for i in range(4):
        item = instance(f"q{i}")
        items.append({k: item[k] for k in reversed(list(item))})  # question_id last
    path = write(tmp_path, items)
    assert [c.case_id for c in iter_longmemeval(path, only_ids={"q2", "q0"})] == ["q0", "q2"]
    assert [c.metadata["index"] for c in iter_longmemeval(path, only_ids={"q3"})] == [3]
    assert list(iter_longmemeval(path, only_ids=set())) == []


def test_only_ids_stops_reading_after_the_last_wanted(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    good = json.dumps([instance("q0"), instance("q1")], indent=2)
    path.write_text(good[:-1].rstrip() + ', {"question_id": "q2", "haystack_sessions": [[')
    assert [c.case_id for c in iter_longmemeval(path, only_ids={"q1"})] == ["q1"]
    with pytest.raises(DatasetError, match="truncated"):
        list(iter_longmemeval(path))


def test_only_ids_unknown_id_is_reported(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="nope"):
        list(iter_longmemeval(write(tmp_path, [instance()]), only_ids={"q1", "nope"}))


def _broken(field: str, value: Any) -> dict[str, Any]:
    item = instance("bad")
    target: Any = item
    *parents, last = field.split("/")
    for part in parents:
        target = target[int(part) if part.isdigit() else part]
    if value is KeyError:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return item


MALFORMED = {
    "missing field": ("answer_session_ids", KeyError, "answer_session_ids", "missing"),
    "question_id not a string": ("question_id", 7, "question_id", "a string"),
    "unknown type": ("question_type", "multi", "question_type", "one of"),
    "answer list": ("answer", ["x"], "answer", "a string or a number"),
    "bad question date": ("question_date", "yesterday", "question_date", "2023/05/20"),
    "bad session date": ("haystack_dates/1", "2023-05-20", "haystack_dates[1]", "2023/05/20"),
    "length mismatch": ("haystack_session_ids", ["a", "b"], "haystack_sessions", "2 ids"),
    "unknown role": ("haystack_sessions/0/1/role", "system", "haystack_sessions[0][1].role",
                     '"user" or "assistant"'),
    "missing content": ("haystack_sessions/1/0/content", KeyError,
                        "haystack_sessions[1][0].content", "missing"),
    "has_answer string": ("haystack_sessions/0/0/has_answer", "yes",
                          "haystack_sessions[0][0].has_answer", "true or false"),
    "session not a list": ("haystack_sessions/2", {"role": "user"}, "haystack_sessions[2]",
                           "a list of messages"),
    "ids not strings": ("answer_session_ids", [1], "answer_session_ids", "a list of strings"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_instance_names_file_index_id_and_field(tmp_path: Path, name: str) -> None:
    field, value, shown, expected = MALFORMED[name]
    path = write(tmp_path, [instance("ok"), _broken(field, value)])
    with pytest.raises(DatasetError) as info:
        list(iter_longmemeval(path))
    message = str(info.value)
    assert str(path) in message and "instance 1" in message
    assert f"`{shown}`" in message and expected in message
    if field != "question_id":
        assert "'bad'" in message


def test_non_object_instance_and_non_array_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="instance 1.*JSON object"):
        list(iter_longmemeval(write(tmp_path, [instance(), 5])))
    with pytest.raises(DatasetError, match="instance 1.*JSON object"):
        list(iter_longmemeval(write(tmp_path, [instance(), [1]]), only_ids={"q1", "x"}))
    with pytest.raises(DatasetError, match="JSON array"):
        list(iter_longmemeval(write(tmp_path, {"question_id": "x"})))
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(DatasetError, match="empty"):
        list(iter_longmemeval(tmp_path / "empty.json"))


def test_truncated_and_corrupt_files_name_offset_and_index(tmp_path: Path) -> None:
    text = json.dumps([instance("q0"), instance("q1")])
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) - 40])
    with pytest.raises(DatasetError) as info:
        list(iter_longmemeval(path))
    assert "byte" in str(info.value) and "instance 1" in str(info.value)
    path.write_text(text.replace('"answer": 3', '"answer": tru', 1))
    with pytest.raises(DatasetError, match="instance 0"):
        list(iter_longmemeval(path))
    with pytest.raises(DatasetError, match="instance 0"):
        scan_question_index(path)


def test_duplicate_question_ids_rejected(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="repeats instance 0"):
        list(iter_longmemeval(write(tmp_path, [instance("q"), instance("q")])))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="cannot open"):
        list(iter_longmemeval(tmp_path / "none.json"))


def test_scan_question_index(tmp_path: Path) -> None:
    items = [instance("a"), instance("b_abs", question_type="temporal-reasoning")]
    assert scan_question_index(write(tmp_path, items)) == [
        ("a", "multi-session"), ("b_abs", "temporal-reasoning")]
    bad = copy.deepcopy(items)
    del bad[1]["question_id"]
    with pytest.raises(DatasetError, match="instance 1.*question_id"):
        scan_question_index(write(tmp_path, bad))


def test_float_answers_and_dates() -> None:
    assert parse_date("2023/05/20 (Sat) 02:21").isoformat() == "2023-05-20T02:21:00"
    assert parse_date("2023/02/30 (Thu) 02:21") is None
    assert parse_date("20 May 2023") is None


def test_float_answer_kept(tmp_path: Path) -> None:
    (case,) = iter_longmemeval(write(tmp_path, [instance(answer=2.5)]))
    assert case.questions[0].answer == "2.5"


def test_sha256_streams(tmp_path: Path) -> None:
    path = write(tmp_path, [instance()])
    assert dataset_sha256(path, chunk_size=7) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_find_file_prefers_cleaned(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "longmemeval_s.json").write_text("[]")
    assert find_longmemeval_file(tmp_path, "s")[0] == tmp_path / "data" / "longmemeval_s.json"
    (tmp_path / "longmemeval_s_cleaned.json").write_text("[]")
    (tmp_path / "data" / "longmemeval_s_cleaned.json").write_text("[]")
    found, tried = find_longmemeval_file(tmp_path, "s")
    assert found == tmp_path / "data" / "longmemeval_s_cleaned.json" and len(tried) == 4


@pytest.mark.parametrize("data, expected", [
    (b"[]", "holds no instances"),
    (b"[1]", "instance 0 (0-based): field `(instance)`: expected a JSON object"),
    (b"[null]", "expected a JSON object"),
    (b"[[]]", "expected a JSON object"),
    (b'[{"question_id": "q", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}]", "nested deeper than 32 levels"),
    (b'[{"question_id": {"a": 1}, "question_type": "x"}]', "field `question_id`: expected a non-empty string"),
])
def test_the_index_pass_refuses_what_no_later_pass_should_meet(tmp_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(DatasetError, match=re.escape(expected)):
        scan_question_index(path)


def test_the_index_pass_refuses_a_repeated_id_even_before_selection(tmp_path: Path) -> None:
    path = write(tmp_path, [instance("q1"), instance("q2"), instance("q1")])
    with pytest.raises(DatasetError, match="instance 2: question_id 'q1' repeats instance 0"):
        scan_question_index(path)


def test_invalid_utf8_is_a_dataset_error(tmp_path: Path) -> None:
    good = json.dumps([instance("q1")]).encode()
    path = tmp_path / "overlong.json"
    path.write_bytes(good.replace(b'"second"', b'"sec\xc0\xafond"'))
    with pytest.raises(DatasetError, match="not valid UTF-8"):
        validate_longmemeval(path)


@pytest.mark.parametrize("escape, ok", [(rb"\ud800", False), (rb"\udc00x", False), (rb"\ud83d\ude00", True),
                                         (rb"\\ud800", True)])
def test_lone_surrogate_escapes_are_refused_pairs_kept(tmp_path: Path, escape: bytes, ok: bool) -> None:
    good = json.dumps([instance("q1")]).encode()
    path = tmp_path / "s.json"
    path.write_bytes(good.replace(b'"second"', b'"sec' + escape + b'ond"'))
    if ok:
        assert validate_longmemeval(path) == 1
    else:
        with pytest.raises(DatasetError, match="lone UTF-16 surrogate escape"):
            validate_longmemeval(path)


def test_a_surrogate_pair_split_across_read_chunks_is_not_refused(tmp_path: Path) -> None:
    from benchmarker.suites.longmemeval.data import _SurrogateCheckingReader

    data = b'"' + b"x" * 1000 + rb"\ud83d\ude00" + b'"'
    for size in range(1, 40):  # every split point of the pair
        reader = _SurrogateCheckingReader(io.BytesIO(data))
        assert b"".join(iter(lambda: reader.read(size), b"")) == data
