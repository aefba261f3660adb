"""Bad input found in hardening round 3 (issue 36, 8): each is exit 2 with one line naming the file, the line
or the key, never a traceback; and the calibration's figures say "undefined" where kappa is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.errors import ConfigError, UserError
from benchmarker.verbs.calibrate import check_out_folder
from benchmarker.scoring.calibration.agreement import kappa
from benchmarker.scoring.calibration.labels import Gold, read_labels


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_config_nested_thousands_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="nested too deeply"):
        load_config(path)
    assert main(["run", str(path)]) == 2 and "nested too deeply" in _one_error_line(capsys)


def _run_dir(tmp_path: Path, manifest: str, results: list[dict]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(manifest, encoding="utf-8")
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    return run


def test_report_on_an_unparsable_manifest_is_one_line(tmp_path, capsys):
    run = _run_dir(tmp_path, "{bad", [])
    assert main(["report", str(run)]) == 2
    assert f"{run / 'manifest.json'}: not valid JSON" in _one_error_line(capsys)


def test_report_and_compare_on_a_damaged_results_line_name_the_line_and_key(tmp_path, capsys):
    good = {"question_id": "q1", "question_type": "single-session-user", "label": True, "retrieved": []}
    run = _run_dir(tmp_path, '{"run_id": "run"}', [good, {**good, "question_id": "q2", "retrieved": "zzz"}])
    assert main(["report", str(run)]) == 2
    line = _one_error_line(capsys)
    assert f"{run / 'results.jsonl'}:2: `retrieved` is a string, expected an array" in line
    assert main(["compare", str(run), str(run)]) == 2 and "`retrieved` is a string" in _one_error_line(capsys)


def test_compare_out_a_folder_is_refused_and_leaves_nothing(tmp_path, capsys):
    good = {"question_id": "q1", "question_type": "single-session-user", "label": True, "retrieved": []}
    run = _run_dir(tmp_path, '{"run_id": "run"}', [good])
    out = tmp_path / "out.md"   # a name compare accepts, naming a folder
    out.mkdir()
    assert main(["compare", str(run), str(run), "--out", str(out)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.tmp")) and list(out.iterdir()) == []


@pytest.mark.parametrize("out", ["a-file", "/dev/null", "/proc/x"])
def test_calibrate_out_must_be_a_folder_it_can_make(tmp_path, out):
    path = tmp_path / out if out == "a-file" else Path(out)
    if out == "a-file":
        path.write_text("", encoding="utf-8")
    with pytest.raises(UserError, match=r"calibrate --out .*(not a folder|cannot create)"):
        check_out_folder(path)


def test_a_million_unknown_ids_is_a_short_error_and_bad_bytes_are_named(tmp_path):
    labels = tmp_path / "labels.jsonl"
    rows = [json.dumps({"question_id": f"q{i}", "hypothesis": "h", "label": True}) for i in range(5000)]
    labels.write_bytes(("\n".join(rows) + "\n").encode() + b'{"question_id": "x\xff", "hypothesis": "h", "label": true}\n')
    gold = {"known": Gold("known", "single-session-user", "q?", "a")}
    with pytest.raises(UserError) as info:
        read_labels([labels], gold)
    text = str(info.value)
    assert text.startswith("5001 problem(s)") and "... and 4981 more like these" in text and len(text) < 3000
    labels.write_bytes(b'{"question_id": "known", "hypothesis": "caf\xe9", "label": true}\n')
    with pytest.raises(UserError, match=r"labels.jsonl:1: not UTF-8 \(bad byte at column 44\)"):
        read_labels([labels], gold)


def test_kappa_is_undefined_when_a_rater_never_varies():
    assert kappa([True] * 5, [True, False, True, True, False]) is None
    assert kappa([True, False, True, False], [True] * 4) is None
    assert kappa([True, False, True, False], [True, False, False, False]) == pytest.approx(0.5)


def test_a_sweep_value_twice_and_accuracy_without_an_eval_phase_are_config_errors(tmp_path):
    twice = tmp_path / "twice.toml"
    twice.write_text("[sweep]\nalpha = [0.0, 0.0]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[sweep\].alpha: .*duplicate values 0.0"):
        load_config(twice)
    unjudged = tmp_path / "unjudged.toml"
    unjudged.write_text('[run]\nphases = ["ingest", "qa"]\n[sweep]\nmetric = "accuracy"\ntop_k = [5, 10]\n',
                        encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[sweep\].metric: .*judges none"):
        load_config(unjudged)
