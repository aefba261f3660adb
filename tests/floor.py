"""The offline floor of a finished run, as the pinned tests compare it.

With the offline models (agent, reader) and the deterministic grader a run's labels, accuracy and
retrieval figures are fixed by its config: a test pins them exactly, so a reader that answers
worse (or better) by accident fails a test instead of passing `0 < accuracy < 1`. Each pin is one
dict beside its test; to re-derive it after a deliberate change, set the dict to `{}`, run the test
and copy the values its failure prints.
"""

from __future__ import annotations

import json
import pprint
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def offline_floor(run_dir: Path, metrics: Iterable[str] = (), *, locomo: bool = False) -> dict[str, Any]:
    """{"accuracy", "labels" {question_id: label}, "retrieval" {metric: value}} rounded to 4 places
    (plus LoCoMo's mean F1 / BLEU-1 with `locomo`)."""
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    accuracy = summary["qa"]["overall"]["accuracy"]
    found = summary["retrieval"]["metrics"]
    out: dict[str, Any] = {
        "accuracy": None if accuracy is None else round(accuracy, 4),
        "labels": {r["question_id"]: r["label"] for r in sorted(_lines(run_dir / "results.jsonl"),
                                                                key=lambda r: r["question_id"])},
        "retrieval": {m: None if found.get(m) is None else round(found[m], 4) for m in metrics},
    }
    if locomo:
        overall = summary["locomo"]["overall"]
        out["locomo"] = {"f1": round(overall["f1"]["mean"], 4), "bleu1": round(overall["bleu1"]["mean"], 4)}
    return out


def pinned(got: dict[str, Any]) -> str:
    """The assertion message: what the run gave, ready to paste as the new pin."""
    return "offline floor changed; if deliberate, paste this as the new pin:\n" + pprint.pformat(got, width=120)
