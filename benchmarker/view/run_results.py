"""A run's results.jsonl read once for a page that needs both its question rows and its lines.

The compare page showed the flips (the question list's rows), the like-for-like check and the paired verdict (the
lines), and read each run's file once for each: three whole reads of a file that is ~50 MB for a LoCoMo run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarker.log.jsonl import latest_by
from benchmarker.log.lines import ResultLine
from benchmarker.view.lines import Row, as_result_line, placed_objects, row_of


@dataclass(frozen=True)
class RunResults:
    """rows: the question list's rows (as ResultsIndex.rows() has them); lines: the last line of each question."""

    rows: dict[str, Row]
    lines: list[ResultLine]


def read_run_results(path: Path) -> RunResults:
    """One pass over the file: damaged and over-long lines skipped, the last line of a question winning."""
    rows: dict[str, Row] = {}
    lines: list[ResultLine] = []
    with open(path, "rb") as handle:
        for offset, line in placed_objects(handle):
            result = as_result_line(line)
            if (row := row_of(offset, result)) is not None:
                rows[row.qid] = row
            lines.append(result)
    return RunResults(rows, latest_by(lines, "question_id"))
