"""LoCoMo evidence ids ("D<N>:<i>": turn i of session N), read leniently and never lost silently.

locomo10.json has slips: "D:11:26" (conv-43, meaning D11:26), a bare "D" (conv-42), ids joined in
one string ("D8:6; D9:17"), stray spaces ("D11 :26"). The obvious slips are repaired to the id they
mean and listed as repaired; anything else is returned as unparseable, so the loader can count and
list it beside the ids that name no turn. Parsing never raises: any JSON value goes in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from benchmarker.log.lines import Json, ResultLine
from benchmarker.suites.locomo.shapes import DroppedId, EvidenceBlock, RepairedId

UNPARSEABLE = "unparseable"
NO_TURN = "names no turn"
# D, an optional stray colon, the session number, a colon, the turn number; spaces anywhere between.
_ID = re.compile(r"[dD]\s*:?\s*(\d+)\s*:\s*(\d+)")
_SEPARATORS = re.compile(r"[;,]|\s+(?=[dD])")   # "D1:2; D1:3", "D1:2, D1:3", "D1:2 D1:3"
_EDGES = " \t\r\n\f\v;,."


@dataclass
class Evidence:
    """One question's evidence: the ids (session, turn) in order, each once; what was repaired
    (as written, canonical); what could not be read (as written)."""

    ids: list[tuple[int, int]] = field(default_factory=list)
    repaired: list[tuple[str, str]] = field(default_factory=list)
    unparseable: list[str] = field(default_factory=list)


def canonical(session: int, turn: int) -> str:
    return f"D{session}:{turn}"


def parse_evidence(value: Json) -> Evidence:
    """Every id in a question's `evidence` (a list of strings, or one string)."""
    out = Evidence()
    items = value if isinstance(value, list) else [] if value is None else [value]
    for item in items:
        if not isinstance(item, str):
            _add_unparseable(out, json.dumps(item, ensure_ascii=False, default=str))
            continue
        for piece in _SEPARATORS.split(item):
            _read(out, piece)
    return out


def _read(out: Evidence, piece: str) -> None:
    token = piece.strip().strip(_EDGES).strip()
    if not token:
        return
    match = _ID.fullmatch(token)
    if match is None:
        _add_unparseable(out, piece.strip() or token)
        return
    pair = (int(match.group(1)), int(match.group(2)))
    written = piece.strip()
    if written.rstrip(";,") != canonical(*pair) and (written, canonical(*pair)) not in out.repaired:
        out.repaired.append((written, canonical(*pair)))
    if pair not in out.ids:
        out.ids.append(pair)


def _add_unparseable(out: Evidence, text: str) -> None:
    if text not in out.unparseable:
        out.unparseable.append(text)


# --- telling the user: summary.json's `locomo.evidence`, its note, the manifest ------------------

SHOWN = 10   # dropped ids a note lists by name (summary.json and the manifest list them all)


def evidence_block(dropped: list[DroppedId], repaired: list[RepairedId]) -> EvidenceBlock:
    """Counts and lists: dropped [{question_id, id, reason}], repaired [{question_id, id, as}]."""
    reasons = [d.get("reason") for d in dropped]
    return {"dropped": len(dropped), "unparseable": reasons.count(UNPARSEABLE), "names_no_turn": reasons.count(NO_TURN),
            "repaired": len(repaired), "dropped_ids": dropped, "repaired_ids": repaired}


def block_of_results(results: Sequence[ResultLine]) -> EvidenceBlock:
    """The evidence block over a run's questions, from the `evidence_dropped` / `evidence_repaired`
    keys of its results lines."""
    dropped: list[DroppedId] = [{"question_id": r.get("question_id"), **d} for r in results
                                for d in cast("list[DroppedId]", r.get("evidence_dropped") or [])]
    repaired: list[RepairedId] = [{"question_id": r.get("question_id"), **d} for r in results
                                  for d in cast("list[RepairedId]", r.get("evidence_repaired") or [])]
    return evidence_block(dropped, repaired)


def counts_text(block: EvidenceBlock) -> str:
    """"2 (1 unparseable, 1 name no turn); 1 repaired"."""
    text = f"{block['dropped']} ({block['unparseable']} unparseable, {block['names_no_turn']} name no turn)"
    return text + (f"; {block['repaired']} repaired" if block.get("repaired") else "")


def evidence_note(block: EvidenceBlock, where: str = "this run's questions") -> str | None:
    """One line naming the dropped ids (the first SHOWN); None when nothing was dropped or repaired."""
    if not block.get("dropped") and not block.get("repaired"):
        return None
    listed = ", ".join(f"{d['question_id']} `{d['id']}` ({d['reason']})" for d in block["dropped_ids"][:SHOWN])
    more = f", and {block['dropped'] - SHOWN} more" if block["dropped"] > SHOWN else ""
    repaired = ", ".join(f"`{r['id']}` -> {r['as']}" for r in block["repaired_ids"][:3])
    text = f"LoCoMo: {block['dropped']} evidence id(s) dropped ({block['unparseable']} unparseable, " \
           f"{block['names_no_turn']} name no turn) from {where}"
    text += f": {listed}{more}; retrieval is scored on the evidence that remains" if block["dropped"] else ""
    if block.get("repaired"):
        text += f"; {block['repaired']} repaired ({repaired}{', ...' if block['repaired'] > 3 else ''})"
    return text
