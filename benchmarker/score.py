"""`score(answer, case, judge) -> result`: one entry point that grades an answer of any suite.

The answer line's `kind` names its suite (benchmarker/registry.py), whose `score` grades it:

    LongMemEval        the LongMemEval judge: our prompts (llm), LongMemEval's (official), or the
                       deterministic grader (no model, no tokens); also the default of a new suite
    long-horizon       the rubric (deterministic dimensions, plus LLM dimensions with a judge model)
    levels             the rubric, or the level's own per-question scoring (L14 stale values, L16
                       decisions); the suite's `score_case` then scores the whole level (L13 tool trace, ...)
    fact extraction    the fact matcher (and the fact-enumeration judge with a judge model)
    LoCoMo             LoCoMo's strict judge (prompts/judge_locomo*.txt) or the deterministic grader,
                       plus the per-answer token F1 and BLEU-1 under the line's own metrics key
                       (suites/locomo/metrics.py; null for category 5, graded as abstention only)

The run graph's score node and `mycelian-longmemeval score RUN_DIR CONFIG` both call it, so any
finished run can be re-scored with another judge or other thresholds, whatever its suite. A caller that
knows the run's suite (the graph: `RunContext.suite`) passes it; the line's `kind` is asked only otherwise
(a labels file, a finished run's lines: where a file on disk is the start).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from benchmarker.errata.plan import corrections_of
from benchmarker.log.lines import Erratum, ResultLine
from benchmarker.log.records import AnswerRecord, ResultRecord
from benchmarker.registry import suite_of_record
from benchmarker.scoring.judges import Judge

if TYPE_CHECKING:
    from benchmarker.datasets.schema import Case
    from benchmarker.suites.base import Suite


async def score(answer: AnswerRecord | Mapping[str, Any], case: Case | None, judge: Judge, *,
                failed_turns: int | None = None, suite: Suite | None = None) -> ResultRecord:
    """The results line for one answer: the answer's fields plus label, autoeval_label, grade (and
    the suite's own keys: score, rubric, fact_score, ...). `case` is needed by every suite but
    LongMemEval (the rubric and the facts live there). `suite` scores it (None: the suite of its `kind`)."""
    # an answers line is the start of its results line: the same keys, read as ResultLine
    record = cast(ResultLine, answer.to_line() if isinstance(answer, AnswerRecord) else dict(answer))
    record.pop("schema_version", None)
    started = time.monotonic()
    if record.get("mode") == "retrieval":
        grading: ResultLine = {
            "label": None, "autoeval_label": None,
            "grade": {"judge": "none", "reason": "retrieval-only run: no answer to judge", "unjudged": False}}
    else:
        grading = await _scorer(suite, record.get("kind")).scorer.score(record, case, judge)
    result = record | grading
    if corrections := corrections_of(case, record.get("question_id")):  # [dataset] errata: judged again where corrected
        result["errata"] = await _corrected(suite, record, corrections, case, judge)
    result["timings"] = dict(record.get("timings") or {}) | {"eval_s": round(time.monotonic() - started, 4)}
    if failed_turns is not None:
        result["failed_turns"] = failed_turns
    scored = ResultRecord.model_validate(result)
    if judge.failures is not None:
        judge.failures.record(scored)  # raises RunAbortedError after too many judge failures in a row
    return scored


async def _corrected(suite: Suite | None, record: ResultLine, corrections: list[Erratum], case: Case | None,
                     judge: Judge) -> list[Erratum]:
    """The line's corrections as kept in results.jsonl: a corrected answer also carries the label the judge gave
    against it (a second call, for these questions only); evidence and category corrections are applied by the summary."""
    kept = []
    for correction in corrections:
        entry: Erratum = {**correction}
        entry.pop("question_id", None)   # the line names its question
        if correction["field"] == "answer" and record.get("mode") != "retrieval":
            corrected = cast(ResultLine, record | correction["fields"])   # the correction sets results-line keys
            again = await _scorer(suite, record.get("kind")).scorer.score(corrected, case, judge)
            entry["label"], entry["grade"] = again.get("label"), again.get("grade") or {}
        kept.append(entry)
    return kept


def _scorer(suite: Suite | None, kind: str | None) -> Suite:
    """The suite that grades the line: the caller's, else the one its `kind` names (a file on disk is the start)."""
    return suite if suite is not None else suite_of_record(kind)
