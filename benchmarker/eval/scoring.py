"""One entry point for the eval phase: grade an answers line with the configured judge.

judge_kind "deterministic" uses grader.py (no model, no tokens); "llm" our judge prompts;
"official" LongMemEval's prompts via `prompt_builder` (our prompts for non-LongMemEval types).
The return value is the results-line grading keys (records.py) to merge into the answers line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel

from benchmarker.eval.grader import grade_deterministic
from benchmarker.eval.judge import PromptBuilder, judge_answer


async def grade_record(record: Mapping[str, Any], *, judge_kind: str, model: BaseChatModel | None = None,
                       prompt_builder: PromptBuilder | None = None, retries: int = 3) -> dict[str, Any]:
    """Grading fields {"label", "autoeval_label", "grade"} for one answers line."""
    if judge_kind not in ("deterministic", "llm", "official"):
        raise ValueError(f"unknown judge kind {judge_kind!r}: expected deterministic, llm or official")
    if judge_kind == "deterministic":
        result = grade_deterministic(str(record.get("question_type", "")), str(record.get("question_id", "")),
                                     record.get("answer", ""), record.get("hypothesis"))
        return result.fields()
    if model is None:  # never fall back silently: a missing judge model is a wiring bug
        raise ValueError(f"judge kind {judge_kind!r} needs a chat model")
    builder = prompt_builder if judge_kind == "official" else None
    verdict = await judge_answer(model, record, retries=retries, prompt_builder=builder)
    return verdict.fields()
