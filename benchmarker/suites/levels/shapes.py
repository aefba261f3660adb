"""The JSON shapes of level scoring: the tool calls scored and the
scores scoring.py returns (written to levels.jsonl and results lines). Typed so the scorer and its readers
spell the keys alike; they change no byte written."""

from __future__ import annotations

from typing import TypedDict

from benchmarker.log.lines import Json


class ToolCall(TypedDict):
    """One call of a tool trace, in call order: the tool's name and its arguments."""

    tool: str | None
    args: dict[str, Json]


class CallChecks(TypedDict):
    """One expected call's argument checks against the actual call aligned with it (None: no call)."""

    expected_index: int
    tool: str
    actual_index: int | None
    checks: dict[str, bool]


class ToolTraceDict(TypedDict):
    """ToolTraceScore as JSON."""

    tool_precision: float
    tool_recall: float
    tool_f1: float
    order: float
    args: float
    score: float
    alignment: list[tuple[int, int | None]]
    arg_checks: list[CallChecks]
    missing_tools: list[str]
    extra_tools: list[str]


class ForgettingScore(TypedDict):
    """L14 per question: the current value's credit, the stale values named without and with a marker."""

    current_credit: float
    stale_unmarked: list[str]
    stale_marked: list[str]
    score: float


class AdversarialScore(TypedDict):
    """L15: control accuracy, adversarial abstention and their harmonic mean (the level's score)."""

    control_accuracy: float
    abstention_rate: float
    f_score: float
    balanced_mean: float
    score: float
    n_controls: int
    n_adversarial: int


class UnscoredTrace(TypedDict):
    """L13 without a decision log: the tool trace is not scored."""

    tool_trace: None
    note: str


class DecisionScore(TypedDict):
    """L16 per question (scoring.rubric.decision_breakdown): the option picked, the three parts, their weights."""

    picked: str | None
    correct: str | None
    decision: float
    reasoning: float
    recall: float
    weights: dict[str, float]
    score: float


# score_level's `detail`: per question (L14, L16), the level's balance (L15), per scenario (L13) or why not scored
LevelDetail = (dict[str, ForgettingScore] | AdversarialScore | dict[str, DecisionScore] | dict[str, ToolTraceDict]
               | UnscoredTrace)


class LevelScore(TypedDict):
    """score_level's result: the level's own score, its questions' mean accuracy, the detail, each question's grade."""

    level_id: str
    seed: int
    scoring: str
    score: float
    qa_accuracy: float
    detail: LevelDetail
    questions: dict[str, dict[str, Json]]
