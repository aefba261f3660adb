"""Does an answer decline? ("I don't know", "you never mentioned", "can't be determined")

The one list of abstention phrases, for the deterministic grader and the rubric:
  - `_abs` questions (unanswerable by construction) are correct exactly when the hypothesis
    abstains without also committing to a guess (`abstains`);
  - on answerable questions, the abstention phrase is cut out *before* the answer is looked
    for, so "No information is available" cannot match the answer "no", while "I'm not sure,
    but it was Paris" still matches "Paris" (`strip_abstention`);
  - the rubric's abstention questions need any phrase (`has_abstention_phrase`) and then
    penalise the values a hedge still names;
  - `refuses` tells a refusal ("I don't have access to ...") from a hedge ("not sure, but ...");
    a phrase given as the reason for an answer ("X, as there is no mention of Y") is neither.

Phrases are matched on `normalize.clean` text (lowercase, apostrophes removed: "dont").
"""

from __future__ import annotations

import re

from benchmarker.scoring.normalize import clean

_INFO = (r"(?:information|info|details?|records?|data|memory|memories|mentions?|knowledge|notes?|context|"
         r"indications?|evidence|references?)")
_VERB_DECLINE = (r"(?:mention|mentioned|say|said|tell|told|share|shared|specify|specified|provide|"
                 r"provided|discuss|discussed|state|stated|indicate|include|record|recorded|recommend|recommended|"
                 r"suggest|suggested|come up)")

ABSTENTION_PATTERNS: tuple[str, ...] = (
    r"\b(?:i\s+)?(?:dont|do not|did not|didnt)\s+(?:actually\s+)?(?:know|recall|remember|have (?:that|any|this)\b)",
    rf"\b(?:dont|do not|doesnt|does not|didnt|did not)\s+have\s+(?:any\s+|enough\s+|that\s+|this\s+|the\s+|"
    rf"specific\s+|a\s+)?(?:\w+\s+)?{_INFO}",
    rf"\bno\s+(?:\w+\s+)?{_INFO}\b",
    r"\b(?:not|never)\s+(?:yet\s+|ever\s+|actually\s+|explicitly\s+|specifically\s+|directly\s+)?(?:been\s+|be\s+)?"
    r"(?:explicitly\s+|specifically\s+)?(?:mentioned|specified|stated|"
    r"provided|recorded|available|given|discussed|shared|found|included|indicated|clear|known|said|told|covered|"
    r"confirmed|decided|brought up|came up)\b",
    r"\b(?:isnt|wasnt|arent|werent|hasnt|havent)\s+(?:\w+\s+)?(?:been\s+)?(?:mentioned|specified|stated|"
    r"recorded|available|provided|discussed|shared|included|given|confirmed|decided|said)\b",
    rf"\b(?:never|didnt|did not|havent|have not|hasnt|has not|dont|do not|doesnt|does not)\s+"
    rf"(?:actually\s+|explicitly\s+)?{_VERB_DECLINE}\b",
    r"\b(?:cannot|cant|can not|unable to|not able to|impossible to|couldnt|could not)\s+(?:be\s+)?"
    r"(?:determine|determined|answer|answered|find|found|tell|say|know|known|recall|confirm|"
    r"confirmed|identify|identified|provide|locate|verify|calculate|calculated)\b",
    rf"\b(?:insufficient|not enough|lack of|missing)\s+(?:\w+\s+)?{_INFO}\b",
    r"\b(?:unknown|unanswerable|not answerable|cannot be answered|undecided|unconfirmed|unclear)\b",
    rf"\b{_INFO}\s+(?:\w+\s+)?(?:is|was|are|were)\s+(?:not enough|insufficient|incomplete|missing|lacking|unavailable)\b",
    rf"\bthere\s+(?:is|was|are|were)\s+no\s+(?:\w+\s+)?{_INFO}\b",
    rf"\b(?:dont|do not|doesnt|does not|didnt|did not)\s+(?:seem to\s+|appear to\s+)?(?:contain|include|show|hold)\s+"
    rf"(?:any\s+)?(?:\w+\s+){{0,2}}?{_INFO}\b",
    r"\bi\s+(?:dont|do not)\s+have\s+(?:access|a record|a way)\b",
    rf"\blacks?\s+(?:the\s+|any\s+)?(?:\w+\s+){{0,2}}?{_INFO}\b",
    r"\bnot\s+possible\s+to\s+(?:determine|answer|tell|know|calculate|say|find|identify|confirm)\b",
    r"\bnone\s+of\s+(?:\w+\s+){0,3}?(?:mentions?|says?|specif(?:y|ies)|states?|indicates?)\b",
    r"\bno\s+way\s+(?:for me\s+)?to\s+(?:know|tell|determine)\b",
    r"\b(?:doesnt|does not|dont|do not)\s+(?:appear|seem)\s+to\s+(?:be|have)\b",
    r"\b(?:not|isnt|wasnt|arent|werent)\s+(?:anywhere\s+)?in\s+(?:the|my|your|our|any)\s+(?:\w+\s+)?(?:memory|memories|records?|notes|conversations?|history|chats?)\b",
    r"\b(?:not sure|not certain|unsure|no idea|cant recall|cannot recall|dont recall|do not recall|"
    r"dont remember|do not remember|cant remember|cannot remember)\b",
)
_ABSTAIN_RE = re.compile("|".join(f"(?:{p})" for p in ABSTENTION_PATTERNS))
# "X, as there is no mention of Y" asserts X: a phrase given as the reason for an answer is no abstention.
_REASON_BEFORE = re.compile(r"\b(?:as|since|because|given that|considering)\s*$")
# Uncertainty, not refusal: "I'm not sure, but it was Paris" still answers.
_HEDGE_RE = re.compile(r"\b(?:not sure|not certain|unsure|"
                       r"(?:dont|do not|cant|cannot|couldnt)\s+(?:quite\s+)?(?:recall|remember))\b")

# A hedge followed by a committed guess ("I'm not sure, but I think it was Max") is an answer,
# not an abstention: a careful judge marks it wrong on an unanswerable question.
_GUESS_RE = re.compile(
    r"\b(?:my best guess|best guess|i (?:think|believe|guess|suspect)|probably|most likely|it (?:might|may|could)"
    r" (?:be|have been)|(?:it|that) (?:is|was) likely)\b")


def _phrases(text: str) -> list[str]:
    """The abstention phrases of cleaned text that are not the reason given for an answer."""
    return [m[0] for m in _ABSTAIN_RE.finditer(text) if not _REASON_BEFORE.search(text[max(0, m.start() - 20):m.start()])]


def abstains(hypothesis: str) -> bool:
    """True when the hypothesis declines to answer and does not then guess anyway."""
    text = clean(hypothesis)
    return bool(_phrases(text)) and not _GUESS_RE.search(text)


def has_abstention_phrase(hypothesis: str) -> bool:
    """True when any abstention phrase occurs, guess or not."""
    return bool(_ABSTAIN_RE.search(clean(hypothesis)))


def refuses(hypothesis: str) -> bool:
    """True when the hypothesis declines ("I don't have access to ...", "no record of ..."), as opposed
    to only hedging ("I'm not sure, but ..."): a gold phrase inside a refusal is not an answer."""
    return any(not _HEDGE_RE.search(p) for p in _phrases(clean(hypothesis)))


def strip_abstention(hypothesis: str) -> str:
    """The cleaned hypothesis with every abstention phrase cut out (replaced by a clause break)."""
    return _ABSTAIN_RE.sub(" ; ", clean(hypothesis))
