"""The LLM judge: pick the type's prompt, ask for yes/no at temperature 0, parse, retry.

Routing (`choose_prompt`): an `_abs` question id goes to the abstention prompt FIRST, whatever
its type (peers applied the abstention prompt wrongly); then temporal-reasoning,
knowledge-update and single-session-preference have their own prompts; every other type
(including in-house suites' categories) uses the base prompt. The prompts are ours, in
`prompts/judge_*.txt`, with `{question}`, `{answer}` and `{hypothesis}` placeholders.

A suite may name its own prompts (`Suite.scorer.judge_template`). LoCoMo's strict pair: `judge_locomo` (categories 1-4; also
`{category}`, the category name) and `judge_locomo_adversarial` (category 5, an `_abs` id; also
`{adversarial_answer}`, the trap answer). They ask for a JSON object `{"label": "CORRECT" |
"WRONG", "reason": ...}`, read by `parse_label` by exact token, never by substring: two peer
harnesses counted "INCORRECT" as correct because it contains "CORRECT".

Failure policy (judge_policy.py): an empty or unparsable reply is asked again (`retries` more
times); an exception from the model (whose wrapper already retried transport errors) stops at
once. Without a yes/no the verdict is *unjudged* (label None): it is reported and excluded
from accuracy denominators, never silently counted as wrong.

Temperature: the judge runs at temperature 0. A model built with another numeric temperature
is copied with temperature 0; a model with temperature None (reasoning models that reject the
parameter) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from benchmarker.agent.prompts import load_prompt
from benchmarker.scoring.grade import Grade, GradeTokens
from benchmarker.scoring.json_reply import json_objects
from benchmarker.scoring.judge_policy import ask_until_parsed

if TYPE_CHECKING:   # langchain is imported where a model judges: every config load imports this module (suites)
    from langchain_core.language_models import BaseChatModel

TEMPLATES = {
    "abstention": "judge_abstention",
    "temporal-reasoning": "judge_temporal",
    "knowledge-update": "judge_knowledge_update",
    "single-session-preference": "judge_preference",
}
BASE_TEMPLATE = "judge_base"
LOCOMO_TEMPLATES = {"answerable": "judge_locomo", "abstention": "judge_locomo_adversarial"}
LABELS = {"CORRECT": True, "WRONG": False}
OFFICIAL_TEMPLATE = "official:get_anscheck_prompt"
LONGMEMEVAL_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                     "multi-session", "temporal-reasoning", "knowledge-update")

# (task, question, answer, response, abstention=False) -> prompt; LongMemEval's signature.
PromptBuilder = Callable[..., str]


def choose_prompt(question_type: str, question_id: str, own: str | None = None) -> tuple[str, str]:
    """(template name, template text) for a question: the suite's own (`own`, from its
    `Suite.scorer.judge_template`), then abstention first, then by type."""
    abstention = str(question_id).endswith("_abs")
    if own:
        name = own
    elif abstention:
        name = TEMPLATES["abstention"]
    else:
        name = TEMPLATES.get(question_type, BASE_TEMPLATE)
    return name, load_prompt(name)


def parse_yes_no(text: str | None) -> bool | None:
    """yes -> True, no -> False; None when empty, both, or neither (then the judge retries).

    Whole words only, so "know" is never read as "no"; a yes/no in the first three words wins
    over later words ("No. The response says yes to ..." is no); "yes and no" is None.
    Reasoning blocks (<think>...</think>) are ignored.
    """
    if not text:
        return None
    cleaned = re.sub(r"<think>.*?</think>", " ", str(text), flags=re.S | re.I).lower()
    words = re.findall(r"[a-z]+", cleaned)
    if not words:
        return None
    leading = {w for w in words[:3] if w in ("yes", "no")}  # "Answer: yes", "**Yes**", "Yes."
    if len(leading) == 1:
        return leading.pop() == "yes"
    if leading:  # "yes and no"
        return None
    found = {w for w in words if w in ("yes", "no")}
    if len(found) == 1:
        return found.pop() == "yes"
    return None


def _label_token(value: Any) -> bool | None:
    """CORRECT / WRONG as the whole value (case, spaces, **bold**, quotes and a final period aside)."""
    if not isinstance(value, str):
        return None
    return LABELS.get(value.strip().strip("*_`'\" ").rstrip(".").strip().upper())


def parse_label(text: str | None) -> bool | None:
    """CORRECT -> True, WRONG -> False, by exact token; None (asked again) for anything else.

    Read from the JSON object(s) carrying "label" (they must agree), else from a reply whose
    first line is only the label (and whose other lines never name the other label in capitals).
    "INCORRECT", "not correct", "CORRECT? no" and "Label: CORRECT" are never a label.
    Reasoning blocks (<think>...</think>) are ignored.
    """
    cleaned = re.sub(r"<think>.*?</think>", " ", str(text or ""), flags=re.S | re.I)
    labels = [obj["label"] for obj in json_objects(cleaned) if "label" in obj]
    if labels:
        values = {_label_token(v) for v in labels}
        if None in values or len(values) != 1:
            raise ValueError(f"label {labels[0]!r} is not exactly CORRECT or WRONG" if len(labels) == 1
                             else f"labels {labels!r} are not one CORRECT or WRONG")
        return values.pop()
    first, _, rest = cleaned.strip().partition("\n")
    value = _label_token(first)
    if value is not None and re.search(rf"\b{'WRONG' if value else 'CORRECT'}\b", rest):
        return None  # "CORRECT" then "... WRONG" later: ambiguous, ask again
    return value


def model_id(model: BaseChatModel) -> str | None:
    """The model id a chat model was built with, whatever the provider calls the attribute."""
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def _at_zero_temperature(model: BaseChatModel) -> BaseChatModel:
    temperature = getattr(model, "temperature", None)
    if isinstance(temperature, (int, float)) and temperature != 0:
        try:
            return model.model_copy(update={"temperature": 0.0})
        except Exception:  # a model class that forbids copies keeps its own setting
            return model
    return model


def build_prompt(record: Mapping[str, Any], prompt_builder: PromptBuilder | None = None,
                 template: str | None = None) -> tuple[str, str, str]:
    """(judge kind, template name, prompt text) for one record; `template` is the suite's own prompt."""
    qtype, qid = str(record.get("question_type", "")), str(record.get("question_id", ""))
    question, answer = str(record.get("question", "")), str(record.get("answer", ""))
    hypothesis = str(record.get("hypothesis") or "")
    if prompt_builder is not None and qtype in LONGMEMEVAL_TYPES:
        prompt = prompt_builder(qtype, question, answer, hypothesis, abstention=qid.endswith("_abs"))
        return "official", OFFICIAL_TEMPLATE, prompt
    name, text = choose_prompt(qtype, qid, template)
    return "llm", name, text.format(question=question, answer=answer, hypothesis=hypothesis, category=qtype,
                                        adversarial_answer=str(record.get("adversarial_answer") or "(not given)"))


async def judge_answer(model: BaseChatModel, record: Mapping[str, Any], *, retries: int = 3,
                       prompt_builder: PromptBuilder | None = None, template: str | None = None) -> Grade:
    """Judge one results record (question_type, question_id, question, answer, hypothesis; kind and,
    for LoCoMo's category 5, adversarial_answer).

    Makes at most 1 + `retries` calls, and one when the model raises. `prompt_builder` (from
    `official.load_official_prompt_builder`) swaps our prompts for LongMemEval's own for the six
    LongMemEval types.
    """
    kind, template, prompt = build_prompt(record, prompt_builder, template)
    judge_model = _at_zero_temperature(model)
    words = ("CORRECT", "WRONG") if template in LOCOMO_TEMPLATES.values() else ("yes", "no")
    parse = parse_label if words[0] == "CORRECT" else parse_yes_no
    from langchain_core.messages import HumanMessage

    got = await ask_until_parsed(lambda _: judge_model.ainvoke([HumanMessage(prompt)]), parse, retries)
    if got.value is not None:
        reason = f"judge replied {words[0] if got.value else words[1]}"
    elif got.failed:
        reason = f"unjudged: {got.error}"
    else:
        reason = f"unjudged after {got.attempts} attempts: {got.error}"
    return Grade(label=got.value, judge=kind, model=model_id(model), reason=reason, attempts=got.attempts,
                 tokens=GradeTokens(input=got.input_tokens, output=got.output_tokens), template=template,
                 reply=got.reply.strip(), error=(got.error or None) if got.failed else None)
