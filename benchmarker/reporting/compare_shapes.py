"""What `compare` computes between two runs, as types: the verdict, the paired cells, the per-type table.

These are TypedDicts, not models: `compare` and the run browser's compare page build them in memory and read them
back by key, and a dict is what the browser's page is drawn from; typing them changes no byte shown.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

# stats.paired_bootstrap: diff, lo, hi (None without pairs), iterations, seed
Bootstrap = dict[str, float | int | None]


class PairedCell(TypedDict):
    """One paired figure over the questions both runs have it for (compare_verdict.paired_cell)."""

    n: int
    base: float
    other: float
    diff: float                  # with its bootstrap 95% interval: a cell has one pair at least
    lo: float
    hi: float
    p: float | None              # exact McNemar, for 0/1 values
    p_holm: NotRequired[float]   # Holm-adjusted over the per-type table (compare_by_type.py)


class Verdict(TypedDict, total=False):
    """The deciding metric's cell, then (adjust_verdicts) its Holm-adjusted p and its one `verdict:` sentence."""

    metric: str | None
    cell: PairedCell | None
    baseline: str
    run: str
    p_holm: float
    family: int
    within_noise: bool
    text: str


class ShareCounts(TypedDict):
    """The questions two runs both have, and how many only one has (compare_verdict.share_counts)."""

    n: int
    total: int
    only_base: int
    only_other: int


class Table(TypedDict):
    """A markdown table: its header, rows of cells, and (the per-type table) the note under it."""

    header: list[str]
    rows: list[list[str]]
    note: NotRequired[str]


class RetrievalStat(TypedDict):
    """One retrieval metric paired per question (retrieval_compare._stats); the 0/1 recalls add McNemar."""

    n: int
    baseline: float
    run: float
    bootstrap: Bootstrap
    better: int
    worse: int
    mcnemar_p: NotRequired[float]
    lost: NotRequired[list[str]]
    gained: NotRequired[list[str]]


class RetrievalPair(TypedDict):
    """retrieval_compare.compare_retrieval: every metric both runs measured, paired."""

    available: bool
    questions: dict[str, int]
    metrics: dict[str, RetrievalStat]


class PairView(TypedDict):
    """What `compare` and the run browser's compare page both open with (compare.paired_view)."""

    share: ShareCounts
    verdict: Verdict
    by_type: Table | None


class Flips(TypedDict):
    correct_to_wrong: list[str]
    wrong_to_correct: list[str]


class StageMoves(TypedDict):
    """attribution_compare.stage_moves: stage in the baseline -> stage in the run, with the ids of each move."""

    n_common: int
    unattributed_lines: int
    moves: dict[str, list[str]]


class PairFigures(PairView):
    """One run against the baseline (compare.compare_pair): flips, McNemar, the bootstrap, retrieval, stages."""

    n_common: int
    excluded_unjudged_or_missing: int
    baseline_accuracy: float | None
    accuracy: float | None
    flips: Flips
    b: int
    c: int
    mcnemar_p: float
    bootstrap: Bootstrap
    retrieval: RetrievalPair
    stages: StageMoves


class Pair(PairFigures):
    """A pair as `compare` reports it: the figures with the two runs' names."""

    baseline: str
    run: str


class NamedView(PairView):
    """The run browser's pair: the shared view with the two runs' names."""

    baseline: str
    run: str


class BrowserPair(TypedDict):
    """The run browser's compare page (compare.browser_pair): the opening lines, the per-type table, speed."""

    opening: list[str]
    by_type: Table | None
    speed: Table
