"""The deterministic LongMemEval grader: the offline path's judge, and the floor for LLM judges.

It follows the official judge's per-type rules with token rules instead of a model, checked
in this order:

  1. empty hypothesis -> wrong;
  2. abstention (`question_id` ends in `_abs`, whatever the type) -> correct exactly when the
     hypothesis declines to answer without guessing (see `abstention.py`);
  3. single-session-preference -> the answer is a rubric ("The user would prefer ..."): correct
     when the hypothesis covers at least `[eval.thresholds] preference_recall` (0.3) of the
     rubric's content words. Only the rubric's positive sentences count (a sentence with "not" or
     "avoid" describes what the user would *not* want), and generic rubric words ("user",
     "prefer", "suggest", "especially", ...) are dropped, and so are the question's own words
     (every on-topic answer to "a hotel in Miami?" says "hotel" and "Miami"), so what is left is
     the personal information the response has to use (e.g. "adobe premiere pro advanced
     settings"). Keyword overlap alone passes generic advice on the same topic, so when the rubric
     names personal details (names, titles, numbers: "Brandon Flowers", "iPhone 13 Pro") the
     answer must also use at least `preference_named` (0.5) of them. An answer that says it has
     no information about the user ("there is no specific information about ...") is generic
     advice and fails; a hedge addressed to the user ("if you're unsure about directions, ...")
     is no such refusal;
  4. otherwise the answer is split into variants (the main answer; "(or 25:50)"; "8 days ... is
     also acceptable") and each is matched by `matching.match_variant` against the
     hypothesis with its abstention phrases cut out: the answer as a phrase, or all its key
     tokens (numbers exact, at word boundaries, not negated), or all but one word of a long
     non-list answer, or token F1 >= `answer_f1` (0.8; rules and reasons in matching.py).
     Articles are dropped from both sides first.
     temporal-reasoning also accepts the count +-1 when a number is followed by
     day/week/month ("7 days" accepts 6 and 8 days; "3 weeks" accepts 2-4 weeks); other types
     never do. knowledge-update needs no special rule: the updated value matches even when
     the old one is mentioned too, and the old value alone does not match;
  5. no match and the hypothesis says it doesn't know -> wrong (abstained on an answerable
     question).

LoCoMo answers (the LoCoMo suite's `score`) go through the same rules with the category name as the
type: category 5 (adversarial) is an `_abs` id, so rule 2; categories 1-4 are matched by rule 4
(numbers exact, number words as digits, token F1 >= `answer_f1`), with no off-by-one tolerance
(no LoCoMo type is "temporal-reasoning"); category 3 against the gold's first ";" part, as
LoCoMo's own F1 does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.scoring.abstention import abstains, has_abstention_phrase, refuses, strip_abstention
from benchmarker.scoring.conclusion import conclusion, without_references
from benchmarker.scoring.grade import Grade
from benchmarker.scoring.matching import Match, in_sequence, match_variant, merge_durations, ordered_items
from benchmarker.scoring.normalize import ARTICLES, STOPWORDS, StemmedWords, Tok, is_value, token_texts, tokens

TEMPORAL = "temporal-reasoning"
PREFERENCE = "single-session-preference"
_OFF_BY_ONE_UNITS = frozenset({"day", "week", "month"})
_GENERIC_RUBRIC = StemmedWords((
    "user prefer preferred preference preferences response responses suggest suggests suggested "
    "suggestion suggestions recommend recommends recommendation recommendations especially "
    "specifically specific tailored particular particularly related general generic such interest "
    "interested interests based previous previously mentioned utilize utilizes incorporate "
    "incorporates consider considers include includes including well focus focused focuses "
    "provide provides offer offers option options idea ideas advice tip tips take takes taking "
    "account into their them they would might could want wants like likes appreciate enjoy "
    "acknowledge acknowledges build builds upon existing already current currently own "
    "personalized relevant align aligns aligned way ways thing things something approach since").split())
_ALT_SENTENCE = re.compile(r"\b(?:is|are)\s+(?:also\s+)?(?:acceptable|correct|fine|ok)\b|\balso\s+acceptable\b")
_NEGATIVE_SENTENCE = re.compile(r"\b(?:not|avoid|avoids|dislike|dislikes|unlikely)\b|n't\b")
_LIST_RE = re.compile(r",|;|\b(?:and|or|&)\b|\+", re.I)
_CUT_CONTRAST = re.compile(r"\b(?:rather than|instead of|as opposed to|but not|over generic)\b")


@dataclass(frozen=True)
class GradeResult:
    """A deterministic grade: the label, a 0..1 score and a sentence saying why."""

    label: bool
    score: float
    reason: str

    def to_grade(self) -> Grade:
        """This grade as every judge returns one (no model, one attempt, no tokens)."""
        return Grade(label=self.label, judge="deterministic", reason=self.reason, score=round(self.score, 4))


def _split_answer(answer: str) -> tuple[str, list[str]]:
    """The answer key's main answer and the alternatives it spells out ("(or 25:50)", "8 days ... is also acceptable")."""
    text = str(answer).strip()
    alternatives = [m.strip() for m in re.findall(r"\(\s*or\s+([^()]+)\)", text, flags=re.I)]
    main = re.sub(r"\([^()]*\)", " ", text)
    kept = []
    for sentence in re.split(r"(?<=[.;])\s+", main):
        if _ALT_SENTENCE.search(sentence.lower()):
            alternatives.append(_ALT_SENTENCE.sub(" ", sentence.lower()).strip(" .;"))
        else:
            kept.append(sentence)
    return " ".join(kept).strip(), alternatives


def answer_variants(answer: str) -> list[str]:
    """The main answer plus the alternatives an answer key spells out; a key that states a count in
    its first sentence and then details ("I own 4 instruments. I've had the Fender ...") also
    accepts the count sentence alone."""
    text = str(answer).strip()
    main, alternatives = _split_answer(text)
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", main) if x.strip()]
    lead = [sentences[0]] if len(sentences) >= 2 and any(t.isdigit() for t in token_texts(sentences[0])) else []
    variants = [main, text, *alternatives, *lead]
    out: list[str] = []
    for v in variants:
        if v and v not in out:
            out.append(v)
    return out


def off_by_one(answer_tokens: list[str]) -> list[list[str]]:
    """Token lists with each '<n> day|week|month' count moved by one in either direction."""
    out = []
    for i, tok in enumerate(answer_tokens[:-1]):
        if answer_tokens[i + 1] in _OFF_BY_ONE_UNITS and tok.isdigit():
            for n in (int(tok) - 1, int(tok) + 1):
                if n >= 0:
                    out.append(answer_tokens[:i] + [str(n)] + answer_tokens[i + 1:])
    return out


def _grade_abstention(hypothesis: str) -> GradeResult:
    text = without_references(hypothesis).strip()
    final = conclusion(text)
    if abstains(final):
        return GradeResult(True, 1.0, "identified the question as unanswerable"
                           + ("" if final == text else " in its conclusion"))
    if final != text and has_abstention_phrase(text):
        return GradeResult(False, 0.0, "noted missing information, but concluded with an answer to an unanswerable question")
    if has_abstention_phrase(hypothesis):
        return GradeResult(False, 0.0, "hedged but then guessed an answer to an unanswerable question")
    return GradeResult(False, 0.0, "answered an unanswerable question instead of abstaining")


def _positive_parts(rubric: str) -> list[tuple[str, str]]:
    """Each positive rubric sentence (one with no "not" / "avoid") up to its first contrast, as
    (lowercased, as written): what the user would want, not what they would not."""
    parts = []
    for sentence in re.split(r"(?<=[.;!?])\s+", str(rubric)):
        lower = sentence.lower()
        if _NEGATIVE_SENTENCE.search(lower):
            continue
        cut = _CUT_CONTRAST.search(lower)
        parts.append((lower[:cut.start()], sentence[:cut.start()]) if cut else (lower, sentence))
    return parts


def rubric_keywords(rubric: str, question: str = "") -> list[str]:
    """Content words of the rubric's positive sentences (generic rubric wording and the question's words removed)."""
    asked = set(token_texts(question))
    source = " ".join(lower for lower, _ in _positive_parts(rubric)) or str(rubric)
    words = [t for t in token_texts(source) if t not in STOPWORDS and t not in _GENERIC_RUBRIC and t not in asked]
    return list(dict.fromkeys(words))


def rubric_named(rubric: str, question: str = "") -> list[list[str]]:
    """The personal details of a rubric's positive sentences: names, titles and numbers ("Brandon
    Flowers", "Pimm's Cup", "iPhone 13 Pro"), the words a tailored answer cannot avoid. A run of
    capitalised words is one detail (its tokens); a detail the question itself names ("Tokyo" in
    "getting around Tokyo?") is no sign of tailoring and is left out."""
    asked = set(token_texts(question))
    details: list[list[str]] = []
    for _, written in _positive_parts(rubric):
        run: list[str] = []
        for word in [*written.split()[1:], ""]:
            if any(c.isupper() for c in word) or word[:1].isdigit():  # "Denver", "iPhone", "13"
                run += [t for t in token_texts(word) if t not in STOPWORDS and t not in _GENERIC_RUBRIC]
                continue
            if run and run not in details and not set(run) <= asked:
                details.append(run)
            run = []
    return details


def _grade_preference(rubric: str, hypothesis: str, thresholds: ThresholdsConfig, question: str = "") -> GradeResult:
    if abstains(hypothesis) and refuses(hypothesis):  # a hedge ("if you're unsure, ask staff") is no refusal
        return GradeResult(False, 0.0, "says it has no information about the user (generic advice at best)")
    keywords = rubric_keywords(rubric, question)
    if not keywords:
        return GradeResult(False, 0.0, "rubric has no content words to check")
    present = set(token_texts(hypothesis))
    hits = [k for k in keywords if k in present]
    recall = len(hits) / len(keywords)
    threshold = thresholds.preference_recall
    reason = (f"rubric keyword recall {recall:.2f} ({'>=' if recall >= threshold else '<'} {threshold}); "
              f"used: {', '.join(hits[:8]) or 'none'}")
    named = [" ".join(d) for d in rubric_named(rubric, question)]
    used = [n for n in named if present.intersection(n.split())]
    if recall >= threshold and named and len(used) < thresholds.preference_named * len(named):
        return GradeResult(False, recall, f"{reason}; but names {len(used)} of the rubric's {len(named)} personal "
                           f"details (< {thresholds.preference_named}): {', '.join(named[:6])}")
    return GradeResult(recall >= threshold, recall, reason + (f"; personal details used: {', '.join(used[:6])}" if used else ""))


def _without_articles(toks: list[Tok]) -> list[Tok]:
    return [t for t in toks if t.text not in ARTICLES]


def _answer_tokens(text: str, *, keep: bool = False) -> list[Tok]:
    return merge_durations(_without_articles(tokens(text)), keep=keep)


def _best_match(question_type: str, answer: str, hypothesis: str,
                thresholds: ThresholdsConfig) -> tuple[Match, str]:
    hyp = _answer_tokens(strip_abstention(hypothesis), keep=True)
    best, best_variant = Match(False, "", 0.0), ""
    tolerant = question_type == TEMPORAL
    for variant in answer_variants(answer):
        candidates = [[t.text for t in _answer_tokens(variant)]]
        if tolerant:
            candidates += off_by_one(candidates[0])
        is_list = bool(_LIST_RE.search(variant))
        for i, cand in enumerate(candidates):
            m = match_variant(cand, hyp, is_list=is_list, thresholds=thresholds)
            label = variant if i == 0 else f"{' '.join(cand)} (off by one)"
            if m.ok:
                return m, label
            if m.score > best.score:
                best, best_variant = m, label
    return best, best_variant


def _consistent(answer: str, final: str) -> bool:
    """Does a conclusion that does not restate the whole answer at least agree with it? It names
    every number of the answer, or (an answer without numbers) one of its content words."""
    gold = [t.text for t in _answer_tokens(_split_answer(answer)[0])]
    said = {t.text for t in _answer_tokens(strip_abstention(final), keep=True)}
    values = [t for t in gold if is_value(t)]
    if values:
        return all(v in said for v in values)
    return any(t in said for t in gold if t not in STOPWORDS)


def _grade_sequence(items: list[list[str]], final: str, where: str) -> GradeResult:
    hyp = [t.text for t in _answer_tokens(strip_abstention(final), keep=True)]
    if in_sequence(items, hyp):
        return GradeResult(True, 1.0, f"sequence match: all {len(items)} items in the answer's order{where}")
    named = sum(any(t in hyp for t in item) for item in items)
    return GradeResult(False, named / len(items) / 2, f"ordered answer: {named} of {len(items)} items named{where}, "
                       "or not in the answer's order")


def _grade_answerable(question_type: str, answer: str, hypothesis: str, thresholds: ThresholdsConfig) -> GradeResult:
    """Match the answer key in the hypothesis's conclusion (the whole of a short answer)."""
    text = without_references(hypothesis).strip()
    final = conclusion(text)
    where = "" if final == text else " in the conclusion"
    if refuses(final) and not has_abstention_phrase(answer):
        return GradeResult(False, 0.0, f"declined to answer{where} (a refusal does not pass on a quoted phrase)")
    items = ordered_items(_split_answer(answer)[0])
    if items:
        return _grade_sequence(items, final, where)
    match, variant = _best_match(question_type, answer, final, thresholds)
    if match.ok:
        return GradeResult(True, match.score, f"{match.rule} match of {variant!r}{where}")
    if abstains(final):
        return GradeResult(False, 0.0, f"said it does not know{where}, but the question is answerable")
    if where:
        early, variant = _best_match(question_type, answer, text, thresholds)
        if early.ok and _consistent(answer, final):
            return GradeResult(True, early.score, f"{early.rule} match of {variant!r}; the conclusion restates part of it")
        if early.ok:
            return GradeResult(False, match.score, f"the reasoning mentions {variant!r}, but the conclusion states "
                               f"something else (best token F1 there {match.score:.2f})")
    return GradeResult(False, match.score, f"answer not found (best token F1 {match.score:.2f})")


def grade_deterministic(question_type: str, question_id: str, answer: Any, hypothesis: str | None, *,
                        thresholds: ThresholdsConfig | None = None, question: str = "") -> GradeResult:
    """Grade one hypothesis against the answer key with the type's rules (module docstring); `question`
    (optional) tells a preference rubric's personal details from the question's own topic."""
    thresholds = thresholds or ThresholdsConfig()
    hypothesis = hypothesis or ""
    if not hypothesis.strip():
        return GradeResult(False, 0.0, "empty hypothesis")
    if str(question_id).endswith("_abs"):
        return _grade_abstention(hypothesis)
    if question_type == PREFERENCE:
        return _grade_preference(str(answer), hypothesis, thresholds, str(question or ""))
    return _grade_answerable(question_type, str(answer), hypothesis, thresholds)
