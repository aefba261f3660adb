"""An attribution written by a run, checked against the files by a second, independent reading.

This does not import benchmarker.scoring.attribution: it re-derives each stage from its definition
(issue 33) over decisions.jsonl and results.jsonl, by the rules an offline run can exercise: an
entry names its turn by its tags or holds the turn's text; a turn reached the reader when a hit is
that turn or the reader's context holds its text or a summary written for it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _fold(text: Any) -> str:
    return " ".join(str(text or "").lower().split())


def _entries_for(turn: tuple[str, int], text: str, adds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for d in adds:
        tags = d["args"].get("tags") or {}
        if (tags.get("session_id"), str(tags.get("turn_index"))) == (turn[0], str(turn[1])):
            found.append(d)
        elif len(_fold(text)) >= 20 and _fold(text)[:200] in _fold(d["args"].get("raw_entry")):
            found.append(d)
    return found


def expected_stage(result: dict[str, Any], adds: list[dict[str, Any]]) -> tuple[str, str | None] | None:
    """(stage, "k of n" seen) by the definitions; None for an unjudged line."""
    if result["label"] is None:
        return None
    abstention = result.get("is_abstention") or result["question_id"].endswith("_abs")
    evidence = [(str(s), int(t)) for s, t in result.get("evidence_turns") or []]
    texts = {(e["session_id"], e["turn_index"]): e["content"] for e in result.get("evidence") or []}
    hits = {(h.get("session_id"), h.get("turn_index")) for h in result.get("retrieved") or []}
    context = _fold(result.get("reader_context"))
    written, seen = 0, 0
    for turn in evidence:
        entries = _entries_for(turn, texts.get(turn, ""), adds)
        written += bool(entries)
        in_context = any(len(c) >= 20 and c in context for c in
                         [_fold(texts.get(turn, ""))[:200]] + [_fold(d["args"].get("summary")) for d in entries])
        seen += turn in hits or in_context
    ratio = f"{seen} of {len(evidence)}" if evidence else None
    if result["label"]:
        return "correct", ratio
    if abstention:
        return "false_answer", ratio
    if not evidence:
        return "no_evidence", ratio
    if not written:
        return "not_written", ratio
    return ("not_retrieved" if seen < len(evidence) else "not_used"), ratio


def check_attribution(run_dir: Path) -> Counter[str]:
    """Every judged results line carries the stage its files give; summary.json's counts equal the lines'.
    Returns the counts (the closing note reports them)."""
    results = _lines(run_dir / "results.jsonl")
    adds_by_case: dict[str, list[dict[str, Any]]] = {}
    for d in _lines(run_dir / "decisions.jsonl"):
        if d["tool"] == "add_entry" and not d.get("error"):
            adds_by_case.setdefault(d["case_id"], []).append(d)
    for r in results:
        expected = expected_stage(r, adds_by_case.get(r["case_id"], []))
        if expected is None:
            assert "attribution" not in r or r["attribution"] is None, r["question_id"]
            continue
        assert (r["attribution"], r["evidence_seen"]) == expected, (r["question_id"], r["attribution"], expected)
    counts = Counter(r["attribution"] for r in results if r.get("attribution"))
    block = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["attribution"]
    assert block["n"] == sum(counts.values())
    assert {s: c for s, c in block["counts"].items() if c} == dict(counts)
    return counts
