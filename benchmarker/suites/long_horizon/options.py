"""The long-horizon dialogue's own `[dataset]` keys: its length, its question count and the holdout set."""

from __future__ import annotations

from pydantic import Field

from benchmarker.suites.options import SuiteOptions


class LongHorizonOptions(SuiteOptions):
    """The generated dialogue's size (100-5000 turns), its questions, and whether they are the disjoint holdout."""

    turns: int = Field(300, ge=100, le=5000)
    questions: int = Field(40, ge=1, le=1000)
    holdout: bool = False
