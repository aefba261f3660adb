"""The JSON shapes LoCoMo writes: a results line's `locomo` scores and evidence repairs, and the dict form of
summary.json's `locomo` block (summary_model.py reads it back as a pydantic model). Typed so the writer and
its readers spell the keys alike; they change no byte written."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.log.lines import LocomoScores
from benchmarker.scoring.qa_metrics import AccuracyCell

# A question's evidence id that was dropped ({id, reason}) or repaired ({id, as}): the question's evidence,
# a results line's `evidence_dropped` / `evidence_repaired`, and (with the question's id) the block's lists.


class DroppedId(TypedDict):
    """An evidence id that names nothing: as written, and why (evidence.UNPARSEABLE or NO_TURN)."""

    question_id: NotRequired[str | None]
    id: str
    reason: str


# class syntax cannot name a key `as`
RepairedId = TypedDict("RepairedId", {"question_id": NotRequired["str | None"], "id": str, "as": str})


class EvidenceBlock(TypedDict):
    """summary.json `locomo.evidence` and the manifest's `dataset.evidence`: counts, then every id listed."""

    dropped: int
    unparseable: int
    names_no_turn: int
    repaired: int
    dropped_ids: list[DroppedId]
    repaired_ids: list[RepairedId]


LexicalScores = LocomoScores   # a results line's `locomo` key (log/lines.py types it for every reader)


class MeanCi(TypedDict):
    """n, mean and the 95% bootstrap interval of the mean (None when n == 0)."""

    n: int
    mean: float | None
    ci95: list[float] | None


class CategoryStats(TypedDict, total=False):
    """A row of the block: by_category's, `overall` (categories 1-4) or `adversarial` (category 5)."""

    name: str
    category: str
    categories: list[str]
    questions: int
    judge: AccuracyCell
    f1: MeanCi
    bleu1: MeanCi


class SummaryBlock(TypedDict, total=False):
    """summary.json's `locomo` block (keys documented in reporting/summary.py)."""

    categories: dict[str, str]
    by_category: dict[str, CategoryStats]
    overall: CategoryStats
    adversarial: CategoryStats
    evidence: EvidenceBlock
    intervals: dict[str, str]
    notes: list[str]
