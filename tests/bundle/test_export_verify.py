"""export -> verify on a real offline LongMemEval run, and every tampering a person could do, named by its exit
code (benchmarker/bundle/verify.py): 2 unsafe archive, 4 hash, 5 signature, 6 numbers, 7 dataset."""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest

from benchmarker.bundle.archive import read_bundle, read_member
from benchmarker.cli import main
from tests.bundle.tamper import json_edit, lines_edit, members, repack, write

pytestmark = pytest.mark.xdist_group("bundle_export_verify")  # one worker builds the module's run once

SOURCE = """run_id = "src"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
limit = 3
output_dir = "{out}"
progress = false
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("bundle-run")
    (base / "source.toml").write_text(SOURCE.format(out=base), encoding="utf-8")
    assert main(["run", str(base / "source.toml")]) == 0
    return base / "src"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("keys")
    assert main(["keygen", "--out", str(folder / "mine")]) == 0
    assert main(["keygen", "--out", str(folder / "other")]) == 0
    return folder


@pytest.fixture(scope="module")
def bundle(run_dir: Path, keys: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "run.tar.gz"
    assert main(["export", str(run_dir), "--out", str(out), "--sign", str(keys / "mine")]) == 0
    return out


def dataset(run_dir: Path) -> Path:
    return Path(json.loads((run_dir / "manifest.json").read_text())["dataset"]["path"])


def verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["verify", *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out.strip().splitlines()


def test_an_exported_run_verifies_with_its_dataset_and_key(bundle: Path, run_dir: Path, keys: Path, capsys) -> None:
    code, lines = verify(capsys, str(bundle), "--dataset", str(dataset(run_dir)), "--public-key", str(keys / "mine.pub"))
    assert code == 0 and lines[-1] == "VERIFIED", lines
    assert [line.split(":")[0] for line in lines[:-1]] == ["ok   archive", "ok   hashes", "ok   signature",
                                                          "ok   dataset", "ok   numbers"]


def test_the_bundle_holds_the_result_files_and_describes_the_run(bundle: Path, run_dir: Path) -> None:
    files = members(bundle)
    meta = json.loads(files["bundle.json"])
    assert {"summary.json", "manifest.json", "results.jsonl", "answers.jsonl", "report.md"} <= set(meta["files"])
    assert "memory.sqlite" not in files and "ledger.jsonl" not in files  # the memory database only on request
    assert set(files) == set(meta["files"]) | {"bundle.json", "bundle.sig"}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    results = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert meta["dataset"]["sha256"] == manifest["dataset"]["sha256"]
    assert meta["dataset"]["question_ids"] == [r["question_id"] for r in results]
    assert meta["package"]["name"] == "mycelian-longmemeval" and meta["package"]["git_commit"] == manifest["git_commit"]
    assert meta["judge"]["name"] == "deterministic" and meta["suite"] == "longmemeval"
    assert meta["python"] == manifest["python"] and meta["config"]


def test_with_memory_adds_the_memory_database(run_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "mem.tar.gz"
    assert main(["export", str(run_dir), "--out", str(out), "--with-memory"]) == 0
    assert "memory.sqlite" in json.loads(members(out)["bundle.json"])["files"]
    assert verify(capsys, str(out))[0] == 0


def test_read_bundle_gives_view_the_summary_without_unpacking(bundle: Path, tmp_path: Path) -> None:
    view = read_bundle(bundle)
    assert view.hashes_ok and view.signed and view.problem is None
    assert view.summary and view.summary["qa"]["overall"]["n"] == 3 and view.manifest and view.bundle["run_id"] == "src"
    assert json.loads(read_member(bundle, "summary.json", 2**20)) == view.summary
    swapped = repack(bundle, tmp_path / "swapped.tar.gz", {"report.md": lambda b: b + b"x"}, fix_hashes=False)
    damaged = read_bundle(swapped)
    assert not damaged.hashes_ok and "report.md" in (damaged.problem or "")


def accuracy_edit(summary: dict) -> None:
    summary["qa"]["overall"]["accuracy"] += 0.01


def flip_first_label(rows: list[dict]) -> list[dict]:
    rows[0]["label"] = not rows[0]["label"]
    return rows


def test_an_edited_accuracy_with_its_hash_fixed_is_caught_by_the_recomputation(bundle, tmp_path, capsys) -> None:
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"summary.json": json_edit(accuracy_edit)})
    code, lines = verify(capsys, str(tampered))
    assert code == 6 and lines[-1].startswith("FAIL numbers:") and "qa/overall/accuracy" in lines[-1], lines


def test_a_flipped_label_with_its_hash_fixed_makes_the_numbers_differ(bundle, run_dir, tmp_path, capsys) -> None:
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"results.jsonl": lines_edit(flip_first_label)})
    code, lines = verify(capsys, str(tampered), "--dataset", str(dataset(run_dir)))
    assert code == 6 and "FAIL numbers:" in lines[-1], lines


def test_a_dropped_question_is_named_against_the_dataset(bundle, run_dir, tmp_path, capsys) -> None:
    dropped = json.loads(members(bundle)["bundle.json"])["dataset"]["question_ids"][-1]
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"results.jsonl": lines_edit(lambda rows: rows[:-1])})
    code, lines = verify(capsys, str(tampered), "--dataset", str(dataset(run_dir)))
    assert code == 7 and lines[-1].startswith("FAIL dataset:") and dropped in lines[-1], lines
    assert verify(capsys, str(tampered))[0] == 6  # without the dataset, its counts still differ


def test_a_changed_gold_answer_is_named_against_the_dataset(bundle, run_dir, tmp_path, capsys) -> None:
    def change(rows: list[dict]) -> list[dict]:
        rows[1]["answer"] = "something else"
        return rows
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"results.jsonl": lines_edit(change)})
    code, lines = verify(capsys, str(tampered), "--dataset", str(dataset(run_dir)))
    assert code == 7 and "gold answer" in lines[-1] and "line 2" in lines[-1], lines


def test_a_dataset_file_that_differs_is_refused(bundle, run_dir, tmp_path, capsys) -> None:
    other = tmp_path / "other.json"
    other.write_bytes(dataset(run_dir).read_bytes() + b"\n")
    code, lines = verify(capsys, str(bundle), "--dataset", str(other))
    assert code == 7 and "sha256" in lines[-1], lines


def test_a_swapped_file_fails_its_hash(bundle, tmp_path, capsys) -> None:
    tampered = repack(bundle, tmp_path / "t.tar.gz", {"answers.jsonl": lambda b: b.replace(b"a", b"b", 1)},
                      fix_hashes=False)
    code, lines = verify(capsys, str(tampered))
    assert code == 4 and lines[-1].startswith("FAIL hashes: answers.jsonl"), lines


def test_a_signed_bundle_verifies_only_with_its_key(bundle, run_dir, keys, tmp_path, capsys) -> None:
    code, lines = verify(capsys, str(bundle), "--public-key", str(keys / "other.pub"))
    assert code == 5 and lines[-1].startswith("FAIL signature:"), lines
    assert verify(capsys, str(bundle), "--public-key", str(keys / "mine.pub"))[0] == 0
    resigned = tmp_path / "resigned.tar.gz"  # signed by another key: only that key verifies it
    assert main(["export", str(run_dir), "--out", str(resigned), "--sign", str(keys / "other")]) == 0
    assert verify(capsys, str(resigned), "--public-key", str(keys / "mine.pub"))[0] == 5
    # an edited bundle.json (hashes fixed, signature kept) no longer matches its signature
    edited = repack(bundle, tmp_path / "t.tar.gz", {"summary.json": json_edit(accuracy_edit)})
    assert verify(capsys, str(edited), "--public-key", str(keys / "mine.pub"))[0] == 5
    unsigned = tmp_path / "unsigned.tar.gz"
    assert main(["export", str(run_dir), "--out", str(unsigned)]) == 0
    code, lines = verify(capsys, str(unsigned), "--public-key", str(keys / "mine.pub"))
    assert code == 5 and "no bundle.sig" in lines[-1], lines


def unsafe(bundle: Path, out: Path, info: tarfile.TarInfo) -> Path:
    return write(out, members(bundle), [info])


def link(name: str, target: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(("info", "words"), [
    (link("plots/evil.png", "/etc/passwd", tarfile.SYMTYPE), "is a link"),
    (link("plots/hard.png", "summary.json", tarfile.LNKTYPE), "is a link"),
    (tarfile.TarInfo("../outside.txt"), "outside the bundle"),
    (tarfile.TarInfo("/etc/cron.d/evil"), "outside the bundle"),
], ids=["symlink", "hardlink", "dotdot", "absolute"])
def test_links_and_names_outside_the_bundle_are_refused_and_nothing_is_written(
        bundle, tmp_path, capsys, monkeypatch, info, words) -> None:
    tampered = unsafe(bundle, tmp_path / "t.tar.gz", info)
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path)) + sorted(os.listdir(tmp_path.parent))
    code, lines = verify(capsys, str(tampered))
    assert code == 2 and lines[-1].startswith("FAIL archive:") and words in lines[-1], lines
    assert sorted(os.listdir(tmp_path)) + sorted(os.listdir(tmp_path.parent)) == before
    assert read_bundle(tampered).problem and not read_bundle(tampered).hashes_ok  # view: a problem, never a raise


def test_a_10_gb_declared_member_is_refused_before_any_read(bundle, tmp_path, capsys) -> None:
    huge = tarfile.TarInfo("memory.sqlite")
    huge.size = 10 * 2**30  # a header only: the data is not there, so reading it would fail another way
    tampered = unsafe(bundle, tmp_path / "t.tar.gz", huge)
    code, lines = verify(capsys, str(tampered))
    assert code == 2 and "declares 10737418240 bytes" in lines[-1], lines
    assert "declares" in (read_bundle(tampered).problem or "")


def test_not_a_bundle_is_one_line_exit_2(tmp_path, capsys) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not gzip")
    code, lines = verify(capsys, str(junk))
    assert code == 2 and lines[-1].startswith("FAIL archive:") and "junk.tar.gz" in lines[-1]
    assert "not a readable" in (read_bundle(junk).problem or "")


def test_keygen_writes_a_private_key_only_its_owner_reads_and_never_overwrites(keys, capsys) -> None:
    assert (keys / "mine").stat().st_mode & 0o777 == 0o600
    assert b"BEGIN PUBLIC KEY" in (keys / "mine.pub").read_bytes()
    assert main(["keygen", "--out", str(keys / "mine")]) == 2
    assert "exists" in capsys.readouterr().err


def test_export_of_a_folder_that_is_no_run_is_one_line_exit_2(tmp_path, capsys) -> None:
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "x.tar.gz")]) == 2
    err = capsys.readouterr().err
    assert "no results.jsonl" in err and "Traceback" not in err and not (tmp_path / "x.tar.gz").exists()
