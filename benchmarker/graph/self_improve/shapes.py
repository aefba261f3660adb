"""The self-improve loop's values as types: what each phase hands the next through the checkpointed state.

They are TypedDicts, not models, because the state is plain JSON-like data the checkpointer persists and
`self_improve.jsonl` / `best.json` / `scores.json` are written from as they are: typing them changes no byte.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

TunableName = Literal["top_k", "alpha", "context_cadence"]
Dimension = Literal["by_type", "by_category", "by_level"]
Decision = Literal["accepted", "reverted", "refused", "stopped"]


class Tunables(TypedDict, total=False):
    """The knobs a candidate sets (allowlist.TUNABLES); alpha None: the service's own."""

    top_k: int
    alpha: float | None
    context_cadence: int | None


class SplitScore(TypedDict):
    n: int
    score: float | None


class Candidate(TypedDict):
    """candidates/<n>/: its tunables and prompt copies (candidate.py); train / holdout once evaluated."""

    index: int
    key: str
    tunables: Tunables
    prompts_hash: str
    parent: int | None
    dir: str
    ingest_prompts: dict[str, str]
    train: NotRequired[SplitScore]
    holdout: NotRequired[SplitScore]


class QuestionRow(TypedDict):
    """One question of scores.json (evaluate.question_row): what ANALYZE and DECIDE read."""

    score: float | None
    type: str
    category: str
    level: str
    cause: str
    recall_any: float | None
    recall_all: float | None
    hits: int
    context_chars: int | None
    question: str
    answer: str
    hypothesis: str
    analyst_cause: NotRequired[str]


Scores = dict[str, QuestionRow]  # question id -> row


class Group(TypedDict):
    n: int
    score: float
    failures: int
    causes: dict[str, int]


class Example(TypedDict):
    question_id: str
    type: str
    question: str
    answer: str
    hypothesis: str


class Analysis(TypedDict, total=False):
    """ANALYZE's account of the training split (analyze.py); `note` is added for the model's prompt."""

    n: int
    score: float | None
    failures: int
    analysis: Literal["analyst", "retrieval"]
    causes: dict[str, int]
    dominant_cause: str | None
    target_cause: str | None
    retrieval_failures: int
    reader_failures: int
    write_failures: int
    grader_failures: int
    chars_per_hit: float | None
    retrieval_causes: dict[str, int]
    cause_pairs: dict[str, dict[str, int]]
    by_type: dict[str, Group]
    by_category: dict[str, Group]
    by_level: dict[str, Group]
    worst: list[tuple[str, str, float, int]]
    examples: dict[str, list[Example]]
    note: str


# A coordinate step of the offline proposer ("from" is a keyword: the functional form)
Step = TypedDict("Step", {"name": str, "direction": str, "from": float, "to": float})


class Proposal(TypedDict, total=False):
    """One change (propose.py), checked by allowlist.check_proposal; `refused` / `stop` end the iteration."""

    kind: str
    delta: Tunables
    diff: str | None
    files: list[str]
    rationale: str
    source: str
    move: Step
    refused: str
    note: str
    stop: str


class Change(TypedDict):
    """change.json's `change`: the proposal a candidate applied (candidate.apply_proposal)."""

    kind: str | None
    delta: Tunables | None
    files: list[str] | None
    rationale: str | None
    source: str | None


class Challenge(TypedDict):
    """CHALLENGE (review.py): the critique, the defence and the concern codes."""

    critique: str
    defence: str
    concerns: list[str]
    targets: list[str]
    addressed: int
    source: str


class Vote(TypedDict):
    reviewer: str
    approve: bool
    reason: str
    source: str


class Tally(TypedDict):
    votes: list[Vote]
    approvals: int
    passed: bool


class Outcome(TypedDict):
    decision: Decision
    stage: str
    reason: str


class McNemar(TypedDict):
    right_to_wrong: int
    wrong_to_right: int
    p: float


class Interval(TypedDict):
    lo: float
    hi: float


class Drop(TypedDict):
    group: str
    name: str
    n: int
    base: float
    candidate: float
    drop: float


class Stats(TypedDict, total=False):
    """DECIDE's paired statistics and verdict over the held-out split (decide.py)."""

    accept: bool
    reason: str
    n: int
    base: float
    candidate: float
    gain: float
    binary: bool
    mcnemar: McNemar
    bootstrap: Interval
    significant: bool
    category_drops: list[Drop]


class Brief(TypedDict):
    """A candidate as the log shows it (log.brief)."""

    index: int | None
    key: str | None
    tunables: Tunables | None
    dir: str | None
    train: SplitScore | None
    holdout: SplitScore | None


class AnalysisBrief(TypedDict, total=False):
    """The analysis as a log line keeps it (log._ANALYSIS_KEYS, then the analyst's keys when present)."""

    n: int | None
    score: float | None
    failures: int | None
    causes: dict[str, int] | None
    dominant_cause: str | None
    worst: list[tuple[str, str, float, int]] | None
    analysis: Literal["analyst", "retrieval"]
    retrieval_causes: dict[str, int]
    target_cause: str | None


class IterationLine(TypedDict):
    """A self_improve.jsonl line as written: `log.SelfImproveRecord` validated it, this is its dump."""

    schema_version: int
    iteration: int
    decision: Decision
    stage: str
    reason: str
    proposal: Proposal | None
    analysis: AnalysisBrief
    challenge: Challenge | None
    votes: list[Vote] | None
    vote_passed: bool | None
    base: Brief | None
    candidate: Brief | None
    stats: Stats | None
    best: Brief | None
    start: Brief | None
