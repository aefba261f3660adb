"""Is one answer variant in a hypothesis? Four rules, all over whole normalised tokens.

1. phrase: the answer's tokens occur contiguously in the hypothesis, first token not negated;
2. key tokens: every content token of the answer (stop words dropped; numbers, dates and
   identifiers always kept and compared exactly) occurs somewhere in the hypothesis, each at least once not negated;
   a multi-part answer is therefore only matched when all its parts are given ("a subset is
   not enough");
3. near-complete key tokens: an answer that is not a list (no comma, no "and"/"or") with at
   least 4 key tokens may miss one word (never a number, date or identifier): "a degree in Computer Science" for
   "a bachelor's degree in Computer Science". Lists need every item ("a subset is not enough");
4. token F1 (SQuAD) >= `[eval.thresholds] answer_f1`, and only when every number of the answer
   (date, identifier) is in the hypothesis and the hypothesis adds no negation the answer lacks. The default 0.8
   lets a short paraphrase through ("degree in business administration" for "a bachelor's
   degree in business administration", F1 0.89) and keeps partial lists out ("Spotify" for
   "Spotify and Apple Music", F1 0.67).

Tokens come from `normalize`; a wanted month-day or year is found in a full date (`normalize.same`),
but a count never is: gold "4" (weeks) is not the day of "March 4, 2023" (`same_quantity`). Durations
compare by value: "1 hour and 30 minutes", "an hour and a half" and "1.5 hours" are all "90 minutes"
(`merge_durations`, applied to both sides). An answer that orders items ("First ..., then ...,
finally ...") matches when every item is named in that order (`ordered_items`, `in_sequence`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from itertools import pairwise

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.scoring.normalize import NEGATIONS, STOPWORDS, Tok, is_negated, is_number, is_value, same, stem, token_texts


@dataclass(frozen=True)
class Match:
    """The outcome of matching one answer variant: which rule fired, and a 0..1 score."""

    ok: bool
    rule: str  # "phrase" | "key tokens" | "token f1" | ""
    score: float


def same_quantity(wanted: str, found: str) -> bool:
    """`same`, except that a count of two digits or fewer is never the day inside a date."""
    if found.startswith(("date:", "md:")) and wanted.isdigit() and len(wanted) <= 2:
        return False
    return same(wanted, found)


def find_phrase(haystack: list[str], needle: list[str], start: int = 0) -> tuple[int, int] | None:
    """(start, end) of the first contiguous occurrence of `needle` in `haystack` (`same_quantity`), else None."""
    n = len(needle)
    for i in range(start, len(haystack) - n + 1 if n else 0):
        if all(same_quantity(w, f) for w, f in zip(needle, haystack[i:i + n], strict=True)):
            return i, i + n
    return None


_HOUR, _MINUTE, _HALF = stem("hour"), stem("minute"), "half"


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text) if is_number(text) else None
    except InvalidOperation:
        return None


def merge_durations(toks: list[Tok], *, keep: bool = False) -> list[Tok]:
    """Hours (and minutes) as minutes: "1 hour and 30 minutes", "an hour and a half", "1.5 hours",
    "half an hour" -> "<n> minute", so durations compare by value. `keep` (the hypothesis side)
    keeps the original words before the minutes, so a bare gold "10" is still found in "10 hours"."""
    texts = [t.text for t in toks]
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        minutes: Decimal | None = None
        end = i
        if texts[i] == _HALF and texts[i + 1:i + 3] == ["1", _HOUR]:  # "half an hour" ("an hour" -> "1 hour")
            minutes, end = Decimal(30), i + 3
        elif (hours := _decimal(texts[i])) is not None and texts[i + 1:i + 2] == [_HOUR]:
            minutes, end = hours * 60, i + 2
            rest = [t.text for t in toks[end:end + 4] if t.clause == toks[i].clause]  # not across a comma
            if rest[:1] == ["and"]:
                rest, skip = rest[1:], 1
            else:
                skip = 0
            if rest[:2] == ["a", _HALF] or rest[:1] == [_HALF]:
                minutes, end = minutes + 30, end + skip + (2 if rest[:1] == ["a"] else 1)
            elif len(rest) >= 2 and (extra := _decimal(rest[0])) is not None and rest[1] == _MINUTE:
                minutes, end = minutes + extra, end + skip + 2
        if minutes is None:
            out.append(toks[i])
            i += 1
            continue
        clause = toks[i].clause
        out += (toks[i:end] if keep else []) + [Tok(format(minutes.normalize(), "f"), clause), Tok(_MINUTE, clause)]
        i = end
    return out


_ORDER_WORDS = re.compile(r"\b(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|next|after\s+that|afterwards?|"
                          r"followed\s+by|finally|lastly|last)\b|[,;.:]", re.IGNORECASE)
_ORDERED = re.compile(r"\bfirst(?:ly)?\b.*\b(?:then|next|followed\s+by|finally|lastly|second(?:ly)?)\b",
                      re.IGNORECASE | re.DOTALL)


def ordered_items(answer: str) -> list[list[str]] | None:
    """An answer that orders things ("First X, then Y, and finally Z"): each item's distinctive
    content tokens (words shared by several items do not tell them apart), else None."""
    if not _ORDERED.search(answer):
        return None
    items = [key_tokens(token_texts(part)) for part in _ORDER_WORDS.split(answer)]
    items = [[t for t in item if t != "and"] for item in items]
    items = [item for item in items if item]
    counts = Counter(t for item in items for t in set(item))
    distinct = [[t for t in dict.fromkeys(item) if counts[t] == 1] for item in items]
    distinct = [item for item in distinct if item]
    return distinct if len(distinct) >= 2 else None


def in_sequence(items: list[list[str]], hyp: list[str]) -> bool:
    """Every item named (at least half its distinctive tokens) and the items in the answer's order
    (each placed at the median of its tokens' first occurrences)."""
    places = []
    for item in items:
        firsts = sorted(next(i for i, h in enumerate(hyp) if same_quantity(t, h)) for t in item
                        if any(same_quantity(t, h) for h in hyp))
        if not firsts or 2 * len(firsts) < len(item):
            return False
        places.append(firsts[(len(firsts) - 1) // 2])
    return all(a < b for a, b in pairwise(places))


def key_tokens(answer: list[str]) -> list[str]:
    """Content tokens of an answer: values (numbers, dates, ids) always, words unless they are stop words."""
    return [t for t in answer if is_value(t) or t not in STOPWORDS]


def token_f1(answer: list[str], hypothesis: list[str]) -> float:
    """SQuAD token F1 over normalised tokens."""
    common = Counter(answer) & Counter(hypothesis)
    same = sum(common.values())
    if not answer or not hypothesis or same == 0:
        return 0.0
    precision, recall = same / len(hypothesis), same / len(answer)
    return 2 * precision * recall / (precision + recall)


def _phrase_match(answer: list[str], hyp: list[Tok]) -> bool:
    texts = [t.text for t in hyp]
    found = find_phrase(texts, answer)
    while found is not None:
        if not is_negated(hyp, found[0]):
            return True
        found = find_phrase(texts, answer, found[0] + 1)
    return False


def _present(token: str, hyp: list[Tok]) -> bool:
    return any(same_quantity(token, t.text) and not is_negated(hyp, i) for i, t in enumerate(hyp))


def match_variant(answer: list[str], hyp: list[Tok], *, is_list: bool = False,
                  thresholds: ThresholdsConfig | None = None) -> Match:
    """Apply the rules in order; the score is 1.0 on a phrase/key-token match, else F1.

    `is_list`: the raw answer enumerates items (commas, and/or), so rule 3 does not apply.
    """
    f1_threshold = (thresholds or ThresholdsConfig()).answer_f1
    if not answer or not hyp:
        return Match(False, "", 0.0)
    if _phrase_match(answer, hyp):
        return Match(True, "phrase", 1.0)
    keys = key_tokens(answer)
    present = [k for k in keys if _present(k, hyp)]
    if keys and len(present) == len(keys):
        return Match(True, "key tokens", 1.0)
    missing = [k for k in keys if k not in present]
    if not is_list and len(keys) >= 4 and len(missing) == 1 and not is_value(missing[0]):
        return Match(True, "key tokens (one word missing)", len(present) / len(keys))
    hyp_texts = [t.text for t in hyp]
    f1 = token_f1(answer, hyp_texts)
    numbers_ok = all(any(same_quantity(t, h) for h in hyp_texts) for t in answer if is_value(t))
    new_negation = any(t in NEGATIONS and t not in answer for t in hyp_texts)
    if f1 >= f1_threshold and numbers_ok and not new_negation:
        return Match(True, "token f1", f1)
    return Match(False, "", f1)
