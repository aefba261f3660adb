"""LongMemEval's own `[dataset]` key: which of its files a clone's `dataset_repo_path` names."""

from __future__ import annotations

from typing import Literal

from benchmarker.suites.options import SuiteOptions


class LongMemEvalOptions(SuiteOptions):
    """`variant`: LongMemEval_S, _M or the oracle file (what the `dataset = "s"` shorthand sets)."""

    variant: Literal["s", "m", "oracle"] = "s"
