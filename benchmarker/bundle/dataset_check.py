"""`verify --dataset`: the bundle's result lines against the dataset file they claim to come from."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarker.bundle.outcome import EXIT_DATASET, Failed
from benchmarker.errors import UserError
from benchmarker.log.lines import ResultLine

READABLE = ("longmemeval", "locomo", "sample")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while chunk := stream.read(2**20):
                digest.update(chunk)
    except OSError as exc:
        raise UserError(f"--dataset {path}: cannot read it ({exc.strerror or exc})") from None
    return digest.hexdigest()


def gold_answers(path: Path, suite: str) -> dict[str, str]:
    """{question_id: gold answer} as the harness's own loader reads the file (its ids, e.g. LoCoMo's)."""
    if suite == "locomo":
        from benchmarker.suites.locomo.data import load_locomo

        cases = list(load_locomo(path).cases)
    elif suite in ("longmemeval", "sample"):
        from benchmarker.suites.longmemeval.data import iter_longmemeval

        cases = list(iter_longmemeval(path))
    else:
        raise UserError(f"verify --dataset {path}: no reader for a {suite!r} dataset")
    return {q.question_id: str(q.answer) for case in cases for q in case.questions}


def check_dataset(bundle: dict[str, Any], members: dict[str, bytes], path: Path,
                  lines_of: Callable[[dict[str, bytes], str], list[ResultLine]]) -> str:
    """One line saying what matched; raises verify's Failed (exit 7) at the first mismatch."""
    recorded = bundle.get("dataset") or {}
    suite = str(bundle.get("suite") or "longmemeval")
    if suite not in READABLE:
        raise UserError(f"verify --dataset {path}: a {suite!r} bundle's dataset is not one file this check reads "
                        f"({', '.join(READABLE)} are); verify it without --dataset")
    digest = file_sha256(path)
    if recorded.get("sha256") and digest != recorded["sha256"]:
        raise Failed(f"dataset: {path} has sha256 {digest[:12]}..., the bundle's run used "
                     f"{str(recorded['sha256'])[:12]}...", EXIT_DATASET)
    gold = gold_answers(path, suite)
    lines = lines_of(members, "results.jsonl")
    seen = Counter(str(r.get("question_id")) for r in lines)
    selected = [str(q) for q in recorded.get("question_ids") or []] or list(gold)
    manifest_count = _manifest_questions(members)
    if manifest_count is not None and manifest_count != len(selected):
        raise Failed(f"dataset: bundle.json selects {len(selected)} questions, the run's manifest recorded "
                     f"{manifest_count}", EXIT_DATASET)
    for qid in selected:
        if qid not in gold:
            raise Failed(f"dataset: question {qid} of bundle.json is not in {path}", EXIT_DATASET)
        if seen[qid] != 1:
            raise Failed(f"dataset: question {qid} appears {seen[qid]} times in results.jsonl (expected once)",
                         EXIT_DATASET)
    extra = sorted(set(seen) - set(selected))
    if extra:
        raise Failed(f"dataset: results.jsonl answers {extra[0]}, which bundle.json's selection does not hold",
                     EXIT_DATASET)
    for number, r in enumerate(lines, start=1):
        qid = str(r.get("question_id"))
        if str(r.get("answer")) != gold[qid]:
            raise Failed(f"dataset: results.jsonl line {number} ({qid}) has gold answer {str(r.get('answer'))[:60]!r}, "
                         f"{path} says {gold[qid][:60]!r}", EXIT_DATASET)
    return (f"{path} matches sha256 {digest[:12]}...; {len(selected)} selected questions (of {len(gold)}) each "
            "answered once, every gold answer as in the file")


def _manifest_questions(members: dict[str, bytes]) -> int | None:
    import json

    try:
        manifest = json.loads(members.get("manifest.json", b"{}"))
        value = (manifest.get("dataset") or {}).get("questions")
    except (json.JSONDecodeError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
