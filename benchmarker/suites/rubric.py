"""What the long-horizon and levels suites share: answers graded on each question's rubric, and a
mean-score table per category."""

from __future__ import annotations

from statistics import mean
from typing import TYPE_CHECKING, Any

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Case, Question
from benchmarker.reporting.section_spec import Table
from benchmarker.scoring.judge_policy import JUDGE_CALL_FAILED
from benchmarker.scoring.mean_scores import mean_score_table, scored_rows
from benchmarker.scoring.rubric import grade_answer
from benchmarker.suites.base import Record, Suite, need_case

if TYPE_CHECKING:
    from benchmarker.scoring.judges import Judge


class RubricSuite(Suite):
    """Generated dialogues whose questions carry a rubric (deterministic and LLM dimensions)."""

    multi_seed = True

    async def score(self, record: Record, case: Case | None, judge: Judge) -> Record:
        case = need_case(case, record)
        question = next((q for q in case.questions if q.question_id == record["question_id"]), None)
        if question is None:
            raise ValueError(f"question {record['question_id']} is not in case {case.case_id}: an adversarial round's "
                             f"question is read from the run's adversary.jsonl (runs before its schema 2 did not keep "
                             f"them)")
        hypothesis = record.get("hypothesis") or ""
        grade = await grade_answer(question, hypothesis, judge_model=judge.llm, votes=judge.votes,
                                   retries=judge.retries, thresholds=judge.thresholds)
        data = grade.to_dict()
        extra = self.question_score(case, question, hypothesis, judge.thresholds)
        value = extra.get("score", data.get("overall"))
        label = None if value is None else bool(value >= judge.thresholds.pass_score)
        failed = next((why.split("not graded: ", 1)[-1] for why in grade.reasons.values()
                       if JUDGE_CALL_FAILED in why), None) if value is None else None
        return {"label": label, "score": value, "rubric": data, "level_scoring": extra or None,
                "autoeval_label": None if label is None else {"model": data.get("judge") or "deterministic",
                                                              "label": label},
                "grade": {"judge": "rubric", "reason": data.get("reason", ""), "unjudged": value is None,
                          "covers": data.get("overall_covers"), **({"judge_error": failed} if failed else {})}}

    def question_score(self, case: Case, question: Question, hypothesis: str,
                       thresholds: ThresholdsConfig) -> dict[str, Any]:
        """A per-question score that replaces the rubric's, where the suite defines one."""
        return {}


def categories_block(rows: list[Record]) -> Record:
    """Mean score per category, and a one-line headline."""
    scored = [float(r["score"]) for r in scored_rows(rows)]
    return {"by_category": mean_score_table(rows, "category"),
            "headline": f"mean score {mean(scored):.3f} over {len(scored)} questions" if scored else "no scores"}


def score_table(table: Record, name: str) -> Table:
    """A mean-score table (`mean_score_table`'s), with the level's name, level score and scoring columns when present."""
    with_level = any("level_score" in v for v in table.values())
    titled = any(v.get("title") for v in table.values())  # a level's name (L1-L16) beside its id
    header = (name, *(("name",) if titled else ()), "n", "mean score", *(("level score", "scoring") if with_level else ()))
    rows = []
    for k, v in table.items():
        row = [str(k), *([str(v.get("title") or "")] if titled else []), str(v["n"]), f"{v['mean_score']:.3f}"]
        if with_level:
            ls = v.get("level_score")
            row += ["n/a" if ls is None else f"{ls:.3f}", str(v.get("scoring") or "")]
        rows.append(tuple(row))
    return Table(header, tuple(rows))
