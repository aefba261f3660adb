"""Hybrid multi-dimension grading of in-house answers (long-horizon dialogues and levels).

Deterministic dimensions, computed from the question's rubric dict:
  factual_accuracy  required key facts (word-boundary, number-aware), numbers (all-or-nothing),
                    ordered sequences, yes/no polarity, structured choices (L16); minus
                    `[eval.thresholds] rubric_penalty` (0.5) for each forbidden value (distractor)
                    and each stale value presented as current. Abstention questions
                    (`abstain: true`) score 1 for an "I don't know"-style answer and 0 for any
                    asserted value.
  specificity       share of the gold answer's specific tokens (numbers, dates, names) present.
LLM dimensions (only with a judge model; never zero-filled without one): temporal_awareness,
source_attribution, confidence_calibration, prompts in prompts/rubric_<dimension>.txt.
`overall` weighs the graded dimensions by `rubric_weights`. Text goes through `normalize`.

Rubric keys (all optional): required [str | [alternatives]], numbers [..], accept [full
alternative answers], forbidden [..], stale [..], abstain bool, sequence [..], yes_no "yes"|"no",
choice {"options": {label: name}, "correct": label}, justify [..], recall [..], weights {..},
dimensions [..].
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
from dataclasses import asdict, dataclass, field
from functools import cache
from string import Template
from typing import Any, TypedDict

from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Question
from benchmarker.scoring.abstention import has_abstention_phrase
from benchmarker.scoring.json_reply import first_json_object
from benchmarker.scoring.judge import model_id
from benchmarker.scoring.judge_policy import ask_until_parsed
from benchmarker.scoring.normalize import NEGATIONS, StemmedWords, canonical_number, find_phrase, numbers_in, token_texts

DETERMINISTIC = ("factual_accuracy", "specificity")
LLM_DIMENSIONS = ("temporal_awareness", "source_attribution", "confidence_calibration")
ALL_DIMENSIONS = DETERMINISTIC + LLM_DIMENSIONS


class JudgeScore(TypedDict):
    """A rubric judge's usable reply."""

    score: float | None
    reason: str


class Vote(TypedDict, total=False):
    """One vote on one dimension: the judge's score and reason with its attempts and raw reply, a failed or
    unparsable call (score None), or the deterministic score standing in for the judge."""

    score: float | None
    reason: str
    attempts: int
    raw: str
    unparsable: bool
    error: str | None
    deterministic: bool


@dataclass
class RubricGrade:
    """Per-dimension scores (None = not graded), every raw vote, and what `overall` covers."""

    question_id: str
    scores: dict[str, float | None]
    overall: float | None
    overall_covers: list[str]
    graded_dimensions: list[str]
    ungraded_dimensions: list[str]
    reasons: dict[str, str] = field(default_factory=dict)
    votes: dict[str, list[Vote]] = field(default_factory=dict)
    abstained: bool = False
    judge: str | None = None
    reason: str = ""  # one line: the reasons of the graded dimensions

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_HISTORY_BEFORE = StemmedWords(("previously", "was", "were", "used", "formerly", "originally", "before", "earlier", "old",
                                "prior", "from", "initially", "had", "changed", "replaced", "until", "not", "no", "longer",
                                "instead", "rather", "first", "superseded", "past", "then"))
_HISTORY_AFTER = StemmedWords(("previously", "before", "earlier", "originally", "initially", "old", "outdated", "stale",
                               "formerly", "superseded", "replaced", "no"))
_CHOICE_CUES = StemmedWords(("decision", "choose", "recommend", "pick", "select", "go", "prefer"))
_HEDGES = StemmedWords(("maybe", "probably", "likely", "perhaps", "guess", "might", "possibly", "presumably", "assume"))
_NEGATED = StemmedWords([*NEGATIONS, "instead", "rather", "unlike"])


def unmarked_mentions(toks: list[str], values: list[str], *, negation_only: bool) -> list[str]:
    """Values mentioned without a historical marker (or, with negation_only, without a negation) nearby."""
    before = _NEGATED if negation_only else _HISTORY_BEFORE
    after = set() if negation_only else _HISTORY_AFTER
    found = []
    for value in values:
        needle = token_texts(value)
        pos = find_phrase(toks, needle)
        while pos is not None:
            lo, hi = pos
            if not (before & set(toks[max(0, lo - 6):lo]) or after & set(toks[hi:hi + 3])):
                found.append(value)
                break
            pos = find_phrase(toks, needle, lo + 1)
    return found


def parse_choice(answer: str, options: dict[str, str]) -> str | None:
    """The option label an answer decides on: 'Decision: B', 'I choose option B', or the one option named.

    With several options named, the first one after a decision cue ("recommend", "choose", ...) wins;
    with no cue the answer is ambiguous and None is returned.
    """
    labels = {str(k).upper(): str(v) for k, v in options.items()}
    for pattern in (r"\bdecision\s*[:\-]\s*(?:option\s+)?\(?([a-z])\)?(?![a-z0-9])",
                    r"\b(?:choose|chose|pick|select|recommend|go\s+with)\s+option\s+\(?([a-z])\)?(?![a-z0-9])"):
        found = re.search(pattern, answer, re.I)
        if found and found.group(1).upper() in labels:
            return found.group(1).upper()
    listed = [m for label, name in labels.items()
              for m in re.finditer(rf"\b{label}\)\s*{re.escape(name)}", answer, re.I)]
    if len(listed) == 1:
        return listed[0].group(0)[0].upper()
    for m in sorted(listed, key=lambda m: -m.start()):  # "A) x, B) y, C) z" restates the options: no choice
        answer = answer[:m.start()] + answer[m.end():]
    toks = token_texts(answer)
    named: dict[str, int] = {}
    for label, name in labels.items():
        spots = [find_phrase(toks, token_texts(name)), find_phrase(toks, ["option", label.lower()])]
        starts = [s[0] for s in spots if s is not None]
        if starts:
            named[label] = min(starts)
    if len(named) == 1:
        return next(iter(named))
    cues = [i for i, t in enumerate(toks) if t in _CHOICE_CUES]
    for cue in cues:
        after = {label: p for label, p in named.items() if p > cue}
        if after:
            return min(after, key=after.__getitem__)
    return None


# ---------------------------------------------------------------- deterministic dimensions

def _groups(items: Any) -> list[list[str]]:
    """Required-style lists: each entry a phrase or a list of alternative phrases."""
    out = []
    for item in items or []:
        alts = [str(a) for a in item] if isinstance(item, (list, tuple)) else [str(item)]
        out.append([a for a in alts if a.strip()])
    return [g for g in out if g]


def _coverage(answer_toks: list[str], groups: list[list[str]]) -> tuple[float, list[str]]:
    if not groups:
        return 1.0, []
    missing = [g[0] for g in groups if not any(find_phrase(answer_toks, token_texts(a)) for a in g)]
    return (len(groups) - len(missing)) / len(groups), missing


def _in_order(answer_toks: list[str], sequence: list[str]) -> bool:
    positions = [find_phrase(answer_toks, token_texts(s)) for s in sequence]
    if any(p is None for p in positions):
        return False
    firsts = [p[0] for p in positions if p is not None]
    return firsts == sorted(firsts)


def _polarity(answer_toks: list[str]) -> str | None:
    for tok in answer_toks:
        if tok in ("yes", "no"):
            return tok
    return None


def decision_breakdown(rubric: dict[str, Any], answer: str, *,
                       thresholds: ThresholdsConfig | None = None) -> dict[str, Any]:
    """L16: the parsed choice, and how many justifying and recalled facts the answer names.

    Weights: `[eval.thresholds] decision_weights`, then the rubric's own `weights`."""
    toks = token_texts(answer)
    choice = rubric["choice"]
    picked = parse_choice(answer, choice.get("options", {}))
    decision = 1.0 if picked is not None and picked == choice.get("correct") else 0.0
    reasoning, _ = _coverage(toks, _groups(rubric.get("justify")))
    recall, _ = _coverage(toks, _groups(rubric.get("recall")))
    weights = {**(thresholds or ThresholdsConfig()).decision_weights, **rubric.get("weights", {})}
    score = sum(weights[k] * v for k, v in (("decision", decision), ("reasoning", reasoning), ("recall", recall)))
    return {"picked": picked, "correct": choice.get("correct"), "decision": decision,
            "reasoning": reasoning, "recall": recall, "weights": weights, "score": round(score, 6)}


def factual_accuracy(rubric: dict[str, Any], answer: str, *,
                     thresholds: ThresholdsConfig | None = None) -> tuple[float, str]:
    """Score in [0, 1] and a one-line reason."""
    thresholds = thresholds or ThresholdsConfig()
    penalty = thresholds.rubric_penalty
    toks = token_texts(answer)
    abstained = has_abstention_phrase(answer)
    forbidden = unmarked_mentions(toks, [str(f) for f in rubric.get("forbidden", [])], negation_only=True)
    if rubric.get("abstain"):
        if not abstained:
            return 0.0, "asserted an answer to a question whose facts were never given"
        named = [str(f) for f in rubric.get("forbidden", []) if find_phrase(toks, token_texts(str(f))) is not None]
        guessed = named if _HEDGES & set(toks) else []  # "not mentioned, maybe X" is still a guess
        return max(0.0, 1.0 - penalty * len(guessed)), "abstained" + (f"; but guessed {guessed}" if guessed else "")
    if not toks:
        return 0.0, "empty answer"
    if "choice" in rubric:
        d = decision_breakdown(rubric, answer, thresholds=thresholds)
        return d["score"], (f"picked {d['picked']} (correct {d['correct']}), reasoning {d['reasoning']:.2f}, "
                            f"recall {d['recall']:.2f}")
    found = numbers_in(toks)
    wanted = [canonical_number(n) for n in rubric.get("numbers", [])]
    missing_numbers = [n for n in wanted if n not in found]
    if missing_numbers:
        return 0.0, f"missing number(s) {missing_numbers}"
    if rubric.get("yes_no") and _polarity(toks) != rubric["yes_no"]:
        return 0.0, f"expected a '{rubric['yes_no']}' answer"
    if rubric.get("sequence") and not _in_order(toks, [str(s) for s in rubric["sequence"]]):
        return 0.0, "items missing or out of order"
    checks = ("required", "numbers", "accept", "sequence", "yes_no")
    if not any(rubric.get(k) for k in checks):
        return 0.0, "rubric lists nothing to check (no required facts, numbers or accepted answers)"
    base, missing = _coverage(toks, _groups(rubric.get("required")))
    if any(find_phrase(toks, token_texts(a)) for a in rubric.get("accept", [])):
        base, missing = 1.0, []
    stale = unmarked_mentions(toks, [str(s) for s in rubric.get("stale", [])], negation_only=False)
    score = max(0.0, base - penalty * (len(forbidden) + len(stale)))
    parts = [f"coverage {base:.2f}"] + ([f"missing {missing}"] if missing else [])
    parts += [f"forbidden {forbidden}"] if forbidden else []
    parts += [f"stale as current {stale}"] if stale else []
    return score, "; ".join(parts)


def _specific_tokens(gold: str) -> list[str]:
    """Numbers, dates, IPs/versions and mid-sentence capitalised words of the gold answer."""
    names: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;:])\s+", gold):
        for word in sentence.split()[1:]:
            if word[:1].isupper():
                names.update(token_texts(word))
    bare = re.sub(r"\b(?:a|an)\s+", " ", gold, flags=re.I)  # "a week" is 1 week, but not a specific number
    out = [t for t in token_texts(bare) if t[0].isdigit() or t.startswith(("date:", "md:")) or t in names]
    return list(dict.fromkeys(out))


def specificity(question: Question, answer: str) -> tuple[float | None, str]:
    if question.rubric.get("abstain"):
        return None, "not applicable: abstention question"
    wanted = _specific_tokens(question.answer)
    wanted += [canonical_number(n) for n in question.rubric.get("numbers", []) if canonical_number(n) not in wanted]
    if not wanted:
        return None, "not applicable: gold answer has no numbers, dates or names"
    have = set(token_texts(answer))
    hit = [w for w in wanted if w in have]
    return len(hit) / len(wanted), f"{len(hit)}/{len(wanted)} specific tokens"


# ---------------------------------------------------------------- LLM dimensions

@cache
def _prompt_template(dimension: str) -> Template:
    return Template(load_prompt(f"rubric_{dimension}"))


def render_prompt(dimension: str, question: Question, answer: str) -> str:
    rubric = {k: v for k, v in question.rubric.items() if k != "dimensions"}
    return _prompt_template(dimension).safe_substitute(
        question=question.question, question_date=question.question_date or "unknown",
        gold_answer=question.answer, answer=answer, rubric=json.dumps(rubric, sort_keys=True))


def _score_of(obj: dict[str, Any]) -> float | None:
    try:
        value = float(obj.get("score"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if 0.0 <= value <= 1.0 else None


def parse_judge_reply(text: str) -> JudgeScore | None:
    """`{"score": 0..1, "reason": ...}` from a judge reply (fences and chatter tolerated), else None."""
    obj = first_json_object(text, lambda o: _score_of(o) is not None)
    return None if obj is None else {"score": _score_of(obj), "reason": str(obj.get("reason", ""))}


async def _judge_vote(model: Any, prompt: str, retries: int) -> Vote:
    """One vote under the judge policy (judge_policy.py): a failed call is recorded, never a zero."""
    from langchain_core.messages import HumanMessage

    got = await ask_until_parsed(lambda _: model.ainvoke([HumanMessage(content=prompt)]), parse_judge_reply, retries)
    if got.value is not None:
        return {**got.value, "attempts": got.attempts, "raw": got.reply}
    return {"score": None, "unparsable": not got.failed, "attempts": got.attempts, "raw": got.reply,
            "error": got.error}


# ---------------------------------------------------------------- public API

def _dimensions(question: Question, dimensions: Any) -> list[str]:
    chosen = list(dimensions or question.rubric.get("dimensions") or ALL_DIMENSIONS)
    unknown = [d for d in chosen if d not in ALL_DIMENSIONS]
    if unknown:
        raise ValueError(f"unknown rubric dimension(s) {unknown}; choose from {list(ALL_DIMENSIONS)}")
    return [d for d in ALL_DIMENSIONS if d in chosen or d == "factual_accuracy"]


def _deterministic(question: Question, answer: str, dims: list[str], thresholds: ThresholdsConfig) -> RubricGrade:
    grade = RubricGrade(question.question_id, {}, None, [], [], [], abstained=has_abstention_phrase(answer))
    rubric = question.rubric or {"required": [question.answer]}  # no rubric: the gold answer is the key fact
    score, reason = factual_accuracy(rubric, answer, thresholds=thresholds)
    grade.scores["factual_accuracy"], grade.reasons["factual_accuracy"] = score, reason
    if "specificity" in dims:
        spec, why = specificity(question, answer)
        grade.scores["specificity"], grade.reasons["specificity"] = spec, why
    for dim, value in grade.scores.items():
        grade.votes[dim] = [{"score": value, "deterministic": True}]
    return grade


def _finish(grade: RubricGrade, dims: list[str], weights: dict[str, float]) -> RubricGrade:
    grade.graded_dimensions = [d for d in dims if grade.scores.get(d) is not None]
    grade.ungraded_dimensions = [d for d in dims if grade.scores.get(d) is None]
    for d in grade.ungraded_dimensions:
        grade.scores.setdefault(d, None)
    total = sum(weights[d] for d in grade.graded_dimensions)
    if total:
        grade.overall = round(sum(weights[d] * (grade.scores[d] or 0.0) for d in grade.graded_dimensions) / total, 6)
    if grade.scores.get("factual_accuracy") == 0.0:
        grade.overall = 0.0  # a wrong or missing answer earns nothing for style or calibration
    grade.overall_covers = list(grade.graded_dimensions)
    grade.reason = "; ".join(f"{d}: {grade.reasons.get(d, '')}" for d in grade.graded_dimensions)
    return grade


def grade_answer_deterministic(question: Question, answer: str, dimensions: Any = None, *,
                               thresholds: ThresholdsConfig | None = None) -> RubricGrade:
    """Offline grading: deterministic dimensions only; LLM dimensions listed as ungraded."""
    thresholds = thresholds or ThresholdsConfig()
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims, thresholds)
    for dim in dims:
        if dim in LLM_DIMENSIONS:
            grade.reasons[dim] = "not graded: no judge model configured"
    return _finish(grade, dims, thresholds.rubric_weights)


async def grade_answer(question: Question, answer: str, *, judge_model: Any = None, votes: int = 1,
                       dimensions: Any = None, retries: int = 2,
                       thresholds: ThresholdsConfig | None = None) -> RubricGrade:
    """Hybrid grading: deterministic dimensions plus, with a judge, the median of `votes` LLM votes.

    Each vote follows the judge policy (judge_policy.py): `retries` re-asks after an unusable
    reply, none after a model error; a dimension without a parsable vote is ungraded."""
    thresholds = thresholds or ThresholdsConfig()
    if judge_model is None:
        return grade_answer_deterministic(question, answer, dimensions, thresholds=thresholds)
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims, thresholds)
    grade.judge = model_id(judge_model) or type(judge_model).__name__
    llm_dims = [d for d in dims if d in LLM_DIMENSIONS]
    jobs = [_judge_vote(judge_model, render_prompt(d, question, answer or ""), retries)
            for d in llm_dims for _ in range(max(1, votes))]
    results = await asyncio.gather(*jobs)
    for i, dim in enumerate(llm_dims):
        dim_votes = list(results[i * max(1, votes):(i + 1) * max(1, votes)])
        grade.votes[dim] = dim_votes
        scores = [score for v in dim_votes if (score := v.get("score")) is not None]
        if scores:
            grade.scores[dim] = float(statistics.median(scores))
            grade.reasons[dim] = f"median of {len(scores)} parsable vote(s) of {len(dim_votes)}"
        else:
            failed = [v["error"] for v in dim_votes if not v.get("unparsable")]
            grade.scores[dim] = None
            grade.reasons[dim] = (f"not graded: {failed[0]}" if failed
                                  else f"not graded: all {len(dim_votes)} judge vote(s) unparsable")
    return _finish(grade, dims, thresholds.rubric_weights)


__all__ = ["RubricGrade", "grade_answer", "grade_answer_deterministic", "factual_accuracy", "specificity",
           "decision_breakdown", "parse_judge_reply", "render_prompt", "parse_choice", "unmarked_mentions",
           "ALL_DIMENSIONS", "LLM_DIMENSIONS"]
