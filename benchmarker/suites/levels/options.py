"""The levels suite's own `[dataset]` key: which of L1-L16 to run."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from benchmarker.config_schema import ALL_LEVELS, each_once
from benchmarker.suites.options import SuiteOptions


class LevelsOptions(SuiteOptions):
    """`levels`: the levels to run, each once, in the order given (default: all 16)."""

    levels: tuple[Literal[ALL_LEVELS], ...] = Field(default=ALL_LEVELS, strict=False)  # type: ignore[valid-type]

    @field_validator("levels")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return each_once(value)

    @field_validator("levels")
    @classmethod
    def _non_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError('must not be empty; e.g. levels = ["L1", "L2"]')
        return value
