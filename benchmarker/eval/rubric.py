"""Hybrid multi-dimension grading of in-house answers (long-horizon dialogues and levels).

Deterministic dimensions, computed from the question's rubric dict:
  factual_accuracy  required key facts (word-boundary, number-aware), numbers (all-or-nothing),
                    ordered sequences, yes/no polarity, structured choices (L16); minus 0.5 for
                    each forbidden value (distractor) and each stale value presented as current.
                    Abstention questions (`abstain: true`) score 1 for an "I don't know"-style
                    answer and 0 for any asserted value.
  specificity       share of the gold answer's specific tokens (numbers, dates, names) present.
LLM dimensions (only with a judge model; never zero-filled without one): temporal_awareness,
source_attribution, confidence_calibration, prompts in prompts/rubric_<dimension>.txt.

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
import unicodedata
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from benchmarker.agent.messages import message_text
from benchmarker.datasets.schema import Question

DETERMINISTIC = ("factual_accuracy", "specificity")
LLM_DIMENSIONS = ("temporal_awareness", "source_attribution", "confidence_calibration")
ALL_DIMENSIONS = DETERMINISTIC + LLM_DIMENSIONS
# Weights of the overall score, renormalised over the dimensions actually graded.
WEIGHTS = {"factual_accuracy": 0.5, "specificity": 0.1, "temporal_awareness": 0.15,
           "source_attribution": 0.1, "confidence_calibration": 0.15}
DECISION_WEIGHTS = {"decision": 0.5, "reasoning": 0.3, "recall": 0.2}
PENALTY = 0.5
PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


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
    votes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    abstained: bool = False
    judge: str | None = None
    reason: str = ""  # one line: the reasons of the graded dimensions

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- normalisation and matching
# Token-level matching so "2" never matches "12", "no" never matches "know", "1,200" == "1200",
# "three" == "3", "1.5 million" == "1500000", and "March 3, 2024" == "2024-03-03".

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b")
_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{{4}})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b")
_MD = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)")
_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b")
# Identifiers such as "api-04", "INC-4821" or "NE-P2-KX-0412" stay one token: their digits are not numbers.
_TOKEN = re.compile(r"date:\d{4}-\d\d-\d\d|md:\d\d-\d\d|(?=[a-z][a-z0-9-]*\d)[a-z][a-z0-9]*(?:-[a-z0-9]+)+"
                    r"|\d+(?:\.\d+){2,}|\d+(?:\.\d+)?k(?![a-z0-9])"
                    r"|[a-z0-9]*(?:[a-z]\d|\d[a-z])[a-z0-9]*|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
                    r"|[a-z]+(?:'[a-z]+)*|%")


def normalize(text: str) -> str:
    """Lowercase, NFKC, straight quotes, plain hyphens."""
    text = unicodedata.normalize("NFKC", str(text)).lower()
    return re.sub(r"[\u2018\u2019\u02bc`]", "'", re.sub(r"[\u2010-\u2015\u2212]", "-", text))


def canonical_number(value: Any) -> str:
    """'1,200' / '1200.0' / 1200 -> '1200'; '0.50' -> '0.5'; non-numbers come back normalised."""
    text = str(value).replace(",", "").strip().lstrip("$")
    mult = 1000 if text.lower().endswith("k") else 1
    try:
        number = Decimal(text[:-1] if mult != 1 else text) * mult
    except InvalidOperation:
        toks = tokens(str(value))
        return toks[0] if len(toks) == 1 else normalize(str(value))
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


def _date_tok(y: str, m: str | int, d: str) -> str:
    month = _MONTHS[m] if isinstance(m, str) and not m.isdigit() else int(m)
    return f" date:{int(y):04d}-{month:02d}-{int(d):02d} "


def _canon_dates(text: str) -> str:
    text = _ISO_DATE.sub(lambda m: _date_tok(m[1], m[2], m[3]), text)
    text = _MDY.sub(lambda m: _date_tok(m[3], m[1], m[2]), text)
    text = _DMY.sub(lambda m: _date_tok(m[3], m[2], m[1]), text)
    text = _MD.sub(lambda m: f" md:{_MONTHS[m[1]]:02d}-{int(m[2]):02d} ", text)
    return _DM.sub(lambda m: f" md:{_MONTHS[m[2]]:02d}-{int(m[1]):02d} ", text)


def _stem(tok: str) -> str:
    if tok.endswith("'s"):
        tok = tok[:-2]
    if len(tok) > 3 and tok.endswith("s") and not tok.endswith(("ss", "us", "is")):
        return tok[:-1]
    return tok


def _is_num(tok: str) -> bool:
    return bool(re.fullmatch(r"\d+(?:\.\d+)?", tok))


def _merge_numbers(raw: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(raw):
        tok = raw[i]
        if tok in _UNITS or tok in _TENS:
            total, current, j = 0, 0, i
            while j < len(raw):
                w = raw[j]
                if w in _UNITS or w in _TENS:
                    current += _UNITS.get(w, _TENS.get(w, 0))
                elif w in _SCALES and (current or total):
                    if _SCALES[w] == 100:
                        current *= 100
                    else:
                        total, current = total + current * _SCALES[w], 0
                elif w == "and" and j + 1 < len(raw) and (raw[j + 1] in _UNITS or raw[j + 1] in _TENS):
                    pass
                else:
                    break
                j += 1
            out.append(str(total + current))
            i = j
            continue
        if _is_num(tok) and i + 1 < len(raw) and raw[i + 1] in _SCALES:
            out.append(canonical_number(Decimal(tok) * _SCALES[raw[i + 1]]))
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


@lru_cache(maxsize=4096)
def _tokens_cached(text: str) -> tuple[str, ...]:
    raw = []
    for tok in _TOKEN.findall(_canon_dates(normalize(text))):
        if tok == "%":
            raw.append("percent")
        elif tok[0].isdigit() and re.fullmatch(r"[\d,.]+k?", tok) and tok.count(".") <= 1:
            raw.append(canonical_number(tok))
        elif tok.startswith(("date:", "md:")) or tok[0].isdigit() or "-" in tok:
            raw.append(tok)
        else:
            raw.append(_stem(tok))
    return tuple(_merge_numbers(raw))


def tokens(text: str) -> list[str]:
    """Canonical tokens: numbers, dates ('date:YYYY-MM-DD', 'md:MM-DD'), IPs/versions, stemmed words."""
    return list(_tokens_cached(str(text)))


phrase_tokens = tokens


def find_phrase(haystack: list[str], needle: list[str], start: int = 0) -> tuple[int, int] | None:
    """(start, end) of the first contiguous occurrence of `needle` in `haystack`, else None."""
    n = len(needle)
    if not n:
        return None
    for i in range(start, len(haystack) - n + 1):
        if haystack[i:i + n] == needle:
            return i, i + n
    return None


def matches(answer: str, phrase: str) -> bool:
    """Word-boundary, number-aware: does `phrase` occur in `answer`?"""
    return find_phrase(tokens(answer), tokens(phrase)) is not None


def numbers_in(toks: list[str]) -> set[str]:
    return {t for t in toks if _is_num(t)}


_ABSTAIN = re.compile(r"""\b(?:
    (?:do\s+not|don't|dont|did\s+not|didn't)\s+(?:know|recall|remember|have\s+(?:that|any|this)\b)
  | (?:not|never)\s+(?:yet\s+|been\s+|ever\s+|actually\s+|yet\s+been\s+)?(?:mentioned|stated|specified|provided
        |discussed|recorded|given|shared|said|told|covered|confirmed|decided|brought\s+up|came\s+up
        |in\s+(?:my|the|our)\s+(?:memory|memories|notes|records|conversations?))
  | (?:isn't|wasn't|hasn't|haven't|aren't|weren't)\s+(?:yet\s+|been\s+)*(?:mentioned|stated|specified|given|shared
        |confirmed|decided|said)
  | no\s+(?:information|record|records|mention|data|details?|indication|evidence|knowledge)\b
  | (?:cannot|can't|can\s+not|unable\s+to|couldn't|could\s+not)\s+(?:answer|determine|find|tell|say|recall|locate)
  | not\s+(?:sure|certain|known|available)\b | unknown\b | undecided\b | unconfirmed\b | unclear\b
  | no\s+way\s+to\s+(?:know|tell)
  | (?:doesn't|does\s+not|didn't|did\s+not)\s+(?:say|mention|specify|state|come\s+up)
)""", re.X)


def is_abstention(answer: str) -> bool:
    """Does the answer decline ("I don't know", "never mentioned", ...)? Word-boundary regexes."""
    return bool(_ABSTAIN.search(normalize(answer)))


_HISTORY_BEFORE = {"previously", "was", "were", "used", "formerly", "originally", "before", "earlier", "old",
                   "prior", "from", "initially", "had", "changed", "replaced", "until", "not", "no", "longer",
                   "instead", "rather", "once", "first", "superseded", "past", "then"}
_HISTORY_AFTER = {"previously", "before", "earlier", "originally", "initially", "old", "outdated", "stale",
                  "formerly", "superseded", "replaced", "no"}
_HEDGES = {"maybe", "probably", "likely", "perhaps", "guess", "might", "possibly", "presumably", "assume"}
_NEGATIONS = {"not", "isn't", "wasn't", "no", "never", "instead", "rather", "unlike", "aren't", "weren't"}


def unmarked_mentions(toks: list[str], values: list[str], *, negation_only: bool) -> list[str]:
    """Values mentioned without a historical marker (or, with negation_only, without a negation) nearby."""
    before = _NEGATIONS if negation_only else _HISTORY_BEFORE
    after = set() if negation_only else _HISTORY_AFTER
    found = []
    for value in values:
        needle = tokens(value)
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
    toks = tokens(answer)
    named: dict[str, int] = {}
    for label, name in labels.items():
        spots = [find_phrase(toks, tokens(name)), find_phrase(toks, ["option", label.lower()])]
        spots = [s[0] for s in spots if s is not None]
        if spots:
            named[label] = min(spots)
    if len(named) == 1:
        return next(iter(named))
    cues = [i for i, t in enumerate(toks) if t in ("decision", "choose", "recommend", "pick", "select", "go", "prefer")]
    for cue in cues:
        after = {label: p for label, p in named.items() if p > cue}
        if after:
            return min(after, key=after.get)
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
    missing = [g[0] for g in groups if not any(find_phrase(answer_toks, phrase_tokens(a)) for a in g)]
    return (len(groups) - len(missing)) / len(groups), missing


def _in_order(answer_toks: list[str], sequence: list[str]) -> bool:
    positions = [find_phrase(answer_toks, phrase_tokens(s)) for s in sequence]
    if any(p is None for p in positions):
        return False
    firsts = [p[0] for p in positions]
    return firsts == sorted(firsts)


def _polarity(answer_toks: list[str]) -> str | None:
    for tok in answer_toks:
        if tok in ("yes", "no"):
            return tok
    return None


def decision_breakdown(rubric: dict[str, Any], answer: str) -> dict[str, Any]:
    """L16: the parsed choice, and how many justifying and recalled facts the answer names."""
    toks = tokens(answer)
    choice = rubric["choice"]
    picked = parse_choice(answer, choice.get("options", {}))
    decision = 1.0 if picked is not None and picked == choice.get("correct") else 0.0
    reasoning, _ = _coverage(toks, _groups(rubric.get("justify")))
    recall, _ = _coverage(toks, _groups(rubric.get("recall")))
    weights = {**DECISION_WEIGHTS, **rubric.get("weights", {})}
    score = sum(weights[k] * v for k, v in (("decision", decision), ("reasoning", reasoning), ("recall", recall)))
    return {"picked": picked, "correct": choice.get("correct"), "decision": decision,
            "reasoning": reasoning, "recall": recall, "weights": weights, "score": round(score, 6)}


def factual_accuracy(rubric: dict[str, Any], answer: str) -> tuple[float, str]:
    """Score in [0, 1] and a one-line reason."""
    toks = tokens(answer)
    abstained = is_abstention(answer)
    forbidden = unmarked_mentions(toks, [str(f) for f in rubric.get("forbidden", [])], negation_only=True)
    if rubric.get("abstain"):
        if not abstained:
            return 0.0, "asserted an answer to a question whose facts were never given"
        named = [str(f) for f in rubric.get("forbidden", []) if find_phrase(toks, tokens(str(f))) is not None]
        guessed = named if _HEDGES & set(toks) else []  # "not mentioned, maybe X" is still a guess
        return max(0.0, 1.0 - PENALTY * len(guessed)), "abstained" + (f"; but guessed {guessed}" if guessed else "")
    if not toks:
        return 0.0, "empty answer"
    if "choice" in rubric:
        d = decision_breakdown(rubric, answer)
        return d["score"], f"picked {d['picked']} (correct {d['correct']}), reasoning {d['reasoning']:.2f}, recall {d['recall']:.2f}"
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
    if any(find_phrase(toks, phrase_tokens(a)) for a in rubric.get("accept", [])):
        base, missing = 1.0, []
    stale = unmarked_mentions(toks, [str(s) for s in rubric.get("stale", [])], negation_only=False)
    score = max(0.0, base - PENALTY * (len(forbidden) + len(stale)))
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
                names.update(tokens(word))
    out = [t for t in tokens(gold) if t[0].isdigit() or t.startswith(("date:", "md:")) or t in names]
    return list(dict.fromkeys(out))


def specificity(question: Question, answer: str) -> tuple[float | None, str]:
    if question.rubric.get("abstain"):
        return None, "not applicable: abstention question"
    wanted = _specific_tokens(question.answer)
    wanted += [canonical_number(n) for n in question.rubric.get("numbers", []) if canonical_number(n) not in wanted]
    if not wanted:
        return None, "not applicable: gold answer has no numbers, dates or names"
    have = set(tokens(answer))
    hit = [w for w in wanted if w in have]
    return len(hit) / len(wanted), f"{len(hit)}/{len(wanted)} specific tokens"


# ---------------------------------------------------------------- LLM dimensions

@lru_cache(maxsize=None)
def _prompt_template(dimension: str) -> Template:
    path = PROMPTS_DIR / f"rubric_{dimension}.txt"
    if not path.exists():
        raise FileNotFoundError(f"rubric prompt {path} is missing; reinstall from the source tree")
    return Template(path.read_text(encoding="utf-8"))


def render_prompt(dimension: str, question: Question, answer: str) -> str:
    rubric = {k: v for k, v in question.rubric.items() if k != "dimensions"}
    return _prompt_template(dimension).safe_substitute(
        question=question.question, question_date=question.question_date or "unknown",
        gold_answer=question.answer, answer=answer, rubric=json.dumps(rubric, sort_keys=True))




def parse_judge_reply(text: str) -> dict[str, Any] | None:
    """`{"score": 0..1, "reason": ...}` from a judge reply (fences and chatter tolerated), else None."""
    for match in re.finditer(r"\{.*?\}", text, re.S):
        try:
            obj = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        score = obj.get("score") if isinstance(obj, dict) else None
        try:
            value = float(score)
        except (TypeError, ValueError):
            continue
        if 0.0 <= value <= 1.0:
            return {"score": value, "reason": str(obj.get("reason", ""))}
    return None


async def _judge_vote(model: Any, prompt: str, retries: int) -> dict[str, Any]:
    from langchain_core.messages import HumanMessage

    raw, error = "", ""
    for attempt in range(1, retries + 2):
        try:
            reply = await model.ainvoke([HumanMessage(content=prompt)])
        except Exception as exc:  # recorded on the vote; a failed call is not a zero
            error = f"{type(exc).__name__}: {exc}"
            continue
        raw = message_text(reply)
        parsed = parse_judge_reply(raw)
        if parsed is not None:
            return {**parsed, "attempts": attempt, "raw": raw}
    return {"score": None, "unparsable": True, "attempts": retries + 1, "raw": raw, "error": error}


def _judge_name(model: Any) -> str:
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


# ---------------------------------------------------------------- public API

def _dimensions(question: Question, dimensions: Any) -> list[str]:
    chosen = list(dimensions or question.rubric.get("dimensions") or ALL_DIMENSIONS)
    unknown = [d for d in chosen if d not in ALL_DIMENSIONS]
    if unknown:
        raise ValueError(f"unknown rubric dimension(s) {unknown}; choose from {list(ALL_DIMENSIONS)}")
    return [d for d in ALL_DIMENSIONS if d in chosen or d == "factual_accuracy"]


def _deterministic(question: Question, answer: str, dims: list[str]) -> RubricGrade:
    grade = RubricGrade(question.question_id, {}, None, [], [], [], abstained=is_abstention(answer))
    rubric = question.rubric or {"required": [question.answer]}  # no rubric: the gold answer is the key fact
    score, reason = factual_accuracy(rubric, answer)
    grade.scores["factual_accuracy"], grade.reasons["factual_accuracy"] = score, reason
    if "specificity" in dims:
        spec, why = specificity(question, answer)
        grade.scores["specificity"], grade.reasons["specificity"] = spec, why
    for dim, value in grade.scores.items():
        grade.votes[dim] = [{"score": value, "deterministic": True}]
    return grade


def _finish(grade: RubricGrade, dims: list[str]) -> RubricGrade:
    grade.graded_dimensions = [d for d in dims if grade.scores.get(d) is not None]
    grade.ungraded_dimensions = [d for d in dims if grade.scores.get(d) is None]
    for d in grade.ungraded_dimensions:
        grade.scores.setdefault(d, None)
    total = sum(WEIGHTS[d] for d in grade.graded_dimensions)
    if total:
        grade.overall = round(sum(WEIGHTS[d] * grade.scores[d] for d in grade.graded_dimensions) / total, 6)
    if grade.scores.get("factual_accuracy") == 0.0:
        grade.overall = 0.0  # a wrong or missing answer earns nothing for style or calibration
    grade.overall_covers = list(grade.graded_dimensions)
    grade.reason = "; ".join(f"{d}: {grade.reasons.get(d, '')}" for d in grade.graded_dimensions)
    return grade


def grade_answer_deterministic(question: Question, answer: str, dimensions: Any = None) -> RubricGrade:
    """Offline grading: deterministic dimensions only; LLM dimensions listed as ungraded."""
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims)
    for dim in dims:
        if dim in LLM_DIMENSIONS:
            grade.reasons[dim] = "not graded: no judge model configured"
    return _finish(grade, dims)


async def grade_answer(question: Question, answer: str, *, judge_model: Any = None, votes: int = 1,
                       dimensions: Any = None, retries: int = 2) -> RubricGrade:
    """Hybrid grading: deterministic dimensions plus, with a judge, the median of `votes` LLM votes."""
    if judge_model is None:
        return grade_answer_deterministic(question, answer, dimensions)
    dims = _dimensions(question, dimensions)
    grade = _deterministic(question, answer or "", dims)
    grade.judge = _judge_name(judge_model)
    llm_dims = [d for d in dims if d in LLM_DIMENSIONS]
    jobs = [_judge_vote(judge_model, render_prompt(d, question, answer or ""), retries)
            for d in llm_dims for _ in range(max(1, votes))]
    results = await asyncio.gather(*jobs)
    for i, dim in enumerate(llm_dims):
        dim_votes = list(results[i * max(1, votes):(i + 1) * max(1, votes)])
        grade.votes[dim] = dim_votes
        scores = [v["score"] for v in dim_votes if v.get("score") is not None]
        if scores:
            grade.scores[dim] = float(statistics.median(scores))
            grade.reasons[dim] = f"median of {len(scores)} parsable vote(s) of {len(dim_votes)}"
        else:
            grade.scores[dim] = None
            grade.reasons[dim] = f"not graded: all {len(dim_votes)} judge vote(s) unparsable"
    return _finish(grade, dims)


__all__ = ["RubricGrade", "grade_answer", "grade_answer_deterministic", "factual_accuracy", "specificity",
           "decision_breakdown", "parse_judge_reply", "render_prompt", "tokens", "matches", "numbers_in",
           "is_abstention", "parse_choice", "unmarked_mentions", "ALL_DIMENSIONS", "LLM_DIMENSIONS", "WEIGHTS",
           "DECISION_WEIGHTS"]
