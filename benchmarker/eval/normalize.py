"""Text normalisation for deterministic grading: SQuAD-style, but number- and negation-aware.

Why not plain substring matching: peers' graders gave "12 times" credit for "2 times" and
"I don't know" credit for the answer "no" (it sits inside "know"). Everything here works on
whole tokens, so those mistakes cannot happen by construction.

Pipeline (`tokens(text)`), applied identically to answers and hypotheses:
  1. lowercase; curly quotes -> straight; possessive "'s" dropped; other apostrophes removed
     ("don't" -> "dont"); "p.m." -> "pm"; "3:00" -> "3";
  2. "twice" -> "2 times"; "10am" -> "10 am"; money and percent: "$1,200" -> "1200 dollars",
     "5%" -> "5 percent"; thousands commas dropped;
  3. "a week" / "an hour" -> "1 week" / "1 hour" (so "a week" equals "one week" equals "1 week");
  4. split into clauses on punctuation that is not inside a number ("2.5" and "25:50" survive);
  5. tokens: numbers, or runs of letters/digits; articles (a, an, the) removed;
  6. number words -> digits ("twenty-five" -> "25", "one hundred and five" -> "105"),
     digit ordinals lose their suffix ("20th" -> "20"), numbers are canonical ("5.00" -> "5");
  7. a light plural stemmer ("days" -> "day", "classes" -> "class", "movies"/"movie" -> "movy");
     month abbreviations expanded ("sept" -> "september").

Each token remembers its clause, so a negation ("not", "never", "didnt", ...) in the four
tokens before a match, within the same clause and with no "but"/"instead" in between,
cancels it: "It was not Paris, it was London" and "you no longer live in Denver" do not
match; "No, it was Paris" and "not Lyon but Paris" do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ARTICLES = frozenset({"a", "an", "the"})
NEGATIONS = frozenset({
    "not", "no", "never", "dont", "doesnt", "didnt", "isnt", "wasnt", "werent", "arent", "cant",
    "cannot", "couldnt", "wont", "wouldnt", "hasnt", "havent", "hadnt", "neither", "nor", "without",
    "shouldnt",
})
NEGATION_WINDOW = 4
# A contrast word ends a negation's scope: "not Lyon but Paris" asserts Paris.
CONTRASTS = frozenset({"but", "however", "instead", "rather", "actually"})

_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_MONTHS = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
           "jul": "july", "aug": "august", "sep": "september", "sept": "september",
           "oct": "october", "nov": "november", "dec": "december"}
_TIME_UNITS = "second|minute|hour|day|week|month|year|decade|dozen"

_NUMBER_RE = re.compile(r"^\d+(?:\.\d+)?$")
_TOKEN_RE = re.compile(r"\d+(?:[.:]\d+)+|[a-z0-9]+")
_CLAUSE_SPLIT_RE = re.compile(r"(?<!\d)[.,;:!?()\[\]\"–—]|[.,;:!?()\[\]\"–—](?!\d)")


@dataclass(frozen=True)
class Tok:
    """One normalised token and the clause it came from (negation never crosses a clause)."""

    text: str
    clause: int


def clean(text: str) -> str:
    """Steps 1-3 of the pipeline: a lowercase string with money, percent and times rewritten."""
    t = str(text).lower()
    t = t.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    t = re.sub(r"'s\b", "", t)
    t = t.replace("'", "")
    t = re.sub(r"\b([ap])\.m\.?", r"\1m", t)
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    t = re.sub(r"\$\s?(\d+(?:\.\d+)?)", r" \1 dollars ", t)
    t = re.sub(r"(\d+(?:\.\d+)?)\s?(?:usd|bucks)\b", r"\1 dollars", t)
    t = re.sub(r"€\s?(\d+(?:\.\d+)?)", r" \1 euros ", t)
    t = re.sub(r"£\s?(\d+(?:\.\d+)?)", r" \1 pounds ", t)
    t = re.sub(r"(\d)\s?%", r"\1 percent", t)
    t = re.sub(r"\b(\d{1,2}):00\b", r"\1", t)
    t = re.sub(r"(\d)(am|pm)\b", r"\1 \2", t)
    t = re.sub(r"\btwice\b", "2 times", re.sub(r"\bonce\b", "1 time", re.sub(r"\bthrice\b", "3 times", t)))
    t = re.sub(rf"\b(?:a|an)\s+({_TIME_UNITS})\b", r"1 \1", t)
    t = re.sub(r"\s-+\s", " ; ", t)  # a spaced dash separates clauses ("not Lyon - it was Paris")
    return t.replace("-", " ").replace("/", " ")


def stem(word: str) -> str:
    """A deliberately tiny plural stemmer; both sides go through it, so only consistency matters."""
    if _NUMBER_RE.match(word) or len(word) <= 3:
        return word
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ie") and len(word) > 4:
        return word[:-2] + "y"
    if word.endswith(("xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def canonical_number(token: str) -> str:
    """'5.00' -> '5', '0.50' -> '0.5'; non-numbers unchanged."""
    if not _NUMBER_RE.match(token):
        return token
    value = float(token)
    return str(int(value)) if value.is_integer() else repr(value)


def is_number(token: str) -> bool:
    return bool(_NUMBER_RE.match(token))


def _words_to_numbers(words: list[str]) -> list[str]:
    """Replace runs of number words with one digit token; 'one two' stays two numbers."""
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] not in _UNITS and words[i] not in _TENS and words[i] not in _SCALES:
            out.append(words[i])
            i += 1
            continue
        total, current, last = 0, 0, ""
        while i < len(words):
            w = words[i]
            if w == "and" and last == "scale" and i + 1 < len(words) and (
                    words[i + 1] in _UNITS or words[i + 1] in _TENS):
                i += 1
                continue
            if w in _TENS and last in ("", "scale"):
                current += _TENS[w]
                last = "tens"
            elif w in _UNITS and (last in ("", "scale") or (last == "tens" and 0 < _UNITS[w] < 10)):
                current += _UNITS[w]
                last = "unit"
            elif w == "hundred" and last in ("", "unit", "tens"):
                current = max(current, 1) * 100
                last = "scale"
            elif w in ("thousand", "million") and last in ("", "unit", "tens", "scale"):
                total += max(current, 1) * _SCALES[w]
                current, last = 0, "scale"
            else:
                break
            i += 1
        out.append(str(total + current))
    return out


def _normalise_word(word: str) -> str:
    ordinal = re.match(r"^(\d+)(?:st|nd|rd|th)$", word)
    if ordinal:
        return ordinal.group(1)
    if is_number(word):
        return canonical_number(word)
    return stem(_MONTHS.get(word, word))


def tokens(text: str) -> list[Tok]:
    """The full pipeline: normalised tokens with clause ids."""
    result: list[Tok] = []
    for clause_id, clause in enumerate(_CLAUSE_SPLIT_RE.split(clean(text))):
        words = [w for w in _TOKEN_RE.findall(clause) if w not in ARTICLES]
        for word in _words_to_numbers(words):
            result.append(Tok(_normalise_word(word), clause_id))
    return result


def token_texts(text: str) -> list[str]:
    """Just the token strings (for F1 and keyword recall)."""
    return [t.text for t in tokens(text)]


def is_negated(toks: list[Tok], index: int) -> bool:
    """True when a negation word sits in the few tokens before `index`, in the same clause,
    with no contrast word ("but", "instead") in between."""
    clause = toks[index].clause
    for j in range(index - 1, max(-1, index - 1 - NEGATION_WINDOW), -1):
        if toks[j].clause != clause or toks[j].text in CONTRASTS:
            return False
        if toks[j].text in NEGATIONS:
            return True
    return False
