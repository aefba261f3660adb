"""A candidate configuration: tunables plus its own copies of the changeable prompt files.

Every candidate lives in `<run_dir>/self_improve/candidates/<n>/` (`prompts/*.txt`,
`tunables.json`, `change.json`, and `change.diff` for a prompt patch). Candidate 0 is the run's
own configuration. The prompts the harness ships are never written: a candidate is a copy of
the one in force with one proposal applied, checked against the allowlist again here.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from benchmarker.graph.self_improve.allowlist import PROMPT_FILES, Refused, check_proposal, prompt_file
from benchmarker.graph.self_improve.diffs import PatchError, apply_hunks, parse_unified_diff
from benchmarker.graph.self_improve.shapes import Candidate, Change, Proposal, Tunables
from benchmarker.log.jsonl import write_json_atomic, write_text_atomic
from benchmarker.log.lines import Json

# Changes to these alter what ingestion writes (agent mode), so they need fresh memories.
INGEST_PROMPTS = ("memory_agent_prefix.txt", "agent_turn.txt")


class CandidateError(ValueError):
    """A proposal that could not be applied (bad hunk, broken prompt format)."""


def candidate_dir(root: Path, index: int) -> Path:
    return root / "candidates" / str(index)


def prompts_of(root: Path, candidate: Candidate) -> Path:
    return candidate_dir(root, candidate["index"]) / "prompts"


def read_prompts(directory: Path) -> dict[str, str]:
    return {name: (directory / name).read_text(encoding="utf-8") for name in PROMPT_FILES}


def prompts_hash(directory: Path) -> str:
    digest = hashlib.sha256()
    for name, text in sorted(read_prompts(directory).items()):
        digest.update(f"{name}\0{text}\0".encode())
    return digest.hexdigest()[:16]


def candidate_key(tunables: Tunables, prompts_digest: str) -> str:
    """Same tunables + same prompt texts = same key = one cached evaluation."""
    blob = json.dumps({"tunables": tunables, "prompts": prompts_digest}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def ingest_key(candidate: Candidate, mode: str) -> str:
    """What ingestion depends on: nothing in retrieval mode; cadence and agent prompts in agent mode."""
    if mode != "agent":
        return "run"
    digest = hashlib.sha256(json.dumps(candidate["tunables"].get("context_cadence")).encode("utf-8"))
    for name in INGEST_PROMPTS:
        digest.update(candidate["ingest_prompts"][name].encode("utf-8"))
    return digest.hexdigest()[:12]


def _record(root: Path, index: int, tunables: Tunables, change: Change | None, parent: int | None) -> Candidate:
    directory = candidate_dir(root, index)
    prompts = directory / "prompts"
    digest = prompts_hash(prompts)
    texts = read_prompts(prompts)
    record: Candidate = {"index": index, "key": candidate_key(tunables, digest), "tunables": tunables.copy(),
              "prompts_hash": digest, "parent": parent, "dir": str(directory.relative_to(root.parent)),
              "ingest_prompts": {name: hashlib.sha256(texts[name].encode()).hexdigest() for name in INGEST_PROMPTS}}
    write_json_atomic(directory / "tunables.json", tunables)
    write_json_atomic(directory / "change.json", {"parent": parent, "change": change, "key": record["key"]})
    return record


def baseline_candidate(root: Path, tunables: Tunables, source_prompts: Path) -> Candidate:
    """Candidate 0: the run's configuration and a copy of the prompts it ran with."""
    target = candidate_dir(root, 0) / "prompts"
    target.mkdir(parents=True, exist_ok=True)
    for name in PROMPT_FILES:
        src = source_prompts / name
        if not src.is_file():
            raise CandidateError(f"prompt file {src} not found; the self-improve loop copies it into the run directory")
        shutil.copyfile(src, target / name)
    return _record(root, 0, tunables, None, None)


def apply_proposal(root: Path, base: Candidate, proposal: Proposal, index: int) -> Candidate:
    """Write candidate `index` = `base` + `proposal` (config delta or prompt diff); CandidateError/Refused."""
    proposal = check_proposal(proposal)  # again: nothing reaches the disk unchecked
    target = candidate_dir(root, index)
    if target.exists():  # a resumed loop re-applies from scratch
        shutil.rmtree(target)
    (target / "prompts").mkdir(parents=True)
    source = prompts_of(root, base)
    texts = read_prompts(source)
    tunables = base["tunables"].copy()
    if proposal["kind"] == "config":
        tunables.update(proposal["delta"])
    else:
        diff = proposal["diff"]
        assert diff is not None  # check_proposal refuses a diff proposal without one
        texts = patched_prompts(texts, diff)
        write_text_atomic(target / "change.diff", diff)
    for name, text in texts.items():
        write_text_atomic(target / "prompts" / name, text)
    try:
        validate_prompts(target / "prompts")
    except CandidateError:
        shutil.rmtree(target)
        raise
    change: Change = {"kind": proposal.get("kind"), "delta": proposal.get("delta"), "files": proposal.get("files"),
                      "rationale": proposal.get("rationale"), "source": proposal.get("source")}
    return _record(root, index, tunables, change, base["index"])


def patched_prompts(texts: dict[str, str], diff: str) -> dict[str, str]:
    """The prompt texts with a unified diff applied exactly (all hunks or nothing)."""
    out = dict(texts)
    try:
        for patch in parse_unified_diff(diff):
            name = prompt_file(patch.path)
            out[name] = apply_hunks(out[name], patch.hunks, name=name)
    except PatchError as err:
        raise CandidateError(f"diff does not apply: {err}") from err
    if out == texts:
        raise CandidateError("the diff changes nothing")
    return out


_DUMMY_DEFAULTS: dict[str, Json] = {"context_summary_rules": "rules",
                                    "templates": {"entry_capture_prompt": "e", "summary_prompt": "s",
                                                  "context_prompt": "c"}}


def validate_prompts(directory: Path) -> None:
    """Every prompt copy still renders and parses back (the offline models and the ids depend on it)."""
    from benchmarker.agent.prompts import (
        QAPrompt,
        TurnHeader,
        compose_memory_system_prompt,
        load_prompt,
        parse_qa_prompt,
        parse_turn,
        render_qa_prompt,
        render_turn,
        unit_instructions,
    )

    try:
        qa = render_qa_prompt("Q?", "2023/05/20", "CONTEXT", template=load_prompt("qa_reader.txt", directory))
        if parse_qa_prompt(qa) != QAPrompt("Q?", "2023/05/20", "CONTEXT"):
            raise ValueError("qa_reader.txt must keep its === MEMORY CONTEXT / QUESTION DATE / QUESTION / "
                             "ANSWER === sections with {context}, {question_date} and {question}")
        turn = render_turn("s1", "2023/05/20", 1, 2, "user", "hello",
                           template=load_prompt("agent_turn.txt", directory))
        if parse_turn(turn) != TurnHeader("s1", "2023/05/20", 1, 2, "user", "hello"):
            raise ValueError("agent_turn.txt must keep its '[session ... | date | message i of n] role:' header")
        compose_memory_system_prompt(load_prompt("memory_agent_prefix.txt", directory), _DUMMY_DEFAULTS,
                                     vault_id="v", memory_id="m", context_cadence=6,
                                     unit_text=unit_instructions("message", directory))
    except (KeyError, IndexError, ValueError) as err:
        raise CandidateError(f"patched prompts are broken: {type(err).__name__}: {err}") from err


def describe(tunables: Tunables) -> str:
    """`top_k=3, alpha=service, context_cadence=6` for logs and the report."""
    parts = []
    for name, value in tunables.items():
        parts.append(f"{name}={'service' if value is None else value}")
    return ", ".join(parts)


__all__ = ["CandidateError", "Refused", "apply_proposal", "baseline_candidate", "candidate_key", "describe",
           "ingest_key", "prompts_of", "validate_prompts"]
