"""Adversarial rounds in a run's summary: round 0 (the dataset's questions) against each round of
verified harder questions (graph/adversary.py), with the adversary's own counts.

The main metrics of summary.json stay round 0 only, so a run with the adversary on is comparable
with one without; this block holds every round side by side.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarker.log.jsonl import read_jsonl


def rounds_block(results: list[dict[str, Any]], run_dir: Path) -> dict[str, Any]:
    """{"rounds": {N: {questions, judged, accuracy, by_category, worst}}, "adversary": {N: proposed / verified / dropped}}."""
    by_round: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        by_round[int(result.get("round") or 0)].append(result)
    rounds = {}
    for round_, rows in sorted(by_round.items()):
        judged = [r for r in rows if r.get("label") is not None]
        cats: dict[str, list[bool]] = defaultdict(list)
        for r in judged:
            cats[r.get("category") or r.get("question_type") or "uncategorised"].append(bool(r["label"]))
        by_category = {c: {"n": len(v), "accuracy": sum(v) / len(v)} for c, v in sorted(cats.items())}
        worst = sorted(by_category, key=lambda c: (by_category[c]["accuracy"], -by_category[c]["n"]))[:3]
        rounds[round_] = {"questions": len(rows), "judged": len(judged),
                          "accuracy": sum(bool(r["label"]) for r in judged) / len(judged) if judged else None,
                          "by_category": by_category, "worst": worst}
    adversary: dict[int, dict[str, Any]] = {}
    for line in read_jsonl(run_dir / "adversary.jsonl"):
        row = adversary.setdefault(int(line["round"]), {"proposed": 0, "verified": 0, "dropped": 0, "drop_reasons": {}})
        row["proposed"] += line["proposed"]
        row["verified"] += line["verified"]
        row["dropped"] += len(line["dropped"])
        for drop in line["dropped"]:
            kind = drop["reason"].split(":")[0] if ":" in drop["reason"] else drop["reason"].split(" (")[0]
            kind = "does appear in the dialogue" if kind.endswith("does appear in the dialogue") else kind
            row["drop_reasons"][kind] = row["drop_reasons"].get(kind, 0) + 1
    return {"rounds": rounds, "adversary": adversary}


def rounds_section(block: dict[str, Any]) -> str:
    lines = ["| round | questions | accuracy | worst categories | proposed | verified | dropped |",
             "|---|---|---|---|---|---|---|"]
    for round_, row in block["rounds"].items():
        adv = block["adversary"].get(round_, {})
        acc = "n/a" if row["accuracy"] is None else f"{row['accuracy']:.1%}"
        worst = ", ".join(f"{c} ({row['by_category'][c]['accuracy']:.0%})" for c in row["worst"])
        lines.append(f"| {round_} | {row['questions']} | {acc} | {worst} | {adv.get('proposed', '-')} | "
                     f"{adv.get('verified', '-')} | {adv.get('dropped', '-')} |")
    reasons = {k: v for adv in block["adversary"].values() for k, v in adv["drop_reasons"].items()}
    if reasons:
        lines += ["", "Dropped (the gold answer could not be checked against the dialogue): "
                  + "; ".join(f"{k}: {v}" for k, v in sorted(reasons.items()))]
    return "\n".join(lines)
