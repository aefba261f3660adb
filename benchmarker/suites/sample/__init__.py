"""The generated LongMemEval-format sample: LongMemEval's suite on a file written into the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarker.suites.longmemeval import LongMemEval
from benchmarker.suites.sample.data import write_sample


class Sample(LongMemEval):
    name = "sample"
    reads_dataset_file = False
    reads_file = False

    def data_file(self, config: Any, run_dir: Path) -> tuple[Path, str]:
        path = run_dir / "data" / "sample_longmemeval.json"
        if not path.exists():
            write_sample(path, seed=config.dataset.seed, questions_per_type=config.dataset.questions_per_type,
                         sessions_per_question=config.dataset.sessions_per_question)
        return path, f"generated LongMemEval-format sample (seed {config.dataset.seed})"


SUITE = Sample()
