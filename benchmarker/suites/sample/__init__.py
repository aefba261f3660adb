"""The generated LongMemEval-format sample: LongMemEval's suite on a file written into the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarker.suites.longmemeval import LongMemEval
from benchmarker.suites.sample.data import write_sample
from benchmarker.suites.sample.options import SampleOptions


class Sample(LongMemEval):
    name = "sample"
    dataset_options = SampleOptions
    reads_dataset_file = False
    reads_file = False

    def data_file(self, config: Any, run_dir: Path) -> tuple[Path, str]:
        path = run_dir / "data" / "sample_longmemeval.json"
        if not path.exists():
            size = SampleOptions.of(config.dataset)
            write_sample(path, seed=config.dataset.seed, questions_per_type=size.questions_per_type,
                         sessions_per_question=size.sessions_per_question)
        return path, f"generated LongMemEval-format sample (seed {config.dataset.seed})"


SUITE = Sample()
