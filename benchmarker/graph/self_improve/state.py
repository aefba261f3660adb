"""The self-improve loop's state: plain JSON-like values, so the checkpointer can persist every step.

Per-question scores stay on disk (`self_improve/evals/<key>/scores.json`); the state holds
candidate records (index, key, tunables, split scores) and what each phase decided.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from benchmarker.graph.self_improve.shapes import (
    Analysis,
    Candidate,
    Challenge,
    IterationLine,
    Outcome,
    Proposal,
    Tally,
)


class LoopState(TypedDict, total=False):
    iteration: int                                        # 1-based, the one in progress
    iterations: int                                       # [self_improve].iterations
    split: dict[str, list[str]]                           # {"train": [...], "holdout": [...]} question ids
    start: Candidate                                      # candidate 0 with its train / holdout scores
    best: Candidate                                       # the candidate in force: always the best so far
    tried: Annotated[list[str], operator.add]             # candidate keys proposed or evaluated
    next_index: int                                       # the next candidate directory number
    analysis: Analysis                                    # ANALYZE of `best` on the training split
    proposal: Proposal | None
    challenge: Challenge | None
    vote: Tally | None
    candidate: Candidate | None                           # APPLY's result, scored by RE-EVAL
    outcome: Outcome | None                               # set when a phase ends the iteration early
    history: Annotated[list[IterationLine], operator.add]  # one self_improve.jsonl line per iteration
    finished: bool
