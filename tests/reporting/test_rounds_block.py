"""The adversary rounds' block on known rows: accuracy over judged answers only, the worst categories
worst-first (two planted bugs survived the older tests)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.reporting.rounds import LOG_FILE, rounds_block


def row(qid: str, category: str, label: bool | None, round_: int = 0) -> dict:
    return {"question_id": qid, "category": category, "label": label, "round": round_}


def test_accuracy_counts_judged_answers_and_the_worst_come_first(tmp_path: Path):
    (tmp_path / LOG_FILE).write_text(json.dumps({"round": 1, "proposed": 2, "verified": 2, "questions": ["a", "b"]})
                                     + "\n", encoding="utf-8")
    results = [row("q1", "dates", True), row("q2", "dates", True), row("q3", "dates", None),  # unjudged
               row("q4", "names", False), row("q5", "names", True),
               row("q6", "places", False), row("q7", "places", False),
               row("q8", "counts", True),
               row("a", "names", False, 1), row("b", "names", None, 1)]
    block = rounds_block(results, tmp_path)["rounds"]
    zero, one = block[0], block[1]
    assert (zero["questions"], zero["judged"]) == (8, 7)
    assert zero["accuracy"] == 4 / 7  # not 4 / 8: an unjudged answer is neither right nor wrong
    assert zero["worst"] == ["places", "names", "dates"]  # 0%, 50%, then at 100% the one with more answers
    assert zero["by_category"]["places"] == {"n": 2, "accuracy": 0.0}
    assert (one["questions"], one["judged"], one["accuracy"], one["worst"]) == (2, 1, 0.0, ["names"])
