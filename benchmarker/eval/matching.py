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

Tokens come from `normalize`; a wanted month-day is found in a full date (`normalize.same`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.eval.normalize import NEGATIONS, STOPWORDS, Tok, find_phrase, is_negated, is_value, same


@dataclass(frozen=True)
class Match:
    """The outcome of matching one answer variant: which rule fired, and a 0..1 score."""

    ok: bool
    rule: str  # "phrase" | "key tokens" | "token f1" | ""
    score: float


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
    return any(same(token, t.text) and not is_negated(hyp, i) for i, t in enumerate(hyp))


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
    numbers_ok = all(any(same(t, h) for h in hyp_texts) for t in answer if is_value(t))
    new_negation = any(t in NEGATIONS and t not in answer for t in hyp_texts)
    if f1 >= f1_threshold and numbers_ok and not new_negation:
        return Match(True, "token f1", f1)
    return Match(False, "", f1)
