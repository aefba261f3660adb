"""The generated sample's own `[dataset]` keys: its size."""

from __future__ import annotations

from pydantic import Field

from benchmarker.suites.options import SuiteOptions


class SampleOptions(SuiteOptions):
    """How many questions per LongMemEval type, and how many evidence sessions each question mixes in."""

    questions_per_type: int = Field(2, ge=1, le=50)
    sessions_per_question: int = Field(8, ge=3, le=200)
