"""The generated LongMemEval-format sample: LongMemEval's suite on a file written into the run."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from benchmarker.suites.longmemeval import SUITE as LONGMEMEVAL
from benchmarker.suites.longmemeval import plan_file
from benchmarker.suites.parts import DataSource
from benchmarker.suites.sample.data import write_sample
from benchmarker.suites.sample.options import SampleOptions
from benchmarker.suites.settings import PlanSettings


def data_file(settings: PlanSettings, run_dir: Path) -> tuple[Path, str]:
    """The sample written into the run's data/ (once: a resumed run reads it again)."""
    path = run_dir / "data" / "sample_longmemeval.json"
    if not path.exists():
        size = SampleOptions.of(settings.dataset)
        write_sample(path, seed=settings.dataset.seed, questions_per_type=size.questions_per_type,
                     sessions_per_question=size.sessions_per_question)
    return path, f"generated LongMemEval-format sample (seed {settings.dataset.seed})"


# LongMemEval's suite (its record kind, scorer, reporting, adversary, judges), on a file of its own making.
SUITE = replace(LONGMEMEVAL, name="sample",
                data=DataSource(partial(plan_file, data_file), options=SampleOptions,
                                question_types=LONGMEMEVAL.data.question_types, problems=LONGMEMEVAL.data.problems))
