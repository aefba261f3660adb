"""The judges: one object a kind, chosen here by `[eval].judge` and nowhere else by its name.

    DeterministicGrader  normalised match, number-aware (scoring/grader.py): no model, no tokens
    LLMJudge             our judge prompts (prompts/judge_*.txt) on the eval model
    OfficialJudge        LongMemEval's own evaluator prompts, read from the user's clone

A suite asks its judge to `grade` a LongMemEval-shaped answer line, or takes its `llm` (None for the
grader) for the parts it grades with a model of its own (rubric dimensions, the fact-enumeration judge).
`JUDGES` is the registry; `choose_judge` turns the config's tables into a judge's name and a note for the manifest.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from benchmarker.config_schema import (
    EvalConfig,
    ModelsConfig,
    ParamsConfig,
    ProviderConfig,
    RunSection,
    ThresholdsConfig,
)
from benchmarker.errors import ConfigError, RunAbortedError
from benchmarker.log.lines import ResultLine, TokenCounts
from benchmarker.log.records import ResultRecord
from benchmarker.registry_base import Registry
from benchmarker.scoring.calibration.development import GRADER_DEVELOPED_ON
from benchmarker.scoring.grade import Grade


class JudgeFailures:
    """Stop scoring when the judge model fails `limit` answers in a row, as a run stops after
    `[run].max_failures_in_a_row` failed cases: a dead endpoint or a revoked key would otherwise
    leave every answer "unjudged" and exit 0, blaming the judge's replies."""

    def __init__(self, limit: int):
        self.limit = limit
        self.in_a_row = 0

    def record(self, result: ResultRecord) -> None:
        error = Grade.of_line(result.model_dump(include={"label", "grade"})).error
        if not error:
            self.in_a_row = 0
            return
        self.in_a_row += 1
        if self.in_a_row >= self.limit:
            raise RunAbortedError(f"the judge model failed on {self.in_a_row} answers in a row (each after its "
                                  f"[retry] attempts); last error: {error}")


@dataclass(frozen=True)
class Judge(ABC):
    """Who grades and by which numbers: the model (unless the grader), retries, votes and thresholds."""

    name: ClassVar[str]                      # as summary.json and the manifest name it
    needs_model: ClassVar[bool] = True
    # sha256 of labels files this judge was developed on -> how (calibrate reports them as a fit, not a calibration)
    developed_on: ClassVar[Mapping[str, str]] = {}

    model: Any | None = None                 # a chat model (required unless the grader)
    retries: int = 3                         # re-asks after an unusable reply
    votes: int = 1                           # rubric LLM dimensions: votes combined by median
    thresholds: ThresholdsConfig = field(default_factory=ThresholdsConfig)
    failures: JudgeFailures | None = field(default=None, compare=False)  # shared by every answer it scores

    def __post_init__(self) -> None:
        if self.needs_model and self.model is None:  # never fall back silently
            raise ValueError(f"judge {self.name!r} needs a chat model")

    @property
    def llm(self) -> Any | None:
        """The model for LLM-graded parts, None when grading deterministically."""
        return self.model if self.needs_model else None

    def prompt_builder(self) -> Any | None:
        """The benchmark's own judge prompts (the official judge's), or None for ours or no model."""
        return None

    @abstractmethod
    async def grade(self, record: Mapping[str, Any], gold: Any = None, template: str | None = None) -> Grade:
        """The grade of one LongMemEval-shaped answer line (question_type, question_id, question, answer,
        hypothesis); `gold` replaces the line's answer for the grader (LoCoMo scores a normalised gold),
        `template` is the suite's own judge prompt."""

    def results_fields(self, record: ResultLine, grade: Grade) -> ResultLine:
        """The results-line keys of a grade this judge gave (label, autoeval_label, grade), and, where a model
        judged, the line's tokens with the judge's under "eval"; the grader bills none."""
        fields = grade.result_fields()
        if self.needs_model:
            fields["tokens"] = with_eval_tokens(record, grade)
        return fields


@dataclass(frozen=True)
class DeterministicGrader(Judge):
    name: ClassVar[str] = "deterministic"
    needs_model: ClassVar[bool] = False
    developed_on: ClassVar[Mapping[str, str]] = GRADER_DEVELOPED_ON

    async def grade(self, record: Mapping[str, Any], gold: Any = None, template: str | None = None) -> Grade:
        from benchmarker.scoring.grader import grade_deterministic

        return grade_deterministic(str(record.get("question_type", "")), str(record.get("question_id", "")),
                                   record.get("answer", "") if gold is None else gold, record.get("hypothesis"),
                                   thresholds=self.thresholds, question=str(record.get("question") or "")).to_grade()


@dataclass(frozen=True)
class LLMJudge(Judge):
    name: ClassVar[str] = "llm"

    async def grade(self, record: Mapping[str, Any], gold: Any = None, template: str | None = None) -> Grade:
        from benchmarker.scoring.judge import judge_answer  # langchain: loaded when a model judges

        assert self.model is not None, "an LLM judge has its model"
        return await judge_answer(self.model, record, retries=self.retries, prompt_builder=self.prompt_builder(),
                                  template=template)


@dataclass(frozen=True)
class OfficialJudge(LLMJudge):
    name: ClassVar[str] = "official"

    official_prompt: Any | None = None       # LongMemEval's prompt builder (suites/longmemeval/official.py)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.official_prompt is None:
            raise ValueError("the official judge needs LongMemEval's prompt builder")

    def prompt_builder(self) -> Any | None:
        return self.official_prompt


JUDGES: Registry[type[Judge]] = Registry("judge", [(j.name, j) for j in (DeterministicGrader, LLMJudge, OfficialJudge)])


def judge_class(name: str) -> type[Judge]:
    """The judge of this name; ValueError naming the known ones for any other."""
    return JUDGES.lookup(name)


def make_judge(name: str, *, model: Any | None = None, official_prompt: Any | None = None,
               **settings: Any) -> Judge:
    """A judge by name; the grader takes no model, the official judge its prompt builder."""
    cls = judge_class(name)
    if issubclass(cls, OfficialJudge):
        return cls(model=model, official_prompt=official_prompt, **settings)
    return cls(model=model if cls.needs_model else None, **settings)


def choose_judge(eval_: EvalConfig, models: ModelsConfig, provider: ProviderConfig, run: RunSection,
                 params: ParamsConfig, config_path: Path | None) -> tuple[str, str]:
    """auto: an LLM judge when one is configured and wanted, else the deterministic grader. Reads `[eval].judge`,
    `[models].eval`, `[provider].type`, `[run].mode`, `[params].use_llm_judge`; `config_path` is named in errors."""
    wanted = eval_.judge
    has_model = bool(models.eval) and provider.type != "offline"
    if wanted == DeterministicGrader.name or run.mode == "retrieval":
        return DeterministicGrader.name, "deterministic grader (normalised match, number-aware)"
    if wanted == "auto":
        if has_model and params.use_llm_judge:
            return LLMJudge.name, f"LLM judge {models.eval}"
        return DeterministicGrader.name, "deterministic grader: no LLM judge configured"
    if not has_model:
        raise ConfigError(f"{config_path}: [eval].judge = {wanted!r} needs [models].eval "
                          "and a non-offline [provider].type")
    judge_class(wanted)
    return wanted, f"{wanted} judge {models.eval}"


def with_eval_tokens(record: ResultLine, grade: Grade) -> dict[str, TokenCounts]:
    """The answer line's tokens with the judge's added under role "eval" (the line itself is left as it was)."""
    return {**(record.get("tokens") or {}), "eval": {"input": grade.tokens.input, "output": grade.tokens.output}}
