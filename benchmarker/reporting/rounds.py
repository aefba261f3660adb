"""Adversarial rounds in a run's summary: round 0 (the dataset's questions) against each round of
verified harder questions (graph/adversary.py), with the adversary's own counts.

The main metrics of summary.json stay round 0 only, so a run with the adversary on is comparable
with one without; this block holds every round side by side. A round that asked nothing (every
candidate dropped, none left, or no category with a wrong answer to aim at) is a row of its own
with a note saying why, never an absent block.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.lines import ResultLine

LOG_FILE = "adversary.jsonl"


def adversary_ran(run_dir: Path) -> bool:
    """Whether the run's adversary logged any round (one that asked nothing included)."""
    return any(True for _ in read_jsonl(Path(run_dir) / LOG_FILE))


class CategoryCell(TypedDict):
    n: int
    accuracy: float


class RoundRow(TypedDict):
    """One round's answers: how many, judged, accuracy, per category and the three worst categories."""

    questions: int
    judged: int
    accuracy: float | None
    by_category: dict[str, CategoryCell]
    worst: list[str]


class AdversaryCounts(TypedDict):
    cases: int
    proposed: int
    verified: int
    dropped: int
    asked: int
    drop_reasons: dict[str, int]


class AdversaryRow(AdversaryCounts):
    """One round of the adversary: its counts, and the sentence that says why it asked what it asked."""

    note: str


class RoundsBlock(TypedDict):
    """summary.json's `rounds` (summary.py documents it)."""

    rounds: dict[int, RoundRow]
    adversary: dict[int, AdversaryRow]


def rounds_block(results: Sequence[ResultLine], run_dir: Path) -> RoundsBlock:
    """{"rounds": {N: {questions, judged, accuracy, by_category, worst}}, "adversary": {N: cases / proposed /
    verified / dropped / asked / drop_reasons / note}}; every logged round has a row, asked or not."""
    lines = list(read_jsonl(Path(run_dir) / LOG_FILE))
    by_round: dict[int, list[ResultLine]] = {int(line["round"]): [] for line in lines}
    for result in results:
        by_round.setdefault(int(result.get("round") or 0), []).append(result)
    rounds: dict[int, RoundRow] = {}
    for round_, rows in sorted(by_round.items()):
        judged = [r for r in rows if r.get("label") is not None]
        cats: dict[str | int, list[bool]] = defaultdict(list)  # LoCoMo's categories are numbers
        for r in judged:
            cats[r.get("category") or r.get("question_type") or "uncategorised"].append(bool(r["label"]))
        by_category: dict[str, CategoryCell] = {str(c): {"n": len(v), "accuracy": sum(v) / len(v)}
                                                for c, v in sorted(cats.items())}
        worst = sorted(by_category, key=lambda c: (by_category[c]["accuracy"], -by_category[c]["n"]))[:3]
        rounds[round_] = {"questions": len(rows), "judged": len(judged),
                          "accuracy": sum(bool(r["label"]) for r in judged) / len(judged) if judged else None,
                          "by_category": by_category, "worst": worst}
    logged: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        logged[int(line["round"])].append(line)
    adversary = {round_: _adversary_row(round_, logged[round_]) for round_ in sorted(logged)}
    return {"rounds": rounds, "adversary": adversary}


def _adversary_row(round_: int, lines: list[dict[str, Any]]) -> AdversaryRow:
    row: AdversaryCounts = {"cases": len(lines), "proposed": sum(int(x.get("proposed") or 0) for x in lines),
                            "verified": sum(int(x.get("verified") or 0) for x in lines),
                            "dropped": sum(len(x.get("dropped") or []) for x in lines),
                            "asked": sum(len(x["questions"]) if "questions" in x else int(x.get("verified") or 0)
                                         for x in lines),
                            "drop_reasons": _drop_reasons(lines)}
    head = f"Round {round_} asked nothing" if not row["asked"] else f"Round {round_} asked {row['asked']} question(s)"
    return {**row, "note": f"{head}: {why_nothing(lines)}"}


def _drop_reasons(lines: list[dict[str, Any]]) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for drop in (d for line in lines for d in line.get("dropped") or []):
        kind = drop["reason"].split(":")[0] if ":" in drop["reason"] else drop["reason"].split(" (")[0]
        kind = "does appear in the dialogue" if kind.endswith("does appear in the dialogue") else kind
        reasons[kind] = reasons.get(kind, 0) + 1
    return reasons


def why_nothing(lines: list[dict[str, Any]]) -> str:
    """What a round's logged lines (one per case) proposed and dropped, and why that left nothing to ask."""
    proposed = sum(int(x.get("proposed") or 0) for x in lines)
    dropped = sum(len(x.get("dropped") or []) for x in lines)
    idle = [x for x in lines if not x.get("proposed")]   # cases whose proposer had nothing to offer
    no_target = sum(1 for x in idle if not x.get("weak_categories"))
    parts = []
    if proposed:
        reasons = _drop_reasons(lines)
        told = f" ({'; '.join(f'{k}: {v}' for k, v in sorted(reasons.items()))})" if reasons else ""
        weak = sorted({c for x in lines if x.get("proposed") for c in x.get("weak_categories") or []})
        parts.append(f"{proposed} proposed, {dropped} dropped{told}" + (f", aimed at {', '.join(weak)}" if weak else ""))
    of = "" if len(idle) == len(lines) == 1 else f" in {{}} of {len(lines)} case(s)"
    if no_target:
        parts.append("no category had a wrong answer to aim at" + of.format(no_target))
    if len(idle) > no_target:
        weak = sorted({c for x in idle for c in x.get("weak_categories") or []})
        parts.append(f"no unasked candidate was left in {', '.join(weak)}" + of.format(len(idle) - no_target))
    return "; ".join(parts) or "nothing was proposed"


def rounds_section(block: RoundsBlock) -> str:
    lines = ["| round | questions | accuracy | worst categories | proposed | verified | dropped |",
             "|---|---|---|---|---|---|---|"]
    for round_, row in block["rounds"].items():
        adv = block["adversary"].get(round_)
        acc = "n/a" if row["accuracy"] is None else f"{row['accuracy']:.1%}"
        worst = ", ".join(f"{c} ({row['by_category'][c]['accuracy']:.0%})" for c in row["worst"])
        counts = [str(adv[key]) if adv is not None else "-" for key in ("proposed", "verified", "dropped")]
        lines.append(f"| {round_} | {row['questions']} | {acc} | {worst} | {counts[0]} | {counts[1]} | {counts[2]} |")
    notes = [adv["note"] for adv in block["adversary"].values() if adv.get("note")]
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    reasons = {k: v for adv in block["adversary"].values() for k, v in adv["drop_reasons"].items()}
    if reasons:
        lines += ["", "Dropped (the gold answer could not be checked against the dialogue): "
                  + "; ".join(f"{k}: {v}" for k, v in sorted(reasons.items()))]
    return "\n".join(lines)
