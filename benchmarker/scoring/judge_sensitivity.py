"""Does the judge decide it? Every judging of one run's answers side by side, from the run directory's files alone.

A run is judged once by its own judge (results.jsonl) and again by each `score RUN_DIR CONFIG`
(scores/<judge>/results.jsonl). The same answers can score very differently under another judge prompt or
model, so a published number should show how far its judges agree. With two judgings or more this computes:

- the questions every judging has a line for, and of those the `paired` ones every judge labelled
  (a judge's unjudged answers are counted beside it, never as wrong); every figure below is over the paired
  questions, so each judge is measured on the same answers;
- accuracy under each judge, overall and per question type (95% Wilson interval, as the `qa` block);
- the spread, max - min of those accuracies, with a paired bootstrap interval: questions are resampled
  with replacement (the same indices for every judge), the spread recomputed each time, and the 2.5 / 97.5
  percentiles taken (2,000 resamples, seed 0). A spread of 0 on the sample can still have an interval above 0;
- agreement and Cohen's kappa for every pair of judges; kappa is null where it is undefined (a judge that
  gave one label to every question leaves nothing beyond chance to measure);
- the questions the judges disagree on, with each judge's label.

The round-0 questions only (adversarial rounds are not the run's score), latest line per question, as the
`qa` block reads them; answers nothing was asked to judge (retrieval-only) and questions whose index was not
searchable are left out as there.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import TypedDict

import numpy as np

from benchmarker.log.jsonl import latest_by
from benchmarker.log.lines import ResultLine
from benchmarker.scoring.calibration.agreement import kappa
from benchmarker.scoring.calibration.store import judge_label, results_judge
from benchmarker.scoring.qa_metrics import AccuracyCell, cell, not_graded
from benchmarker.scoring.records import checked_results
from benchmarker.scoring.searchable import split_searchable

ITERATIONS = 2000
SEED = 0
RESULTS = "results.jsonl"
SCORES_DIR = "scores"


class JudgeRow(TypedDict):
    """One judging: where its lines are, which judge and model, how many lines and unjudged answers."""

    name: str
    source: str
    own: bool
    judge: str | None
    model: str | None
    lines: int
    unjudged: int


class Spread(TypedDict):
    value: float | None
    ci95: list[float] | None
    highest: str | None
    lowest: str | None


class GroupAccuracy(TypedDict):
    """Each judge's accuracy over some paired questions (all, or one type), and the spread."""

    n: int
    judges: dict[str, AccuracyCell]
    spread: Spread


class PairAgreement(TypedDict):
    a: str
    b: str
    n: int
    agree: int
    agreement: float | None
    kappa: float | None
    only_a_correct: int
    only_b_correct: int


class Disagreement(TypedDict):
    question_id: str
    question_type: str
    labels: dict[str, bool | None]


class Sensitivity(TypedDict):
    """summary.json's `judge_sensitivity` (module docstring), in the order its keys are written."""

    judges: list[JudgeRow]
    questions: int
    paired: int
    overall: GroupAccuracy
    by_type: dict[str, GroupAccuracy]
    pairs: list[PairAgreement]
    disagreements: list[Disagreement]
    bootstrap: dict[str, int]
    notes: list[str]


def read_judgings(run_dir: Path) -> dict[str, list[ResultLine]]:
    """{judge name: its results lines}: the run's own judge first, then each scores/<judge>/ folder by name.
    The run's own judge is named after its judge label with " (run)" added, so a re-judging by the same judge
    stays apart from it."""
    own = _scored(run_dir / RESULTS)
    if not own:
        return {}
    found = results_judge(own)
    judgings = {f"{judge_label(*found) if found else 'judge'} (run)": own}
    scores = run_dir / SCORES_DIR
    for folder in sorted(p for p in scores.iterdir() if p.is_dir()) if scores.is_dir() else []:
        lines = _scored(folder / RESULTS)
        if lines:
            judgings[folder.name] = lines
    return judgings


def _scored(path: Path) -> list[ResultLine]:
    lines = checked_results(path) if path.is_file() else []  # their shapes checked
    return _measured(latest_by(lines, "question_id"))


def _measured(lines: list[ResultLine]) -> list[ResultLine]:
    """The lines the `qa` block measures: round 0, graded, searchable."""
    return split_searchable([r for r in lines if not r.get("round") and not not_graded(r)])[0]


def judge_sensitivity(run_dir: Path) -> Sensitivity | None:
    """summary.json's `judge_sensitivity` for a run directory; None with fewer than two judgings."""
    return sensitivity_block(read_judgings(run_dir))


def sensitivity_block(judgings: dict[str, list[ResultLine]], *, iterations: int = ITERATIONS,
                      seed: int = SEED) -> Sensitivity | None:
    """The block from {judge name: results lines} (module docstring); None with fewer than two judgings."""
    if len(judgings) < 2:
        return None
    names = list(judgings)
    by_judge = {name: {str(r.get("question_id")): r for r in _measured(lines)} for name, lines in judgings.items()}
    own = by_judge[names[0]]
    common = [q for q in own if all(q in by_judge[n] for n in names)]
    labels = {q: [by_judge[n][q].get("label") for n in names] for q in common}
    paired = [q for q in common if all(isinstance(v, bool) for v in labels[q])]
    types = {q: str(own[q].get("question_type") or "unknown") for q in paired}
    matrix = np.array([[labels[q][j] for q in paired] for j in range(len(names))], dtype=bool).reshape(len(names), -1)

    def accuracies(columns: list[int]) -> GroupAccuracy:
        cells = {n: cell(bool(v) for v in matrix[j, columns]) for j, n in enumerate(names)}
        return {"n": len(columns), "judges": cells, "spread": _spread(names, matrix[:, columns], iterations, seed)}

    by_type = {t: accuracies([i for i, q in enumerate(paired) if types[q] == t]) for t in sorted(set(types.values()))}
    return {"judges": [_judge_entry(n, by_judge[n], common, own=i == 0) for i, n in enumerate(names)],
            "questions": len(common), "paired": len(paired),
            "overall": accuracies(list(range(len(paired)))), "by_type": by_type,
            "pairs": [_pair(names[a], names[b], matrix[a], matrix[b]) for a, b in combinations(range(len(names)), 2)],
            "disagreements": [{"question_id": q, "question_type": types[q],
                               "labels": dict(zip(names, labels[q], strict=True))}
                              for q in paired if len(set(labels[q])) > 1],
            "bootstrap": {"iterations": iterations, "seed": seed},
            "notes": _notes(names, by_judge, own, common, paired)}


def _judge_entry(name: str, by_qid: dict[str, ResultLine], common: list[str], *, own: bool) -> JudgeRow:
    found = results_judge(by_qid.values())
    return {"name": name, "source": RESULTS if own else f"{SCORES_DIR}/{name}/{RESULTS}", "own": own,
            "judge": found[0] if found else None, "model": (found[1] or None) if found else None,
            "lines": len(by_qid), "unjudged": sum(1 for q in common if not isinstance(by_qid[q].get("label"), bool))}


def _spread(names: list[str], matrix: np.ndarray, iterations: int, seed: int) -> Spread:
    """max - min of the judges' accuracies over these questions (rows: judges), with a paired bootstrap interval."""
    n = matrix.shape[1]
    if n == 0:
        return {"value": None, "ci95": None, "highest": None, "lowest": None}
    acc = matrix.mean(axis=1)
    rng = np.random.default_rng(seed)
    values = np.empty(iterations)
    for start in range(0, iterations, 500):  # chunks keep memory flat at n=500 with several judges
        idx = rng.integers(0, n, size=(min(500, iterations - start), n))
        resampled = matrix[:, idx].mean(axis=2)  # judges x resamples
        values[start:start + idx.shape[0]] = resampled.max(axis=0) - resampled.min(axis=0)
    lo, hi = np.percentile(values, [2.5, 97.5])
    return {"value": float(acc.max() - acc.min()), "ci95": [float(lo), float(hi)],
            "highest": names[int(acc.argmax())], "lowest": names[int(acc.argmin())]}


def _pair(a: str, b: str, x: np.ndarray, y: np.ndarray) -> PairAgreement:
    n = int(x.size)
    agree = int((x == y).sum())
    return {"a": a, "b": b, "n": n, "agree": agree, "agreement": agree / n if n else None,
            "kappa": kappa(x.tolist(), y.tolist()) if n else None,
            "only_a_correct": int((x & ~y).sum()), "only_b_correct": int((~x & y).sum())}


def _notes(names: list[str], by_judge: dict[str, dict[str, ResultLine]], own: dict[str, ResultLine],
           common: list[str], paired: list[str]) -> list[str]:
    notes = []
    for name in names[1:]:
        missing = len(own) - sum(1 for q in own if q in by_judge[name])
        if missing:
            notes.append(f"{name} has no line for {missing} of the run's {len(own)} questions (a re-judging cut short: "
                         "the same `score` command finishes it); they are left out of every figure")
    if len(common) > len(paired):
        notes.append(f"{len(common) - len(paired)} question(s) some judge left unjudged are left out of every figure")
    return notes
