"""`Grade`: what a judge decided about one answer, typed from the judge to the results line.

Every judge (the deterministic grader, the LLM and official judges) and BEAM's rubric scorer return
a `Grade`; `Grade.line_fields()` gives the three grading keys of a results line in the shape
scoring/records.py documents, and `Grade.of_line` reads them back from any results line, including
lines written by older versions (a missing key takes its default).

The long-horizon, levels and fact-extraction suites and retrieval-only runs still write a shorter
`grade` object by hand (judge, reason, unjudged and their own keys); `of_line` reads those too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from benchmarker.log.lines import AutoevalLabel, GradeLine, Json, ResultLine
from benchmarker.redact import masked_preview

REPLY_PREVIEW = 200   # characters of the judge's last reply kept in a results line (masked first)


class GradeTokens(BaseModel):
    """Judge tokens summed over every attempt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: int = 0
    output: int = 0


class Grade(BaseModel):
    """One judged answer; `label` None means unjudged (excluded from accuracy denominators)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: bool | None
    judge: str                      # "deterministic" | "llm" | "official" | a suite judge's name
    model: str | None = None        # the judge model id; None for the deterministic grader
    reason: str = ""                # why: the matched rule, a parse failure, an error text
    attempts: int = 1               # judge calls made
    score: float | None = None      # the grader's (or BEAM's) 0..1 score, where one is computed
    tokens: GradeTokens = GradeTokens()
    template: str | None = None     # the judge prompt used: "judge_base", ..., "official:get_anscheck_prompt"
    reply: str | None = None        # the last raw judge reply, whole (masked and cut when written)
    error: str | None = None        # the model's exception when it raised (its retries spent)

    @property
    def unjudged(self) -> bool:
        return self.label is None

    def line_fields(self) -> dict[str, Json]:
        """The results line's "label", "autoeval_label" and "grade", in that order and documented shape
        (scoring/records.py; log/lines.py's GradeLine types it for readers)."""
        return cast("dict[str, Json]", self.result_fields())   # the same keys, as open JSON for the judges' callers

    def result_fields(self) -> ResultLine:
        """`line_fields()` typed as the results line's keys, for a suite's scorer to add its own to."""
        autoeval: AutoevalLabel | None = (None if self.label is None else
                                          {"model": self.model or self.judge, "label": bool(self.label)})
        grade: GradeLine = {
            "judge": self.judge, "model": self.model, "reason": self.reason, "attempts": self.attempts,
            "unjudged": self.unjudged, "template": self.template,
            "reply": None if self.reply is None else masked_preview(self.reply, REPLY_PREVIEW),
            "score": self.score, "tokens": {"input": self.tokens.input, "output": self.tokens.output},
        }
        if self.error:
            grade["judge_error"] = self.error
        return {"label": self.label, "autoeval_label": autoeval, "grade": grade}

    @classmethod
    def of_line(cls, line: Mapping[str, Any]) -> Grade:
        """The grade a results line carries; keys an older (or a suite's shorter) line lacks take their default."""
        raw = line.get("grade")
        grade: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        raw_tokens = grade.get("tokens")
        tokens: Mapping[str, Any] = raw_tokens if isinstance(raw_tokens, Mapping) else {}
        label = line.get("label")
        return cls(
            label=label if isinstance(label, bool) else None,
            judge=str(grade.get("judge") or ""),
            model=_text(grade.get("model")),
            reason=str(grade.get("reason") or ""),
            attempts=_count(grade.get("attempts"), 1),
            score=_score(grade.get("score")),
            tokens=GradeTokens(input=_count(tokens.get("input"), 0), output=_count(tokens.get("output"), 0)),
            template=_text(grade.get("template")),
            reply=_text(grade.get("reply")),
            error=_text(grade.get("judge_error")),
        )


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _score(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _count(value: object, default: int) -> int:
    """A JSON count; `default` for a missing or damaged one."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default
