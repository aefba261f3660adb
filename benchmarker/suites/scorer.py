"""`Scorer`: how a suite grades an answer, scores a whole case, routes its judge and shapes its answer lines.

A part of the `Suite` value (suites/base.py): each field is a function, and each default below is what most
suites do (the LongMemEval judge's grade, no whole-case score, the usual prompt routing, no evidence turns, no
extra answer keys), so a suite names only what differs: `Scorer(score=score_beam, retrieval_evidence=always)`.
`benchmarker.score` calls `score`; the graph calls the others on the run's suite (`RunContext.suite.scorer`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from benchmarker.log.lines import ResultLine

if TYPE_CHECKING:
    from benchmarker.config_schema import ThresholdsConfig
    from benchmarker.datasets.schema import Case, Question
    from benchmarker.log.records import LevelRecord
    from benchmarker.log.store import RunLog
    from benchmarker.scoring.judges import Judge

# An answers line in, its grading keys out (label, autoeval_label, grade and the suite's own keys), both typed
# as results-line keys (log/lines.py ResultLine): a judge's `Grade.result_fields()` plus what the suite adds.
ScoreAnswer = Callable[[ResultLine, "Case | None", "Judge"], Awaitable[ResultLine]]


class ScoreCase(Protocol):
    """A whole case's score line from what the run's log holds (None while it is not due)."""

    def __call__(self, case: Case, log: RunLog, *, default_cadence: int,
                 thresholds: ThresholdsConfig | None = None) -> LevelRecord | None: ...


async def judge_grade(record: ResultLine, case: Case | None, judge: Judge) -> ResultLine:
    """The LongMemEval judge's `Grade` (our prompts, LongMemEval's, or the deterministic grader) as results keys."""
    return judge.results_fields(record, await judge.grade(record))


def no_case_score(case: Case, log: RunLog, *, default_cadence: int,
                  thresholds: ThresholdsConfig | None = None) -> LevelRecord | None:
    """Most suites write no whole-case score line."""
    return None


def usual_template(question_type: str, abstention: bool) -> str | None:
    """None: the usual routing by type (scoring/judge.py)."""
    return None


def never(case: Case, question: Question) -> bool:
    """The answer line carries no evidence turns (not scored as retrieval)."""
    return False


def always(case: Case, question: Question) -> bool:
    """The answer line carries the question's evidence turns (scored as retrieval)."""
    return True


def no_fields(case: Case, question: Question) -> ResultLine:
    """No extra keys on its answer lines."""
    return {}


@dataclass(frozen=True)
class Scorer:
    """A suite's grading and answer-line hooks (module docstring)."""

    score: ScoreAnswer = judge_grade                                        # an answer's grading keys
    score_case: ScoreCase = no_case_score                                  # a whole case's line, once all are judged
    judge_template: Callable[[str, bool], str | None] = usual_template      # (type, abstention) -> prompt name
    retrieval_evidence: Callable[[Case, Question], bool] = never            # the answer carries evidence turns
    answer_fields: Callable[[Case, Question], ResultLine] = no_fields       # extra keys of its answer lines
