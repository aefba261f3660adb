"""A data file given for the wrong `[dataset] kind` fails with one line naming the kind it looks like (a LongMemEval
file given as LoCoMo said "sample 0: missing sample_id" for every record)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.errors import DatasetError
from benchmarker.suites.beam.data import load_beam
from benchmarker.suites.locomo.data import load_locomo
from benchmarker.suites.longmemeval.data import scan_question_index
from benchmarker.suites.sample.data import write_sample

LOCOMO = Path(__file__).parent / "fixtures" / "locomo_mini.json"


@pytest.fixture
def longmemeval(tmp_path: Path) -> Path:
    path = tmp_path / "longmemeval_s.json"
    write_sample(path, questions_per_type=1)
    return path


def one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text and "missing sample_id" not in text
    return text


def test_a_longmemeval_file_given_as_locomo_names_longmemeval(longmemeval):
    with pytest.raises(DatasetError) as err:
        load_locomo(longmemeval)
    assert one_line(err) == (f'{longmemeval}: this looks like a LongMemEval file, not a LoCoMo one; set [dataset] kind = '
                             '"longmemeval" and name the file in the top-level `dataset_file`')


def test_a_locomo_file_given_as_longmemeval_or_beam_names_locomo(tmp_path):
    with pytest.raises(DatasetError) as err:
        scan_question_index(LOCOMO)
    assert 'this looks like a LoCoMo file, not a LongMemEval one; set [dataset] kind = "locomo"' in one_line(err)
    with pytest.raises(DatasetError) as err:
        load_beam(LOCOMO, "100K")
    assert "this looks like a LoCoMo file, not a BEAM (Hugging Face export) one" in one_line(err)


def test_a_beam_export_given_as_locomo_names_beam(tmp_path):
    path = tmp_path / "beam.json"
    path.write_text(json.dumps([{"conversation_id": "1", "chat": "[]", "probing_questions": "{}"}]), encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_locomo(path)
    assert 'set [dataset] kind = "beam"' in one_line(err)


def test_a_file_of_its_own_kind_keeps_its_field_errors(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps([{"conversation": {}, "qa": []}]), encoding="utf-8")   # LoCoMo, without sample_id
    with pytest.raises(DatasetError, match="sample 0: missing sample_id"):
        load_locomo(path)


def test_the_cli_says_it_in_one_line_with_exit_2(tmp_path, longmemeval, capsys):
    config = tmp_path / "wrong.toml"
    config.write_text(f'[dataset]\nkind = "locomo"\nfile = "{longmemeval}"\n[run]\noutput_dir = "runs"\n', encoding="utf-8")
    assert main(["estimate", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "this looks like a LongMemEval file" in err and "Traceback" not in err
