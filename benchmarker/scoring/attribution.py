"""Attribution: which stage lost each missed answer (written? retrieved? used?).

A pure function of two run files: a results line (its verdict, its gold evidence turns with their
text, the hits and the context the reader saw) and the memory writes of its case in decisions.jsonl.
One stage a judged question:

    correct        judged correct (an abstention question: correctly declined)
    false_answer   an abstention question answered instead of declined
    not_written    wrong, and no evidence turn was ever stored in the memory
    not_retrieved  wrong, some evidence turn was stored, but not every one reached the reader
    not_used       wrong although every evidence turn was in what the reader saw
    no_evidence    the question has no evidence labels (never guessed)
    unattributed   an outside agent that reported no retrieval: its memory cannot be inspected

How a write is matched to a dataset turn (`WRITE_MATCH`): an entry whose tags name the turn
(`session_id` + `turn_index`: the harness tags every entry of our memory agent); else an entry of that
turn's session (by its tags, else by the session being ingested when it was written) whose text
contains the turn's text (whitespace and case folded; a long turn by its first 200 characters), or
holds at least half of the turn's distinct content words. The text rules serve `[agent] raw_entry =
"model"`, where the model writes raw_entry itself and, with several messages a turn, the tags are the
harness's guess; and mapped servers, whose writes carry no tags.
How a turn reached the reader (`SEEN_MATCH`): a hit traced to that turn, or the reader's context
document containing the turn's text or the summary of an entry written for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarker.log.lines import DecisionLine, EvidenceText, ResultLine
from benchmarker.scoring.attribution_shapes import AttributionFields, AttributionSummary, StageCell
from benchmarker.scoring.entry_match import MIN_TEXT_CHARS, PREFIX_CHARS, Write, fold, turn_number

__all__ = ["STAGES", "MEMORY_STAGES", "WRITE_TOOLS", "WRITE_MATCH", "SEEN_MATCH", "Write", "turn_number", "case_writes",
           "EvidenceTurn", "Attribution", "evidence_of", "bad_turn_indexes", "attribute", "attribute_results",
           "evidence_writes", "attribution_block"]  # Write and turn_number live in entry_match.py

STAGES = ("correct", "false_answer", "not_written", "not_retrieved", "not_used", "no_evidence", "unattributed")
MEMORY_STAGES = ("not_written", "not_retrieved")  # lost before the reader: the memory system's part
WRITE_TOOLS = frozenset({"add_entry"})
WRITE_MATCH = ("an entry whose tags name the turn (session_id + turn_index); else an entry written while the turn's "
               "session was ingested whose text contains the turn's text (case and whitespace folded; a long turn by "
               "its first 200 characters) or at least half of the turn's distinct content words")
SEEN_MATCH = ("a retrieved hit traced to the turn, or the reader's context containing the turn's text or the summary "
              "of an entry written for it")
def case_writes(decisions: Iterable[DecisionLine], write_tools: frozenset[str] = WRITE_TOOLS) -> dict[str, list[Write]]:
    """The stored entries of every case: successful writes of any caller (agent, harness, replay, retrieval)."""
    return _writes_by_case(decisions, write_tools)


def _writes_by_case(decisions: Iterable[DecisionLine], write_tools: frozenset[str]) -> dict[str, list[Write]]:
    out: dict[str, list[Write]] = {}
    for line in decisions:
        if line.get("tool") in write_tools and not line.get("error"):
            out.setdefault(str(line.get("case_id")), []).append(Write.of(line))
    return out


@dataclass
class EvidenceTurn:
    """One gold evidence turn, what was written for it and whether the reader saw it."""

    session_id: str
    turn_index: int
    role: str = ""
    content: str = ""
    entries: list[dict[str, str]] = field(default_factory=list)  # {raw_entry, summary, matched_by}
    seen_via: str | None = None  # "hit N" | "context" | None

    @property
    def written(self) -> bool:
        return bool(self.entries)

    @property
    def seen(self) -> bool:
        return self.seen_via is not None


@dataclass
class Attribution:
    stage: str
    evidence: list[EvidenceTurn]
    reason: str

    @property
    def evidence_seen(self) -> str | None:
        return f"{sum(t.seen for t in self.evidence)} of {len(self.evidence)}" if self.evidence else None

    @property
    def evidence_written(self) -> str | None:
        return f"{sum(t.written for t in self.evidence)} of {len(self.evidence)}" if self.evidence else None

    def fields(self) -> AttributionFields:
        """The keys a results line carries."""
        return {"attribution": self.stage, "evidence_seen": self.evidence_seen, "evidence_written": self.evidence_written}


def evidence_of(result: ResultLine) -> list[EvidenceTurn]:
    """The question's gold evidence turns, with their text when the line carries it (`evidence`)."""
    texts = {(str(e.get("session_id")), turn_number(e.get("turn_index"))): e for e in _evidence_texts(result)}
    turns = []
    for pair in _evidence_pairs(result):
        index = turn_number(pair[1]) if len(pair) == 2 else None
        if index is None:
            continue
        key = (str(pair[0]), index)
        known = texts.get(key, {})
        turns.append(EvidenceTurn(key[0], key[1], str(known.get("role") or ""), str(known.get("content") or "")))
    return turns


def _evidence_pairs(result: ResultLine) -> list[list[Any] | tuple[Any, ...]]:
    # evidence_messages: a suite that names its evidence without scoring it as retrieval (long-horizon)
    pairs = result.get("evidence_turns") or result.get("evidence_messages") or []
    return [p for p in pairs if isinstance(p, list | tuple)] if isinstance(pairs, list) else []


def _evidence_texts(result: ResultLine) -> list[EvidenceText]:
    entries = result.get("evidence")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def bad_turn_indexes(result: ResultLine) -> list[object]:
    """The evidence turn indexes of a results line that are not whole numbers (skipped by attribution)."""
    found = [e.get("turn_index") for e in _evidence_texts(result)]
    found += [p[1] for p in _evidence_pairs(result) if len(p) == 2]
    return [v for v in found if turn_number(v) is None]


def _outside_agent(result: ResultLine) -> bool:
    return bool(result.get("agent")) and "retrieved" not in result


def attribute(result: ResultLine, writes: list[Write]) -> Attribution | None:
    """The stage that lost this question (None: not judged, so nothing to attribute)."""
    label = result.get("label")
    if label is None or result.get("mode") in ("oracle", "baseline"):  # read the gold evidence or no memory
        return None
    abstention = bool(result.get("is_abstention")) or str(result.get("question_id", "")).endswith("_abs")
    evidence = evidence_of(result)
    if not _outside_agent(result):
        _mark(evidence, result, writes)
    if label:
        return Attribution("correct", evidence, "judged correct" + (" (declined)" if abstention else ""))
    if abstention:
        return Attribution("false_answer", evidence, "an unanswerable question was answered instead of declined")
    if _outside_agent(result):
        return Attribution("unattributed", evidence, "an outside agent keeps its own memory and reported no retrieval")
    if not evidence:
        return Attribution("no_evidence", evidence, "the question has no evidence labels")
    if not any(t.written for t in evidence):
        return Attribution("not_written", evidence, f"none of the {len(evidence)} evidence turns was stored")
    if not all(t.seen for t in evidence):
        seen = sum(t.seen for t in evidence)
        return Attribution("not_retrieved", evidence, f"{seen} of {len(evidence)} evidence turns reached the reader")
    return Attribution("not_used", evidence, "every evidence turn was in what the reader saw")


def _mark(evidence: list[EvidenceTurn], result: ResultLine, writes: list[Write]) -> None:
    """Fill in what was written for each evidence turn and how (if at all) it reached the reader."""
    ranks: dict[tuple[str, int], int] = {}
    hits = result.get("retrieved")
    for position, hit in enumerate(hits if isinstance(hits, list) else [], start=1):
        index = turn_number(hit.get("turn_index")) if isinstance(hit, dict) else None
        if index is not None and hit.get("session_id") is not None:
            ranks.setdefault((str(hit["session_id"]), index), turn_number(hit.get("rank")) or position)
    context = fold(result.get("reader_context"))
    for turn in evidence:
        for write in writes:
            how = write.covers(turn.session_id, turn.turn_index, turn.content)
            if how:
                turn.entries.append({"raw_entry": write.raw_entry, "summary": write.summary, "matched_by": how})
        key = (turn.session_id, turn.turn_index)
        if key in ranks:
            turn.seen_via = f"hit {ranks[key]}"
        elif context and _in_context(turn, context):
            turn.seen_via = "context"


def _in_context(turn: EvidenceTurn, context: str) -> bool:
    candidates = [fold(turn.content)[:PREFIX_CHARS]] + [fold(e["summary"]) for e in turn.entries]
    return any(len(c) >= MIN_TEXT_CHARS and c in context for c in candidates)


def attribute_results(results: Sequence[ResultLine], decisions: Iterable[DecisionLine],
                      write_tools: frozenset[str] = WRITE_TOOLS) -> dict[str, Attribution]:
    """Every judged results line's attribution by question id, recomputed from the run's files alone."""
    writes = evidence_writes(results, decisions, write_tools)
    out = {}
    for r in results:
        found = attribute(r, writes.get(str(r.get("case_id")), []))
        if found is not None:
            out[str(r["question_id"])] = found
    return out


def evidence_writes(lines: Sequence[ResultLine], decisions: Iterable[DecisionLine],
                    write_tools: frozenset[str] = WRITE_TOOLS) -> dict[str, list[Write]]:
    """The stored entries of each case of `lines` (answers or results), keeping only writes into a session
    some evidence turn names: memory stays bounded by the evidence, not by the haystack."""
    wanted: dict[str, set[str]] = {}
    for r in lines:
        wanted.setdefault(str(r.get("case_id")), set()).update(str(t[0]) for t in _evidence_pairs(r) if t)
    relevant = (d for d in decisions if d.get("tool") in write_tools
                and _session_of(d) in wanted.get(str(d.get("case_id")), ()))
    return _writes_by_case(relevant, write_tools)


def _session_of(decision: DecisionLine) -> str:
    tags = (decision.get("args") or {}).get("tags")
    if isinstance(tags, dict) and tags.get("session_id") is not None:
        return str(tags["session_id"])
    return str(decision.get("session_id"))


def attribution_block(lines: Sequence[ResultLine], stages: dict[str, str]) -> AttributionSummary | None:
    """summary.json's `attribution`: counts and shares by stage, overall and by question type (None when no
    question was judged)."""
    rows = [(str(r.get("question_type") or "unknown"), stages[str(r.get("question_id"))]) for r in lines
            if str(r.get("question_id")) in stages]
    if not rows:
        return None

    def cell(found: list[str]) -> StageCell:
        counts = {s: found.count(s) for s in STAGES}
        return {"n": len(found), "counts": counts, "shares": {s: round(c / len(found), 4) for s, c in counts.items()}}

    by_type = {t: cell([s for tt, s in rows if tt == t]) for t in sorted({t for t, _ in rows})}
    overall = cell([s for _, s in rows])
    memory = sum(overall["counts"][s] for s in MEMORY_STAGES)
    notes = []
    if overall["counts"]["no_evidence"]:
        notes.append(f"{overall['counts']['no_evidence']} wrong answers have no evidence labels: not attributed")
    damaged = {str(r.get("question_id")): bad for r in lines if (bad := bad_turn_indexes(r))}
    if damaged:
        first, values = next(iter(damaged.items()))
        notes.append(f"{len(damaged)} results line(s) name an evidence turn_index that is not a whole number (first: "
                     f"{first[:80]} with {json.dumps(values[0], default=str)[:40]}): those evidence turns were skipped")
    if overall["counts"]["unattributed"]:
        notes.append(f"{overall['counts']['unattributed']} wrong answers came from an outside agent that keeps its own "
                     "memory and reported no retrieval: what it wrote or found cannot be inspected")
    return {"stages": list(STAGES), "n": overall["n"], "counts": overall["counts"], "shares": overall["shares"],
            "lost_by_memory": memory, "by_type": by_type, "write_match": WRITE_MATCH, "seen_match": SEEN_MATCH,
            "notes": notes}
