"""How far the deterministic grader agrees with published judge labels (../shared/data/judge).

Prints agreement and Cohen's kappa overall, per question type, for `_abs` and per labels file, and
writes every disagreement to runs/grader_agreement/disagreements.jsonl to study. `--split dev|check`
keeps half of the question ids (a stable hash) apart, so rules studied on one half are checked on
the other. The `calibrate` verb is the user-facing tool; this is the grader's development bench.

    PYTHONPATH=. python bench/grader_agreement.py [--split dev|check] [--out runs/grader_agreement]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from pathlib import Path

from benchmarker.scoring.grader import grade_deterministic

REPO = Path(__file__).resolve().parents[1]
JUDGE = REPO.parent / "shared" / "data" / "judge"


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa of (verdict, label) pairs; nan when chance agreement is 1."""
    n = len(pairs)
    if not n:
        return float("nan")
    agree = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    return float("nan") if chance == 1 else (agree - chance) / (1 - chance)


def in_split(question_id: str, split: str | None) -> bool:
    if split is None:
        return True
    half = int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 2
    return (half == 0) == (split == "dev")


def row(name: str, pairs: list[tuple[bool, bool]]) -> str:
    agree = sum(a == b for a, b in pairs) / len(pairs) if pairs else float("nan")
    return f"| {name} | {len(pairs)} | {agree:.3f} | {kappa(pairs):.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "check"))
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "grader_agreement")
    args = parser.parse_args()
    if not JUDGE.is_dir():
        raise SystemExit(f"no labelled data at {JUDGE}")
    questions = {q["question_id"]: q for q in json.loads((JUDGE / "longmemeval_questions.json").read_text())}
    args.out.mkdir(parents=True, exist_ok=True)
    groups: dict[str, dict[str, list[tuple[bool, bool]]]] = {}
    with (args.out / "disagreements.jsonl").open("w", encoding="utf-8") as dump:
        for path in sorted(JUDGE.glob("*.eval-results-*.jsonl")):
            by: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
            for line in path.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                q = questions[rec["question_id"]]
                if not in_split(q["question_id"], args.split):
                    continue
                label = bool(rec["autoeval_label"]["label"])
                got = grade_deterministic(q["question_type"], q["question_id"], q["answer"], rec["hypothesis"],
                                          question=q["question"])
                pair = (got.label, label)
                by["all"].append(pair)
                by[q["question_type"]].append(pair)
                if q["question_id"].endswith("_abs"):
                    by["_abs"].append(pair)
                if got.label != label:
                    dump.write(json.dumps({"file": path.name.split(".")[0], "question_id": q["question_id"],
                                           "type": q["question_type"], "question": q["question"], "gold": q["answer"],
                                           "label": label, "verdict": got.label, "reason": got.reason,
                                           "hypothesis": rec["hypothesis"]}) + "\n")
            groups[path.name.split(".")[0]] = by
    print("| group | n | agreement | kappa |\n|---|---|---|---|")
    for name, by in groups.items():
        print(row(f"**{name}**", by["all"]))
        if name.startswith("engrava"):
            for key in sorted(k for k in by if k != "all"):
                print(row(f"  {key}", by[key]))
    mini: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for name, by in groups.items():
        if "gpt-4o-mini" in name or "hunk" in name:
            for key, pairs in by.items():
                mini[key] += pairs
    print(row("**all gpt-4o-mini files**", mini["all"]))
    for key in sorted(k for k in mini if k != "all"):
        print(row(f"  {key}", mini[key]))


if __name__ == "__main__":
    main()
