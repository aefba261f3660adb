"""`errata derive PUBLISHED CORRECTED --out FILE`: one line per changed field, quotes left for the user, who must
fill them before a run accepts the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.errata.check import check_errata
from benchmarker.errors import UserError
from benchmarker.suites.locomo.errata import locomo_gold
from benchmarker.suites.longmemeval.errata import longmemeval_gold
from benchmarker.suites.sample.data import write_sample
from tests.errata.test_errata_check import FIXTURE


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_derive_from_a_corrected_locomo_copy_leaves_quotes_that_the_check_then_requires(tmp_path, capsys):
    data = json.loads(FIXTURE.read_text())
    data[1]["qa"][1]["answer"] = "They lost their jobs"
    data[0]["qa"][0]["category"] = 4
    data[0]["qa"][1]["evidence"] = ["D2:2", "D1:5"]
    (tmp_path / "corrected.json").write_text(json.dumps(data))
    out = tmp_path / "errata.jsonl"
    assert main(["errata", "derive", str(FIXTURE), str(tmp_path / "corrected.json"), "--out", str(out),
                 "--source", "https://example.org/corrected"]) == 0
    assert "wrote 3 correction(s)" in capsys.readouterr().out
    got = lines(out)
    assert [(g["question_id"], g["field"], g["published"], g["corrected"]) for g in got] == [
        ("conv-26-q001", "category", "2", "4"), ("conv-26-q002", "evidence", ["D2:2"], ["D1:5", "D2:2"]),
        ("conv-30-q002", "answer", "They lost their jobs and started their own businesses", "They lost their jobs")]
    assert all(g["quote"] == "" and g["turn"] == "" and g["source"] == "https://example.org/corrected" for g in got)
    got[0]["turn"] = "D1:3"
    out.write_text("".join(json.dumps(g) + "\n" for g in got))
    with pytest.raises(UserError, match=r"errata\.jsonl:1: quote is empty"):
        check_errata(out, locomo_gold(FIXTURE))
    got[0]["quote"], got[1]["turn"], got[1]["quote"] = "support group", "D1:5", "studying counseling"
    got[2]["turn"], got[2]["quote"] = "D1:1", "lost my job"
    out.write_text("".join(json.dumps(g) + "\n" for g in got))
    assert len(check_errata(out, locomo_gold(FIXTURE)).corrections) == 3   # filled in, the file is accepted


def test_derive_reads_longmemeval_files_too(tmp_path, capsys):
    published = tmp_path / "lme.json"
    write_sample(published, seed=3, questions_per_type=1, sessions_per_question=3)
    data = json.loads(published.read_text())
    item = next(i for i in data if not i["question_id"].endswith("_abs"))
    item["answer"], item["question_type"] = "a corrected answer", (
        "multi-session" if item["question_type"] != "multi-session" else "knowledge-update")
    (tmp_path / "fixed.json").write_text(json.dumps(data))
    out = tmp_path / "e.jsonl"
    assert main(["errata", "derive", str(published), str(tmp_path / "fixed.json"), "--out", str(out)]) == 0
    assert {(g["question_id"], g["field"]) for g in lines(out)} == {(item["question_id"], "answer"),
                                                                   (item["question_id"], "category")}
    with pytest.raises(UserError, match=r"e\.jsonl:1: turn is empty"):
        check_errata(out, longmemeval_gold(published, None))


def test_derive_refuses_a_file_no_suite_reads(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{}")
    assert main(["errata", "derive", str(tmp_path / "x.json"), str(tmp_path / "x.json"), "--out",
                 str(tmp_path / "o.jsonl")]) == 2
    assert "not a dataset any of" in capsys.readouterr().err
