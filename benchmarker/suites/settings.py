"""`PlanSettings`: the slice of a run's config a suite reads to find, plan and grade against its data.

A suite never gets the whole `RunConfig` to plan: it gets its `[dataset]` table (kind, file, seeds and its own
keys), the LongMemEval clone `dataset_repo_path` names (the official judge reads it), and `[run]`'s question
selection. `registry.plan_dataset`, `run/models.py` (official prompts) and `calibrate` build it once with `of`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchmarker.config_schema import DatasetConfig, RunConfig


@dataclass(frozen=True)
class QuestionSelection:
    """`[run]`'s keys that choose a run's questions (datasets/selection.py reads them)."""

    question_ids: tuple[str, ...] = ()
    question_types: tuple[str, ...] = ()
    limit: int = 0
    sample: int = 0
    sample_seed: int = 42


@dataclass(frozen=True)
class PlanSettings:
    """What a suite's plan, official judge source and calibration gold read of a loaded config."""

    dataset: DatasetConfig               # [dataset]: kind, file (resolved), seed(s), the suite's own keys
    run: QuestionSelection = QuestionSelection()
    repo_path: str = ""                  # dataset_repo_path: the user's LongMemEval clone ("" = none)

    @classmethod
    def of(cls, cfg: RunConfig) -> PlanSettings:
        """The settings of a loaded config (its [dataset].file already resolved by config.py)."""
        run = cfg.run
        return cls(cfg.dataset, QuestionSelection(tuple(run.question_ids), tuple(run.question_types), run.limit,
                                                  run.sample, run.sample_seed), cfg.dataset_repo_path)

    @property
    def dataset_path(self) -> Path | None:
        """The resolved data file, as `RunConfig.dataset_path` says it; None when the data is generated."""
        return Path(self.dataset.file) if self.dataset.file else None
