"""`export`: a run directory's result files, masked again, and `bundle.json` describing them, in one `.tar.gz`."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tarfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from benchmarker.bundle.archive import BUNDLE_JSON, BUNDLE_SIG, BUNDLE_VERSION, BundleJson, BundleJudge
from benchmarker.errors import UserError
from benchmarker.log.lines import Json, Manifest, ResultLine
from benchmarker.redact import redact, redact_text

PACKAGE = "mycelian-longmemeval"
TOP_FILES = ("summary.json", "manifest.json", "results.jsonl", "answers.jsonl", "hypotheses.jsonl",
             "report.md", "report.html")
FOLDERS = ("oracle", "baselines", "scores")
TEXT_SUFFIXES = (".json", ".jsonl", ".md", ".html", ".txt", ".csv", ".toml")
MEMORY = "memory.sqlite"
SKIPPED = (".lock", ".tmp")  # a folder's lock file or a writer's temp file is not a result


def result_files(run_dir: Path, with_memory: bool) -> list[str]:
    """The run's files that carry results, as paths relative to the run directory, sorted."""
    found = [name for name in TOP_FILES if (run_dir / name).is_file()]
    for folder in FOLDERS:
        found += [p.relative_to(run_dir).as_posix() for p in sorted((run_dir / folder).rglob("*"))
                  if p.is_file() and not p.is_symlink() and not p.name.endswith(SKIPPED)]
    found += [f"plots/{p.name}" for p in sorted((run_dir / "plots").glob("*.png")) if p.is_file()]
    if with_memory and (run_dir / MEMORY).is_file():
        found.append(MEMORY)
    return sorted(found)


def masked_bytes(path: Path) -> bytes:
    """The file's bytes, text files masked again (a credential set since the run was written is masked too)."""
    data = path.read_bytes()
    if not path.name.endswith(TEXT_SUFFIXES):
        return data
    try:
        return redact_text(data.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; a result file must be (re-run `report` to rewrite it)") from None


def _json(run_dir: Path, name: str) -> dict[str, Json]:
    path = run_dir / name
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: missing; export needs a finished run directory (run `report` first)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); run `report` to rewrite it") from None
    if not isinstance(value, dict):
        raise UserError(f"{path}: not a JSON object")
    return value


def _lines(data: bytes) -> Iterator[ResultLine]:
    """results.jsonl's lines as the run wrote them (export describes them; `verify` checks them)."""
    for line in data.decode("utf-8").splitlines():
        if line.strip():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn tail: verify names it; export only describes
            if isinstance(value, dict):
                yield cast(ResultLine, value)


def _object(value: object) -> dict[str, Json]:
    """A JSON object of a file a user may have edited, or {} for anything else."""
    return cast("dict[str, Json]", value) if isinstance(value, dict) else {}


def judge_of(manifest: Manifest, results: Sequence[ResultLine]) -> BundleJudge:
    """name, model and the sha256 of the judge prompt(s) the lines name (one template: its file's hash; several:
    the hash of their sorted {template: hash} JSON)."""
    judge = _object(manifest.get("judge"))
    prompts = _object(_object(manifest.get("inputs")).get("prompts"))
    templates = sorted({str(t) for r in results if (t := _object(r.get("grade")).get("template"))})
    hashes = {t: prompts.get(f"{t}.txt") for t in templates}
    digest = None
    if len(hashes) == 1:
        digest = next(iter(hashes.values()))
    elif hashes:
        digest = hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()
    return {"name": judge.get("kind"), "model": judge.get("model"), "prompt_sha256": digest}  # type: ignore[typeddict-item]  # as the file holds them


def bundle_json(run_dir: Path, members: dict[str, bytes], created_at: str) -> BundleJson:
    """bundle.json's object (docs/publishing.md) for these members."""
    manifest = cast(Manifest, _json(run_dir, "manifest.json"))   # as the run wrote it; each key read is checked
    summary = _json(run_dir, "summary.json")
    results = list(_lines(members.get("results.jsonl", b"")))
    dataset = _object(manifest.get("dataset"))
    ids = list(dict.fromkeys(str(r.get("question_id")) for r in results))
    return {
        "bundle_version": BUNDLE_VERSION,
        "run_id": str(manifest.get("run_id") or summary.get("run_id") or run_dir.name),
        "suite": suite_of(results, dataset),
        "created_at": created_at,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(members.items())},
        "dataset": {"name": str(dataset.get("name") or dataset.get("description") or dataset.get("kind") or ""),
                    "sha256": dataset.get("sha256"), "question_ids": ids},  # type: ignore[typeddict-item]  # as written
        "config": redact(manifest.get("config") or {}, keys=True),
        "package": {"name": PACKAGE, "version": str(manifest.get("package_version") or "unknown"),
                    "git_commit": manifest.get("git_commit")},
        "judge": judge_of(manifest, results),
        "python": str(manifest.get("python") or sys.version.split()[0]),
        "packages": dict(manifest.get("packages") or {}),
    }


def suite_of(results: Sequence[ResultLine], dataset: dict[str, Json]) -> str:
    """The suite the lines belong to: their `kind` when they agree, else the dataset's kind."""
    kinds = sorted({str(r.get("kind")) for r in results if r.get("kind")})
    return kinds[0] if len(kinds) == 1 else str(dataset.get("kind") or "mixed")


def write_bundle(run_dir: Path, out: Path, *, with_memory: bool, created_at: str,
                 sign: Any = None) -> BundleJson:
    """Write the bundle to `out` (through a temp file); `sign(bytes) -> str` adds bundle.sig. Returns bundle.json."""
    if not (run_dir / "results.jsonl").is_file():
        raise UserError(f"{run_dir}: no results.jsonl here; is it a run directory?")
    if not out.name.endswith(".tar.gz"):
        raise UserError(f"export --out {out}: the bundle's name must end in .tar.gz")
    members = {name: masked_bytes(run_dir / name) for name in result_files(run_dir, with_memory)}
    bundle = bundle_json(run_dir, members, created_at)
    raw = (json.dumps(bundle, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    extra = {BUNDLE_JSON: raw} | ({BUNDLE_SIG: (sign(raw) + "\n").encode("ascii")} if sign else {})
    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.name}.tmp")
    with tarfile.open(temp, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [*extra.items(), *members.items()]:  # bundle.json first: a reader finds it at once
            add_member(tar, name, data)
    temp.replace(out)
    return bundle


def add_member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    """A regular file member, mode 644, no owner names, a fixed time (the bundle's bytes follow its contents)."""
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    tar.addfile(info, io.BytesIO(data))
