"""LLM fact-enumeration judge: the model lists facts, the code counts them.

The strategy document's online judge: the model lists the facts the user stated, the new facts
in the extracted output, the missed and the hallucinated ones; TP = extracted - hallucinated,
FP = hallucinated, FN = missed, and precision / recall / F1 come from `facts.prf`. Asking
follows the judge policy (judge_policy.py): a reply that cannot be used is asked again (with
the reason); after the retries, or at once when the model raises, the case is `unjudged` and
left out of the scores, never scored as zero.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Case
from benchmarker.log.lines import Json
from benchmarker.scoring.json_reply import json_objects
from benchmarker.scoring.judge_policy import ask_until_parsed
from benchmarker.suites.fact_extraction.data import FactCase, fact_case_of
from benchmarker.suites.fact_extraction.facts import CaseScore, prf, score_case
from benchmarker.suites.fact_extraction.shapes import JudgeCounts

JUDGE_PROMPT = "fact_judge"  # prompts/fact_judge.txt
LIST_KEYS = ("conversation_facts", "extracted_facts", "missed_facts", "hallucinated_facts")
_PLACEHOLDER = re.compile(r"\{(conversation_text|existing_memory|extracted_output)\}")


class JudgeReplyError(ValueError):
    """The judge's reply holds no usable JSON object; the message says why."""


@dataclass(frozen=True)
class FactJudgeResult:
    """The judge's lists for one case (empty and status 'unjudged' when no reply was usable)."""

    case_id: str
    status: str  # "judged" | "unjudged"
    conversation_facts: tuple[str, ...] = ()
    extracted_facts: tuple[str, ...] = ()
    missed_facts: tuple[str, ...] = ()
    hallucinated_facts: tuple[str, ...] = ()
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    error: str = ""  # why there is no usable reply: the last reply's problem, or the model's error

    @property
    def judged(self) -> bool:
        return self.status == "judged"

    @property
    def counts(self) -> tuple[int, int, int]:
        """(TP, FP, FN) as the strategy document computes them."""
        fp = len(self.hallucinated_facts)
        return len(self.extracted_facts) - fp, fp, len(self.missed_facts)

    @property
    def scores(self) -> tuple[float, float, float] | None:
        """(precision, recall, F1), or None when unjudged."""
        return prf(*self.counts) if self.judged else None

    def to_dict(self) -> JudgeCounts:
        out = asdict(self)
        tp, fp, fn = self.counts if self.judged else (None, None, None)
        p, r, f = self.scores or (None, None, None)
        return cast(JudgeCounts, out | {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f})


def format_extracted_output(facts: list[str]) -> str:
    """Extracted facts as the bullet list the judge reads."""
    return "\n".join(f"- {f}" for f in facts)


def render_fact_judge_prompt(fc: FactCase, extracted_output: str, *, template: str | None = None) -> str:
    """Fill the three inputs into the prompt (single pass, so inputs containing braces are safe)."""
    values = {
        "conversation_text": "\n".join(f"{m.role.upper()}: {m.content}" for m in fc.conversation),
        "existing_memory": "\n".join(f"- {f}" for f in fc.existing_memory) or "(empty)",
        "extracted_output": extracted_output.strip() or "(nothing was written)",
    }
    return _PLACEHOLDER.sub(lambda m: values[m[1]], template if template is not None else load_prompt(JUDGE_PROMPT))


def _fact_list(obj: dict[str, Json], key: str) -> tuple[str, ...]:
    value = obj[key]
    if not isinstance(value, list):
        raise JudgeReplyError(f"{key!r} is {type(value).__name__}, not a list")
    items = []
    for item in value:
        if isinstance(item, (dict, list)) or item is None:
            raise JudgeReplyError(f"{key!r} holds a {type(item).__name__}, not a fact string")
        if str(item).strip():
            items.append(str(item).strip())
    return tuple(items)


def parse_judge_reply(text: str) -> dict[str, tuple[str, ...]]:
    """The four fact lists from a reply: fenced or bare JSON, with or without text around it."""
    candidates = list(json_objects(text))
    complete = [o for o in candidates if all(k in o for k in LIST_KEYS)]
    if not complete:
        if not candidates:
            raise JudgeReplyError("no JSON object in the reply")
        missing = [k for k in LIST_KEYS if k not in candidates[0]]
        raise JudgeReplyError(f"the JSON object lacks {', '.join(missing)}")
    lists = {k: _fact_list(complete[0], k) for k in LIST_KEYS}
    if len(lists["hallucinated_facts"]) > len(lists["extracted_facts"]):
        raise JudgeReplyError("more hallucinated_facts than extracted_facts")
    if len(lists["missed_facts"]) > len(lists["conversation_facts"]):
        raise JudgeReplyError("more missed_facts than conversation_facts")
    return lists


async def judge_facts(
    model: BaseChatModel, case: FactCase | Case, extracted_output: str, *, retries: int = 3,
    template: str | None = None,
) -> FactJudgeResult:
    """Ask the judge to enumerate facts; `retries` re-asks after an unusable reply (judge_policy.py)."""
    fc = fact_case_of(case) if isinstance(case, Case) else case
    prompt = render_fact_judge_prompt(fc, extracted_output, template=template)

    def ask(problem: str) -> Any:
        text = prompt if not problem else (
            f"{prompt}\n\nYour previous reply could not be used ({problem}). Reply with the JSON object only."
        )
        return model.ainvoke([HumanMessage(text)])

    got = await ask_until_parsed(ask, parse_judge_reply, retries)
    unjudged = FactJudgeResult(fc.id, "unjudged", attempts=got.attempts, input_tokens=got.input_tokens,
                               output_tokens=got.output_tokens, total_tokens=got.total_tokens)
    if got.value is None:
        return replace(unjudged, error=got.error)
    return replace(unjudged, status="judged", **got.value)  # type: ignore[arg-type]  # value: the four *_facts tuples


def judged_case_score(
    fc: FactCase, extracted: list[str], result: FactJudgeResult, *, context_facts: list[str] | None = None,
    thresholds: ThresholdsConfig | None = None,
) -> CaseScore:
    """A CaseScore with the judge's counts; conflict and minimalism stay deterministic."""
    base = score_case(fc, extracted, context_facts=context_facts, thresholds=thresholds)
    tp, fp, fn = result.counts if result.judged else (0, 0, 0)
    details = base.details | {"judge": result.to_dict()}
    return replace(base, method="llm", judged=result.judged, tp=tp, fp=fp, fn=fn, details=details)
