"""Grade one BEAM answer: per rubric item a score of 0 / 0.5 / 1, the question's score their mean;
event ordering scored as the repository's `event_ordering_score` does (alignment, then Kendall's tau-b).

Three graders, one shape of result (the line's `beam` block):

    official     the clone's `unified_llm_judge_base_prompt`, one call per rubric item, and the clone's
                 `llm_equivalence` messages for event ordering's alignment. Reproduces the repository's
                 arithmetic: every ability but event ordering adds `int(score)` (a 0.5 counts 0), event
                 ordering adds `float(score)`; an ability's score is the rubric mean, event ordering's is
                 its normalised tau-b (report_results.py). `score_half` keeps every 0.5, for comparison.
    llm          our prompts (prompts/judge_beam_rubric.txt, judge_beam_same_event.txt), 0.5 kept.
    deterministic no model: a rubric item "... should state: X" holds when the answer carries X's words
                 (all: 1, at least half: 0.5); abstention items by the grader's abstention check; event
                 ordering aligns answer lines to rubric items by shared words. Limits: blind to paraphrase,
                 and instruction / preference following (formatting, tone) cannot be checked by words, so
                 those scores are a floor, not a measurement.

The repository also makes one `break_paragraph_to_facts_detailed_prompt` call per event-ordering answer
and throws its result away (the response is split on newlines instead); it changes no number, so it is
not made here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarker.scoring.abstention import abstains
from benchmarker.scoring.json_reply import first_json_object
from benchmarker.scoring.normalize import token_texts
from benchmarker.suites.beam.blocks import AnswerBlock, ItemScore, OrderingMetrics
from benchmarker.suites.beam.official import OfficialPrompts

EVENT_ORDERING = "event_ordering"
_PREFIX = re.compile(r"^\s*(?:the\s+)?(?:llm\s+)?response\s+should\s+(?:\w+\s+){0,3}?(?:state|contain|mention|include|"
                     r"say|list|provide|show|recommend|acknowledge|note|be)\s*:?\s*", re.I)
_SCORE = re.compile(r'"?score"?\s*[:=]\s*"?(1(?:\.0+)?|0(?:\.\d+)?|\.5)')
_MINOR = frozenset("a an the of to in on for and or with by at is are be was were that this it its as from".split())


def expected_text(item: str) -> str:
    """What a rubric item asks the answer to carry ("LLM response should state: March 29" -> "March 29")."""
    return _PREFIX.sub("", item, count=1).strip() or item


def _content(text: str) -> set[str]:
    return {t for t in token_texts(text) if t not in _MINOR}


def word_share(wanted: str, answer: str) -> float:
    """The share of `wanted`'s content words found in `answer` (1.0 when `wanted` has none)."""
    need = _content(wanted)
    return 1.0 if not need else len(need & _content(answer)) / len(need)


def deterministic_item(item: str, answer: str, *, abstention: bool) -> float:
    """0 / 0.5 / 1 for one rubric item without a model (the module docstring says its limits)."""
    if not answer.strip():
        return 0.0
    if abstention:
        return 1.0 if abstains(answer) else 0.0
    share = word_share(expected_text(item), answer)
    return 1.0 if share >= 0.999 else 0.5 if share >= 0.5 else 0.0


def parse_item_score(text: str) -> float:
    """The score of a rubric-item reply: a JSON object's "score" (0, 0.5 or 1), else `"score": x` in the text."""
    found = first_json_object(text, accept=lambda o: "score" in o)
    raw: Any = found.get("score") if found else None
    if raw is None and (match := _SCORE.search(text)) is not None:
        raw = match.group(1)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError('no "score" of 0, 0.5 or 1 in the reply') from None
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise ValueError(f"score {value} is outside 0..1")
    return value


def tau_b_ranks(reference: list[str], system: list[str]) -> tuple[list[int], list[int]]:
    """Ranks of reference and answer items over their union, an item missing from one side ranked last
    (len(union) + 1), as compute_metrics.event_ordering_score builds them."""
    union = list(dict.fromkeys(reference + system))
    last = len(union) + 1

    def ranks(seq: list[str]) -> list[int]:
        position = {item: i + 1 for i, item in enumerate(seq)}
        return [position.get(u, last) for u in union]

    return ranks(reference), ranks(system)


def ordering_metrics(reference: list[str], system: list[str]) -> OrderingMetrics:
    """Precision / recall / F1 of the aligned items and normalised Kendall tau-b (scipy, variant b).
    `system` is already canonicalised: an aligned line replaced by its reference item."""
    tp = len(set(reference) & set(system))
    fp = len([x for x in system if x not in reference])
    fn = len([x for x in reference if x not in system])
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    # scipy.stats imported here, not at import: it costs ~0.6 s, and every config load imports every suite
    from scipy.stats import kendalltau

    ref_ranks, sys_ranks = tau_b_ranks(reference, system)
    tau = float(kendalltau(ref_ranks, sys_ranks, variant="b", method="auto").statistic) if len(ref_ranks) > 1 \
        else math.nan
    undefined = math.isnan(tau)
    tau_norm = 0.0 if undefined else (tau + 1) / 2
    metrics: OrderingMetrics = {"precision": precision, "recall": recall, "f1": f1,
                                "tau_b": None if undefined else tau, "tau_norm": tau_norm, "final_score": tau_norm * f1}
    if undefined:
        metrics["tau_undefined"] = True
    return metrics


async def align(reference: list[str], system: list[str], same: Callable[[str, str], Awaitable[bool]]) -> list[str]:
    """Each answer line replaced by the first unused reference item it matches (align_with_llm's order:
    answer lines in turn, reference items in order, one call per pair tried until a match)."""
    used: set[int] = set()
    out = []
    for line in system:
        match = None
        for index, item in enumerate(reference):
            if index not in used and await same(item, line):
                match = index
                break
        if match is None:
            out.append(line)
        else:
            out.append(reference[match])
            used.add(match)
    return out


def question_score(ability: str, items: list[float], ordering: OrderingMetrics | None, *,
                   official: bool) -> tuple[float, float]:
    """(score, score with every 0.5 kept) of one question from its rubric-item scores."""
    half = sum(items) / len(items) if items else 0.0
    if ability == EVENT_ORDERING and ordering is not None:
        return float(ordering["tau_norm"]), float(ordering["tau_norm"])
    if official:   # the repository's evaluators add int(score): a 0.5 counts 0
        return sum(int(v) for v in items) / len(items) if items else 0.0, half
    return half, half


class Grader:
    """One answer's calls: the rubric items, then (event ordering) the alignment; tokens counted."""

    def __init__(self, model: Any | None, official: OfficialPrompts | None, *, rubric_template: str,
                 same_template: str, retries: int) -> None:
        self.model, self.official, self.retries = model, official, retries
        self.rubric_template, self.same_template = rubric_template, same_template
        self.input_tokens = self.output_tokens = self.calls = 0

    async def _ask(self, messages: list[Any]) -> str:
        from benchmarker.scoring.judge_policy import message_text

        assert self.model is not None
        reply = await self.model.ainvoke(messages)
        usage = getattr(reply, "usage_metadata", None) or {}
        self.input_tokens += int(usage.get("input_tokens") or 0)
        self.output_tokens += int(usage.get("output_tokens") or 0)
        self.calls += 1
        return message_text(reply)

    async def item(self, question: str, item: str, answer: str, *, abstention: bool) -> ItemScore:
        """{"item", "score" (None: unjudged), "reason"} for one rubric item."""
        if self.model is None:
            return {"item": item, "score": deterministic_item(item, answer, abstention=abstention),
                    "reason": "deterministic: the item's words in the answer"}
        from langchain_core.messages import HumanMessage

        from benchmarker.scoring.judge_policy import ask_until_parsed

        prompt = (self.official.rubric_prompt(item, answer) if self.official is not None else
                  self.rubric_template.format(question=question, rubric_item=item, response=answer))

        model = self.model

        async def call(_: str) -> Any:
            self.calls += 1
            return await model.ainvoke([HumanMessage(prompt)])

        got = await ask_until_parsed(call, parse_item_score, self.retries)
        self.input_tokens += got.input_tokens
        self.output_tokens += got.output_tokens
        reason = ""
        if got.value is not None:
            found = first_json_object(got.reply, accept=lambda o: "score" in o) or {}
            reason = str(found.get("reason") or "")[:300]
        return {"item": item, "score": got.value, "reason": reason or (got.error or "")[:300]}

    async def same(self, first: str, second: str) -> bool:
        """Whether a reference item and an answer line describe the same event (the alignment's YES/NO)."""
        if self.model is None:
            return word_share(first, second) >= 0.5
        from langchain_core.messages import HumanMessage, SystemMessage

        if self.official is not None:
            messages = [SystemMessage(text) if role == "system" else HumanMessage(text)
                        for role, text in self.official.equivalence_messages(first, second)]
        else:
            messages = [HumanMessage(self.same_template.format(first=first, second=second))]
        try:
            return "yes" in (await self._ask(messages)).lower()
        except Exception:  # the wrapper's retries are spent: the pair is not matched, as a NO would be
            return False


async def grade_answer(grader: Grader, *, ability: str, question: str, rubric: list[str], answer: str,
                       abstention: bool) -> AnswerBlock:
    """The `beam` block of one answer: item scores, the ordering metrics, score and score_half."""
    items = [await grader.item(question, item, answer, abstention=abstention) for item in rubric]
    ordering = None
    if ability == EVENT_ORDERING:
        system = answer.split("\n")   # as the repository does: every line, blank ones included
        ordering = ordering_metrics(rubric, await align(rubric, system, grader.same))
    judged = [float(i["score"]) for i in items if i["score"] is not None]
    unjudged = len(items) - len(judged)
    if unjudged:
        block: AnswerBlock = {"ability": ability, "items": items, "score": None, "score_half": None,
                              "unjudged_items": unjudged}
    else:
        score, half = question_score(ability, judged, ordering, official=grader.official is not None)
        block = {"ability": ability, "items": items, "score": round(score, 6), "score_half": round(half, 6)}
    if ordering:
        block["ordering"] = ordering
    return block
