"""`verify`: check a result bundle, one line per check, and stop at the first failure with its exit code.

Exit codes: 0 VERIFIED; 2 the archive is unreadable or unsafe (a link, a `..` or absolute name, an oversize
member), or bundle.json is missing or malformed; 4 a file's sha256 differs from bundle.json (or a file is
missing or unlisted); 5 the signature is missing, or does not match the public key; 6 a number of summary.json
differs from the one its result lines give; 7 the result lines do not match the dataset given with --dataset.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from benchmarker.bundle.archive import (
    BUNDLE_JSON,
    BUNDLE_SIG,
    BUNDLE_VERSION,
    MAX_JSON_BYTES,
    UnsafeBundle,
    hash_problem,
    parse_json,
    scan,
)
from benchmarker.bundle.outcome import EXIT_HASH, EXIT_NUMBERS, EXIT_SIGNATURE, EXIT_UNSAFE, Failed
from benchmarker.bundle.written_summary import WrittenSummary
from benchmarker.log.lines import Manifest, ResultLine

MAX_TEXT_BYTES = 1 * 2**30  # a results file bigger than this is not read into memory
NESTED = ("oracle", "baselines", "scores")  # folders whose own summary.json and results.jsonl are checked too


def _kept(name: str) -> bool:
    return name in (BUNDLE_JSON, BUNDLE_SIG) or name.endswith(("summary.json", "manifest.json", "results.jsonl"))


def lines_of(members: dict[str, bytes], name: str) -> list[ResultLine]:
    """A JSON-lines member's objects; a line that is not one fails the numbers check, naming the line."""
    out: list[ResultLine] = []
    for number, line in enumerate(members[name].decode("utf-8", errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise Failed(f"{name} line {number} is not JSON ({exc.msg})", EXIT_NUMBERS) from None
        if not isinstance(value, dict):
            raise Failed(f"{name} line {number} is not a JSON object", EXIT_NUMBERS)
        out.append(cast(ResultLine, value))  # its keys are read with .get(): any object passes
    return out


def verify(path: Path, *, dataset: Path | None, public_key: Path | None, say: Callable[[str], None]) -> int:
    """Run every check in order, `say` one line each, then VERIFIED or the failure; returns the exit code."""
    try:
        members, hashes, bundle = _archive(path, say)
        _hashes(bundle, hashes, say)
        _signature(members, public_key, say)
        if dataset is not None:  # before the numbers: a dropped question is named as such, not as a count
            from benchmarker.bundle.dataset_check import check_dataset

            say("ok   dataset: " + check_dataset(bundle, members, dataset, lines_of))
        _numbers(members, say)
    except UnsafeBundle as exc:
        say(f"FAIL archive: {exc}")
        return EXIT_UNSAFE
    except Failed as exc:
        say(f"FAIL {exc}")
        return exc.code
    say("VERIFIED")
    return 0


def _archive(path: Path, say: Callable[[str], None]) -> tuple[dict[str, bytes], dict[str, str], dict[str, Any]]:
    try:
        found = scan(path, _kept, max_kept=MAX_TEXT_BYTES)
    except OSError as exc:
        raise UnsafeBundle(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if BUNDLE_JSON not in found.kept:
        raise UnsafeBundle(f"{path}: no {BUNDLE_JSON} at the archive root; not a result bundle")
    if len(found.kept[BUNDLE_JSON]) > MAX_JSON_BYTES:
        raise UnsafeBundle(f"{path}: {BUNDLE_JSON} is over {MAX_JSON_BYTES} bytes")
    bundle = parse_json(found.kept[BUNDLE_JSON], f"{path}: {BUNDLE_JSON}")
    if bundle.get("bundle_version") != BUNDLE_VERSION:
        raise UnsafeBundle(f"{path}: {BUNDLE_JSON} bundle_version is {bundle.get('bundle_version')!r}; this harness "
                           f"reads version {BUNDLE_VERSION}")
    say(f"ok   archive: {len(found.hashes)} regular files, no links, no names outside the bundle, sizes within limits")
    return found.kept, found.hashes, bundle


def _hashes(bundle: dict[str, Any], hashes: dict[str, str], say: Callable[[str], None]) -> None:
    if (problem := hash_problem(bundle, hashes)) is not None:
        raise Failed(f"hashes: {problem}", EXIT_HASH)
    say(f"ok   hashes: {len(bundle['files'])} files match the sha256 in {BUNDLE_JSON}")


def _signature(members: dict[str, bytes], public_key: Path | None, say: Callable[[str], None]) -> None:
    signature = members.get(BUNDLE_SIG)
    if public_key is None:
        say("ok   signature: " + ("present, not checked (pass --public-key KEY.pub to check it)" if signature
                                  else "none (unsigned bundle)"))
        return
    from benchmarker.bundle.signing import signature_ok

    if signature is None:
        raise Failed(f"signature: --public-key {public_key} given but the bundle has no {BUNDLE_SIG}", EXIT_SIGNATURE)
    if not signature_ok(public_key, members[BUNDLE_JSON], signature):
        raise Failed(f"signature: {BUNDLE_SIG} is not {public_key}'s signature of {BUNDLE_JSON} (another key, or "
                     f"{BUNDLE_JSON} was changed after signing)", EXIT_SIGNATURE)
    fingerprint = hashlib.sha256(public_key.read_bytes()).hexdigest()[:16]
    say(f"ok   signature: {BUNDLE_JSON} is signed by {public_key} (sha256 {fingerprint}...)")


def _numbers(members: dict[str, bytes], say: Callable[[str], None]) -> None:
    from benchmarker.bundle.recompute import MISSING, differences, qa_figures, same, written_value

    for name in ("summary.json", "results.jsonl"):
        if name not in members:
            raise Failed(f"numbers: the bundle has no {name}; nothing to re-derive", EXIT_NUMBERS)
    summary = cast(WrittenSummary, parse_json(members["summary.json"], "summary.json"))
    manifest = cast(Manifest, parse_json(members["manifest.json"], "manifest.json")
                    if "manifest.json" in members else {})
    compared, problems = differences(summary, manifest, lines_of(members, "results.jsonl"))
    if problems:
        raise Failed(f"numbers: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                     EXIT_NUMBERS)
    say(f"ok   numbers: {compared} figures of summary.json re-derived from results.jsonl")
    for folder in sorted({n.rsplit("/", 1)[0] for n in members if n.startswith(NESTED) and "/" in n}):
        summary_name, results_name = f"{folder}/summary.json", f"{folder}/results.jsonl"
        if summary_name not in members or results_name not in members:
            continue
        nested = cast(WrittenSummary, parse_json(members[summary_name], summary_name))
        if "qa" not in nested:
            continue
        derived = qa_figures([r for r in lines_of(members, results_name) if r.get("index_searchable") is not False])
        for path, value in sorted(derived.items()):
            written = written_value(nested, path)
            if written is not MISSING and not same(written, value):
                raise Failed(f"numbers: {summary_name} {path} = {written!r}, {results_name} gives {value!r}",
                             EXIT_NUMBERS)
        say(f"ok   numbers: {len(derived)} figures of {summary_name} re-derived from {results_name}")
    _conditions(summary, members, say)


def _conditions(summary: WrittenSummary, members: dict[str, bytes], say: Callable[[str], None]) -> None:
    """summary.json's oracle and baselines accuracies against the lines of oracle/ and baselines/<name>/."""
    from benchmarker.bundle.recompute import MISSING, qa_figures, same, written_value

    blocks = {"oracle": ("oracle", "oracle/results.jsonl")}
    for name in ((summary.get("baselines") or {}).get("accuracy") or {}):
        source = "results.jsonl" if name == "memory" else f"baselines/{name}/results.jsonl"
        blocks[f"baselines/accuracy/{name}"] = (name, source)
    compared = 0
    for prefix, (_, source) in blocks.items():
        if written_value(summary, prefix) is MISSING or source not in members:
            continue
        lines = [r for r in lines_of(members, source) if r.get("index_searchable") is not False]
        for path, value in qa_figures(lines).items():
            if not path.startswith(("qa/overall/", "qa/by_type/")):
                continue
            target = f"{prefix}/{path.removeprefix('qa/')}"
            written = written_value(summary, target)
            if written is not MISSING and not same(written, value):
                raise Failed(f"numbers: summary.json {target} = {written!r}, {source} gives {value!r}", EXIT_NUMBERS)
            compared += written is not MISSING
    if compared:
        say(f"ok   numbers: {compared} oracle / baseline figures of summary.json re-derived from their lines")
