"""What the long-horizon and levels suites share: answers graded on each question's rubric, and a
mean-score table per category."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from statistics import mean
from typing import TYPE_CHECKING, TypedDict, cast

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Case, Question
from benchmarker.log.lines import GradeLine, ResultLine, RubricLine
from benchmarker.reporting.section_spec import Table
from benchmarker.scoring.judge_policy import JUDGE_CALL_FAILED
from benchmarker.scoring.mean_scores import MeanScore, mean_score_table, scored_rows
from benchmarker.scoring.rubric import grade_answer
from benchmarker.suites.base import need_case

if TYPE_CHECKING:
    from benchmarker.scoring.judges import Judge

class ScoredQuestion(TypedDict):
    """A suite's own score of one question, replacing the rubric's (levels: L14 forgetting, L16 decision); each
    kind adds its own keys."""

    score: float


class ScoreRow(TypedDict, total=False):
    """A row of a mean-score table: `mean_score_table`'s n and mean score, and a level's name, score and scoring."""

    n: int
    mean_score: float
    title: str
    level_score: float | None
    scoring: str | None
    seeds: int


class CategoriesBlock(TypedDict):
    """A rubric suite's summary block: the mean score per category and a headline."""

    by_category: dict[str, MeanScore]
    headline: str


# A per-question score that replaces the rubric's (case, question, answer, thresholds); None: the rubric's stands.
QuestionScore = Callable[[Case, Question, str, ThresholdsConfig], ScoredQuestion | None]


async def score_on_rubric(record: ResultLine, case: Case | None, judge: Judge, *,
                          question_score: QuestionScore | None = None) -> ResultLine:
    """An answer of a generated dialogue graded on its question's rubric (deterministic and LLM dimensions);
    `question_score`, where the suite has one, replaces the rubric's score (levels' L14 / L16)."""
    case = need_case(case, record)
    question = next((q for q in case.questions if q.question_id == record["question_id"]), None)
    if question is None:
        raise ValueError(f"question {record['question_id']} is not in case {case.case_id}: an adversarial round's "
                         f"question is read from the run's adversary.jsonl (runs before its schema 2 did not keep "
                         f"them)")
    hypothesis = record.get("hypothesis") or ""
    grade = await grade_answer(question, hypothesis, judge_model=judge.llm, votes=judge.votes,
                               retries=judge.retries, thresholds=judge.thresholds)
    data = cast(RubricLine, grade.to_dict())   # RubricGrade as written: RubricLine is its JSON shape
    extra = question_score(case, question, hypothesis, judge.thresholds) if question_score else None
    value = extra["score"] if extra is not None else data.get("overall")
    label = None if value is None else bool(value >= judge.thresholds.pass_score)
    failed = next((why.split("not graded: ", 1)[-1] for why in grade.reasons.values()
                   if JUDGE_CALL_FAILED in why), None) if value is None else None
    graded: GradeLine = {"judge": "rubric", "reason": data.get("reason", ""), "unjudged": value is None,
                         "covers": data.get("overall_covers")}
    if failed:
        graded["judge_error"] = failed
    return {"label": label, "score": value, "rubric": data, "level_scoring": extra,
            "autoeval_label": None if label is None else {"model": data.get("judge") or "deterministic",
                                                          "label": label},
            "grade": graded}


def categories_block(rows: Sequence[ResultLine]) -> CategoriesBlock:
    """Mean score per category, and a one-line headline."""
    scored = [float(score) for r in scored_rows(rows) if (score := r.get("score")) is not None]
    return {"by_category": mean_score_table(rows, "category"),
            "headline": f"mean score {mean(scored):.3f} over {len(scored)} questions" if scored else "no scores"}


def score_table(table: Mapping[str, ScoreRow], name: str) -> Table:
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
