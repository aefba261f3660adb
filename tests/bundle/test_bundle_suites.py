"""export -> verify on offline LoCoMo (with its oracle/ and baselines/ folders) and BEAM runs: every number of
their summaries, the suites' own blocks included, re-derived from the lines; a tampered LoCoMo F1 is caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.bundle.tamper import json_edit, members, repack
from tests.once import built_once
from tests.suites.beam.conftest import BEAM_100K

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("bundle_suites")]

LOCOMO = Path(__file__).parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"


def _run(base: Path, dataset: str) -> Path:
    config = base / "run.toml"
    config.write_text(f'{dataset}\n[provider]\ntype = "offline"\n[run]\nmode = "agent"\nconcurrency = 2\n'
                      f'progress = false\noutput_dir = "{base / "runs"}"\n[memory]\nembedder = "static"\n',
                      encoding="utf-8")
    assert main(["run", str(config)]) == 0
    (found,) = (base / "runs").glob("*")
    return found


@pytest.fixture(scope="module")
def locomo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = _run(tmp_path_factory.mktemp("locomo"), f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO}"')
    assert main(["oracle", str(run)]) == 0
    assert main(["baselines", str(run)]) == 0
    return run


def export_and_verify(run: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    assert main(["export", str(run), "--out", str(out)]) == 0
    capsys.readouterr()
    code = main(["verify", str(out), *extra])
    return code, capsys.readouterr().out.strip().splitlines()


def test_a_locomo_run_with_oracle_and_baselines_round_trips(locomo_run, tmp_path, capsys) -> None:
    code, lines = export_and_verify(locomo_run, tmp_path / "locomo.tar.gz", capsys, "--dataset", str(LOCOMO))
    assert code == 0 and lines[-1] == "VERIFIED", lines
    assert any("oracle/summary.json" in line for line in lines)
    assert any("oracle / baseline figures" in line for line in lines)
    files = json.loads(members(tmp_path / "locomo.tar.gz")["bundle.json"])["files"]
    assert any(n.startswith("baselines/no_memory/") for n in files) and "oracle/results.jsonl" in files


def test_a_tampered_locomo_f1_is_caught(locomo_run, tmp_path, capsys) -> None:
    bundle = tmp_path / "locomo.tar.gz"
    assert main(["export", str(locomo_run), "--out", str(bundle)]) == 0

    def edit(summary: dict) -> None:
        summary["locomo"]["overall"]["f1"]["mean"] += 0.02
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"summary.json": json_edit(edit)})
    capsys.readouterr()
    assert main(["verify", str(tampered)]) == 6
    assert "locomo/overall/f1/mean" in capsys.readouterr().out


def test_a_beam_run_round_trips_and_its_headline_is_checked(tmp_path_factory, tmp_path, capsys) -> None:
    if not (BEAM_100K / "1" / "chat.json").is_file():
        pytest.skip(f"the shared BEAM sample is absent ({BEAM_100K})")
    run = built_once("bundle-beam-run", lambda: _run(tmp_path_factory.mktemp("beam"),
                                                     f'[dataset]\nkind = "beam"\nfile = "{BEAM_100K}"\nsize = "100K"'))
    code, lines = export_and_verify(run, tmp_path / "beam.tar.gz", capsys)
    assert code == 0 and lines[-1] == "VERIFIED", lines

    def edit(summary: dict) -> None:
        summary["beam"]["overall"]["mean_over_abilities"] += 0.01
    tampered = repack(tmp_path / "beam.tar.gz", tmp_path / "t.tar.gz", {"summary.json": json_edit(edit)})
    assert main(["verify", str(tampered)]) == 6
    assert "beam/overall/mean_over_abilities" in capsys.readouterr().out
