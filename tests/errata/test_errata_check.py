"""`[dataset] errata`: each line is checked against the dataset (published value, question, field, the quote in the
cited turn); a bad line is refused naming FILE:LINE; the run id hashes the file's bytes, not its path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.errata.check import check_errata
from benchmarker.errors import UserError
from benchmarker.suites.locomo.errata import locomo_gold
from benchmarker.suites.longmemeval.errata import longmemeval_gold
from benchmarker.suites.sample.data import write_sample

FIXTURE = Path(__file__).parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"
# conv-30's turn D1:1 is Jon's "Hi Gina, I lost my job as a banker last week."
GOOD = {"question_id": "conv-30-q002", "field": "answer",
        "published": "They lost their jobs and started their own businesses", "corrected": "They lost their jobs",
        "turn": "D1:1", "quote": "I lost my job as a banker", "source": "https://example.org/errata/conv-30-q002"}


def write_errata(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def refusal(tmp_path: Path, *lines: dict) -> str:
    with pytest.raises(UserError) as err:
        check_errata(write_errata(tmp_path / "e.jsonl", *lines), locomo_gold(FIXTURE))
    return str(err.value)


def test_a_correction_with_a_real_quote_is_accepted_with_the_fields_it_sets(tmp_path):
    moved = {**GOOD, "question_id": "conv-26-q001", "field": "category", "published": 2, "corrected": "4",
             "turn": "D1:3", "quote": "  an LGBTQ\nSUPPORT group "}   # whitespace and case aside
    evidence = {**GOOD, "question_id": "conv-26-q005", "field": "evidence", "published": ["D1:5; D2:2"],
                "corrected": ["D1:5"], "turn": "D1:5", "quote": "studying counseling"}
    errata = check_errata(write_errata(tmp_path / "e.jsonl", GOOD, moved, evidence), locomo_gold(FIXTURE))
    assert errata.corrections["conv-30-q002"][0]["fields"] == {"answer": "They lost their jobs"}
    assert errata.corrections["conv-26-q001"][0]["fields"] == {"question_type": "single-hop", "category": "4"}
    assert errata.corrections["conv-26-q005"][0]["fields"] == {"evidence_turns": [["session_1", 4]],
                                                               "answer_session_ids": ["session_1"]}


@pytest.mark.parametrize(("change", "problem"), [
    ({"quote": "I lost my job as a dancer"}, 'quote "I lost my job as a dancer" is not in turn D1:1 of conv-30'),
    ({"quote": ""}, "quote is empty"),
    ({"turn": "D1:9"}, 'turn "D1:9" is not a turn of conv-30'),
    ({"published": "They lost their jobs"}, "does not match the dataset's"),
    ({"question_id": "conv-30-q099"}, 'question_id "conv-30-q099" is not a question of the dataset'),
    ({"field": "question"}, 'field "question" is not one of answer, evidence, category'),
    ({"source": "see the paper"}, "is not an http(s) URL"),
    ({"question_id": "conv-30-q005_abs", "published": "Not mentioned in the conversation."}, "abstention question"),
])
def test_a_bad_line_is_refused_naming_the_file_and_line(tmp_path, change, problem):
    first = {**GOOD, "question_id": "conv-26-q004", "published": "a lake sunrise", "corrected": "a sunrise",
             "turn": "D1:4", "quote": "painted a lake sunrise"}
    message = refusal(tmp_path, first, GOOD | change)
    assert message.startswith(f"{tmp_path / 'e.jsonl'}:2: ") and problem in message and "\n" not in message


def test_a_second_correction_of_one_field_and_a_line_that_is_not_json_are_refused(tmp_path):
    assert ":2: a second correction of conv-30-q002's answer" in refusal(tmp_path, GOOD, GOOD)
    (tmp_path / "e.jsonl").write_text(json.dumps(GOOD) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"e\.jsonl:2: not a JSON object"):
        check_errata(tmp_path / "e.jsonl", locomo_gold(FIXTURE))


def test_longmemeval_corrections_cite_session_turns(tmp_path):
    data = tmp_path / "lme.json"
    write_sample(data, seed=1, questions_per_type=1, sessions_per_question=3)
    raw = json.loads(data.read_text())
    item = next(i for i in raw if not i["question_id"].endswith("_abs"))
    session, turns = next((sid, s) for sid, s in zip(item["haystack_session_ids"], item["haystack_sessions"],
                                                     strict=True) if sid in item["answer_session_ids"])
    line = {"question_id": item["question_id"], "field": "answer", "published": item["answer"], "corrected": "x y z",
            "turn": f"{session}:0", "quote": turns[0]["content"][:30], "source": "https://example.org/lme"}
    gold = longmemeval_gold(data, {item["question_id"]})
    assert check_errata(write_errata(tmp_path / "e.jsonl", line), gold).corrections[item["question_id"]]
    with pytest.raises(UserError, match=r"e\.jsonl:1: turn .* is not a turn of"):
        check_errata(write_errata(tmp_path / "e.jsonl", line | {"turn": f"{session}:999"}), gold)


def config(tmp_path: Path, errata: str = "", name: str = "run") -> Path:
    path = tmp_path / f"{name}.toml"
    extra = f'errata = "{errata}"\n' if errata else ""
    path.write_text(f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"\n{extra}[run]\noutput_dir = "runs"\n'
                    'progress = false\n', encoding="utf-8")
    return path


def test_the_run_id_hashes_the_errata_bytes_not_the_path_and_is_unchanged_without_errata(tmp_path):
    write_errata(tmp_path / "a.jsonl", GOOD)
    (tmp_path / "moved").mkdir()
    write_errata(tmp_path / "moved" / "b.jsonl", GOOD)
    plain = load_config(config(tmp_path)).run_id
    with_errata = load_config(config(tmp_path, "a.jsonl")).run_id
    assert with_errata != plain
    assert load_config(config(tmp_path, "moved/b.jsonl")).run_id == with_errata   # same corrections, same run
    write_errata(tmp_path / "a.jsonl", GOOD | {"corrected": "They both lost their jobs"})
    assert load_config(config(tmp_path, "a.jsonl")).run_id not in (plain, with_errata)
    assert load_config(config(tmp_path, "a.jsonl")).dataset.errata == str(tmp_path / "a.jsonl")


def test_config_refuses_a_missing_errata_file_and_a_kind_without_gold(tmp_path):
    with pytest.raises(UserError, match=r"\[dataset\]\.errata: file not found: .*nowhere\.jsonl"):
        load_config(config(tmp_path, "nowhere.jsonl"))
    write_errata(tmp_path / "a.jsonl", GOOD)
    path = tmp_path / "levels.toml"
    path.write_text('[dataset]\nkind = "levels"\nerrata = "a.jsonl"\n', encoding="utf-8")
    with pytest.raises(UserError, match=r'\[dataset\]\.errata: corrects the gold of kinds .*"locomo".*kind is "levels"'):
        load_config(path)


def test_a_run_with_a_wrong_quote_stops_before_any_work_naming_the_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_errata(tmp_path / "a.jsonl", GOOD, GOOD | {"question_id": "conv-26-q004", "published": "a lake sunrise",
                                                     "turn": "D1:4", "quote": "I painted a sunset"})
    assert main(["run", str(config(tmp_path, "a.jsonl"))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f'error: {tmp_path / "a.jsonl"}:2: quote "I painted a sunset" is not in turn D1:4 of conv-26')
    assert not list((tmp_path / "runs").glob("*/results.jsonl"))
