"""The generated LongMemEval-format sample: LongMemEval's suite on a file written into the run."""

from __future__ import annotations

from pathlib import Path

from benchmarker.suites.longmemeval import LongMemEval
from benchmarker.suites.parts import DataSource
from benchmarker.suites.sample.data import write_sample
from benchmarker.suites.sample.options import SampleOptions
from benchmarker.suites.settings import PlanSettings


class Sample(LongMemEval):
    name = "sample"
    dataset_options = SampleOptions
    data = DataSource()

    def data_file(self, settings: PlanSettings, run_dir: Path) -> tuple[Path, str]:
        path = run_dir / "data" / "sample_longmemeval.json"
        if not path.exists():
            size = SampleOptions.of(settings.dataset)
            write_sample(path, seed=settings.dataset.seed, questions_per_type=size.questions_per_type,
                         sessions_per_question=size.sessions_per_question)
        return path, f"generated LongMemEval-format sample (seed {settings.dataset.seed})"


SUITE = Sample()
