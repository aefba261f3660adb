"""`score(answer, case, judge) -> result`: one entry point that grades an answer of any suite.

    LongMemEval        the LongMemEval judge: our prompts (llm), LongMemEval's (official), or the
                       deterministic grader (no model, no tokens)
    long_horizon       the rubric (deterministic dimensions, plus LLM dimensions with a judge model)
    levels             the rubric, or the level's own per-question scoring (L14 stale values, L16
                       decisions); `score_level_case` then scores the whole level (L13 tool trace, ...)
    fact_extraction    the fact matcher (and the fact-enumeration judge with a judge model)
    locomo             LoCoMo's strict judge (prompts/judge_locomo*.txt) or the deterministic grader,
                       plus the per-answer token F1 and BLEU-1 under the line's `locomo` key
                       (locomo_metrics.py; null for category 5, graded as abstention only)

The run graph's score node and `mycelian-longmemeval score RUN_DIR CONFIG` both call it, so any
finished run can be re-scored with another judge or other thresholds, whatever its suite.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.errors import RunAbortedError
from benchmarker.eval.judge_policy import JUDGE_CALL_FAILED
from benchmarker.log.records import AnswerRecord, LevelRecord, ResultRecord
from benchmarker.log.store import RunLog

if TYPE_CHECKING:
    from benchmarker.datasets.schema import Case

JUDGE_KINDS = ("deterministic", "llm", "official")


class JudgeFailures:
    """Stop scoring when the judge model fails `limit` answers in a row, as a run stops after
    `[run].max_failures_in_a_row` failed cases: a dead endpoint or a revoked key would otherwise
    leave every answer "unjudged" and exit 0, blaming the judge's replies."""

    def __init__(self, limit: int):
        self.limit = limit
        self.in_a_row = 0

    def record(self, result: ResultRecord) -> None:
        error = (result.grade or {}).get("judge_error")
        if not error:
            self.in_a_row = 0
            return
        self.in_a_row += 1
        if self.in_a_row >= self.limit:
            raise RunAbortedError(f"the judge model failed on {self.in_a_row} answers in a row (each after its "
                                  f"[retry] attempts); last error: {error}")


@dataclass(frozen=True)
class Judge:
    """Who grades and by which numbers: the judge kind, its model, and the thresholds."""

    kind: str = "deterministic"              # deterministic | llm | official
    model: Any | None = None                 # a chat model (required unless deterministic)
    official_prompt: Any | None = None       # LongMemEval's prompt builder for "official"
    retries: int = 3                         # re-asks after an unusable reply
    votes: int = 1                           # rubric LLM dimensions: votes combined by median
    thresholds: ThresholdsConfig = field(default_factory=ThresholdsConfig)
    failures: JudgeFailures | None = field(default=None, compare=False)  # shared by every answer it scores

    def __post_init__(self) -> None:
        if self.kind not in JUDGE_KINDS:
            raise ValueError(f"unknown judge kind {self.kind!r}: expected deterministic, llm or official")
        if self.kind != "deterministic" and self.model is None:  # never fall back silently
            raise ValueError(f"judge kind {self.kind!r} needs a chat model")

    @property
    def llm(self) -> Any | None:
        """The model for LLM-graded parts, None when grading deterministically."""
        return None if self.kind == "deterministic" else self.model


async def score(answer: AnswerRecord | Mapping[str, Any], case: Case | None, judge: Judge, *,
                failed_turns: int | None = None) -> ResultRecord:
    """The results line for one answer: the answer's fields plus label, autoeval_label, grade (and
    the suite's own keys: score, rubric, fact_score, ...). `case` is needed by every suite but
    LongMemEval (the rubric and the facts live there)."""
    record = answer.to_line() if isinstance(answer, AnswerRecord) else dict(answer)
    record.pop("schema_version", None)
    started = time.monotonic()
    kind = record.get("kind") or "longmemeval"
    if record.get("mode") == "retrieval":
        grading: dict[str, Any] = {
            "label": None, "autoeval_label": None,
            "grade": {"judge": "none", "reason": "retrieval-only run: no answer to judge", "unjudged": False}}
    elif kind == "fact_extraction":
        grading = await _score_facts(record, _need(case, record), judge)
    elif kind in ("level", "long_horizon"):
        grading = await _score_rubric(record, _need(case, record), judge)
    elif kind == "locomo":
        grading = await _score_locomo(record, case, judge)
    else:
        grading = await _score_longmemeval(record, judge)
    result = record | grading
    result["timings"] = dict(record.get("timings") or {}) | {"eval_s": round(time.monotonic() - started, 4)}
    if failed_turns is not None:
        result["failed_turns"] = failed_turns
    scored = ResultRecord.model_validate(result)
    if judge.failures is not None:
        judge.failures.record(scored)  # raises RunAbortedError after too many judge failures in a row
    return scored


def _need(case: Case | None, record: Mapping[str, Any]) -> Case:
    if case is None:
        raise ValueError(f"scoring {record.get('kind')} answer {record.get('question_id')} needs its case")
    return case


async def _score_longmemeval(record: dict[str, Any], judge: Judge) -> dict[str, Any]:
    from benchmarker.eval.grader import grade_deterministic
    from benchmarker.eval.judge import judge_answer

    if judge.kind == "deterministic":
        return grade_deterministic(str(record.get("question_type", "")), str(record.get("question_id", "")),
                                   record.get("answer", ""), record.get("hypothesis"),
                                   thresholds=judge.thresholds).fields()
    builder = judge.official_prompt if judge.kind == "official" else None
    assert judge.model is not None  # Judge refuses a model-graded kind without a model
    grading = (await judge_answer(judge.model, record, retries=judge.retries, prompt_builder=builder)).fields()
    tokens = (grading.get("grade") or {}).get("tokens") or {}
    if tokens:
        grading["tokens"] = dict(record.get("tokens") or {}) | {"eval": tokens}
    return grading


async def _score_locomo(record: dict[str, Any], case: Case | None, judge: Judge) -> dict[str, Any]:
    """Label from the LoCoMo judge (any model judge kind: "official" is LongMemEval's only) or the
    deterministic grader; F1 / BLEU-1 always. Category 5 is an `_abs` id: the grader's abstention
    check, or the adversarial prompt told the trap answer (the question's rubric)."""
    from benchmarker.eval.grader import grade_deterministic
    from benchmarker.eval.judge import judge_answer
    from benchmarker.eval.locomo_metrics import ADVERSARIAL, answer_scores, category_of, scored_gold

    category = category_of(record)
    qid = str(record.get("question_id", ""))
    if category == str(ADVERSARIAL) and not qid.endswith("_abs"):  # adversarial is abstention, whatever the id says
        qid += "_abs"
    question = next((q for q in (case.questions if case else ()) if q.question_id == record.get("question_id")), None)
    trap = (question.rubric if question else {}).get("adversarial_answer") or record.get("adversarial_answer")
    metrics = answer_scores(record.get("hypothesis"), record.get("answer", ""), category)
    if trap:
        metrics["adversarial_answer"] = str(trap)
    if judge.kind == "deterministic":
        gold = scored_gold(record.get("answer", ""), category)
        grading = grade_deterministic(str(record.get("question_type", "")), qid, gold, record.get("hypothesis"),
                                      thresholds=judge.thresholds).fields()
    else:
        assert judge.model is not None  # Judge refuses a model-graded kind without a model
        verdict = await judge_answer(judge.model, record | {"question_id": qid, "adversarial_answer": trap or ""},
                                     retries=judge.retries)
        grading = verdict.fields()
        tokens = (grading.get("grade") or {}).get("tokens") or {}
        if tokens:
            grading["tokens"] = dict(record.get("tokens") or {}) | {"eval": tokens}
    return grading | {"locomo": metrics}


async def _score_facts(record: dict[str, Any], case: Case, judge: Judge) -> dict[str, Any]:
    from benchmarker.datasets.fact_extraction import context_facts, extracted_facts_from_memory, fact_case_of
    from benchmarker.eval.facts import score_case

    fc = fact_case_of(case)
    context = record.get("latest_context") or ""
    extracted = extracted_facts_from_memory(record.get("new_entries") or [], context, list(fc.existing_memory))
    all_context = context_facts(context)
    if judge.llm is not None:
        from benchmarker.eval.fact_judge import format_extracted_output, judge_facts, judged_case_score

        verdict = await judge_facts(judge.llm, fc, format_extracted_output(extracted), retries=judge.retries)
        result = judged_case_score(fc, extracted, verdict, context_facts=all_context, thresholds=judge.thresholds)
        grader = "llm"
    else:
        result = score_case(fc, extracted, context_facts=all_context, thresholds=judge.thresholds)
        grader = "deterministic"
    exact = result.judged and result.fp == 0 and result.fn == 0
    checks = [c for c in (result.conflict_resolved, result.minimal) if c is not None]
    label = (exact and all(checks)) if result.judged else None
    failed = verdict.error if grader == "llm" and verdict.error.startswith(JUDGE_CALL_FAILED) else None
    return {"label": label, "score": result.f1, "extracted_facts": extracted, "fact_score": result.to_dict(),
            "autoeval_label": None if label is None else {"model": grader, "label": label},
            "grade": {"judge": grader, "reason": f"tp={result.tp} fp={result.fp} fn={result.fn}",
                      "unjudged": not result.judged, **({"judge_error": failed} if failed else {})}}


async def _score_rubric(record: dict[str, Any], case: Case, judge: Judge) -> dict[str, Any]:
    from benchmarker.eval.rubric import grade_answer

    question = next((q for q in case.questions if q.question_id == record["question_id"]), None)
    if question is None:
        raise ValueError(f"question {record['question_id']} is not in case {case.case_id}: an adversarial round's "
                         f"question is read from the run's adversary.jsonl (runs before its schema 2 did not keep them)")
    hypothesis = record.get("hypothesis") or ""
    grade = await grade_answer(question, hypothesis, judge_model=judge.llm, votes=judge.votes,
                               retries=judge.retries, thresholds=judge.thresholds)
    data = grade.to_dict()
    extra = _level_question_score(case, question, hypothesis, judge.thresholds)
    value = extra.get("score", data.get("overall"))
    label = None if value is None else bool(value >= judge.thresholds.pass_score)
    failed = next((why.split("not graded: ", 1)[-1] for why in grade.reasons.values() if JUDGE_CALL_FAILED in why),
                  None) if value is None else None
    return {"label": label, "score": value, "rubric": data, "level_scoring": extra or None,
            "autoeval_label": None if label is None else {"model": data.get("judge") or "deterministic", "label": label},
            "grade": {"judge": "rubric", "reason": data.get("reason", ""), "unjudged": value is None,
                      "covers": data.get("overall_covers"), **({"judge_error": failed} if failed else {})}}


def _level_question_score(case: Case, question: Any, hypothesis: str, thresholds: ThresholdsConfig) -> dict[str, Any]:
    """L14 / L16 per-question scoring replaces the plain rubric score where the level defines one."""
    level = case.metadata.get("level_id")
    if level == "L14":
        from benchmarker.eval.level_scoring import score_forgetting

        return score_forgetting(question, hypothesis, thresholds=thresholds)
    if level == "L16":
        from benchmarker.eval.level_scoring import score_decision

        return score_decision(question, hypothesis, thresholds=thresholds)
    return {}


def score_level_case(case: Case, log: RunLog, *, default_cadence: int,
                     thresholds: ThresholdsConfig | None = None) -> LevelRecord | None:
    """A level's own score (L13 tool trace, L15 balance, ...) from what `log` holds; None while some
    question has no result, or when the level's line is already written. L13 is scored against the
    cadence the agent was told, on the agent's calls into the case's finished memory only."""
    from benchmarker.datasets.levels import build_level
    from benchmarker.eval.level_scoring import score_level

    results = log.done.judged
    if case.case_id in log.done.levels or any(q.question_id not in results for q in case.questions):
        return None
    memory = log.done.memories.get(case.case_id)
    if memory is not None and memory.get("agent"):  # an outside agent: its latest learning's calls, no ids of ours
        tool_calls = [c for c in log.agent_tool_calls(case.case_id) if c.get("attempt") in (None, memory.attempt)]
        memory = None
    else:
        tool_calls = log.agent_tool_calls(case.case_id, memory.memory_id if memory else None)
    cadence = (memory.context_cadence if memory is not None else None) or default_cadence
    spec = build_level(case.metadata["level_id"], case.metadata["seed"], context_cadence=cadence)
    answers = {q.question_id: results[q.question_id].hypothesis for q in case.questions}
    bindings = {"vault_id": memory.vault_id if memory else None, "memory_id": memory.memory_id if memory else None}
    scored = score_level(spec, answers, decisions=[d.to_line() for d in tool_calls], bindings=bindings,
                         thresholds=thresholds)
    return LevelRecord(case_id=case.case_id, level=spec.level_id, title=spec.title, context_cadence=cadence, **scored)
