"""The rubric's deterministic dimensions (scoring/rubric.py grades with them): `factual_accuracy` from the question's
rubric dict (key facts, numbers, sequences, yes/no, L16's choice; forbidden and stale values cost a penalty) and
`specificity` (the gold answer's numbers, dates and names the answer names)."""

from __future__ import annotations

import re
from typing import Any

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Question
from benchmarker.scoring.abstention import has_abstention_phrase
from benchmarker.scoring.normalize import NEGATIONS, StemmedWords, canonical_number, find_phrase, numbers_in, token_texts

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
