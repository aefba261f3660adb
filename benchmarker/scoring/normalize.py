"""The one text normaliser of every grader: the LongMemEval grader, the rubric and the fact matcher.

Why one: three copies drifted apart ("one two" was 3 in one of them, "api-04" was the number 4
in another). Everything works on whole tokens, so "12 times" never credits "2 times" and
"I don't know" never credits "no" (it sits inside "know").

`clean(text)`, a string (the abstention phrases match on it):
  lowercase, NFKC, straight quotes; possessive "'s" dropped, other apostrophes removed
  ("don't" -> "dont"); dates become one token ("March 3, 2024" = "3rd of March 2024" =
  "2024/03/03" -> "date:2024-03-03", "May 20th" -> "md:05-20"; a date token still states its
  parts to `same`, but `numbers_in` never counts them); "p.m." -> "pm",
  "3:00" -> "3", "10am" -> "10 am"; thousands commas dropped; magnitudes to digits ("1.5
  million", "3k", "$2bn"); money and percent ("$1,200" -> "1200 dollars", "50 usd" -> "50
  dollars", "5%" -> "5 percent"); "twice" -> "2 times" (not in "twice as many"), "a week" ->
  "1 week"; a spaced dash separates clauses ("not Lyon - it was Paris").
`tokens(text)`, tokens with clause ids (`token_texts` for the strings):
  identifiers with digits stay one token ("api-04", "inc-4821", "203.0.113.45", "v2": their
  digits are not numbers); number words -> digits ("twenty-five" -> "25", "one hundred and
  five" -> "105", "one two" -> "1 2"); ordinals lose their suffix ("20th" -> "20"); numbers are
  canonical ("5.00" -> "5"); an inflection stemmer ("days" -> "day", "tomatoes" -> "tomato", "mixed" -> "mix");
  month abbreviations expanded ("sept" -> "september"). Articles stay; the grader drops them.
Negation (`is_negated`): a negation word in the four tokens before a match, in the same clause,
with no contrast word ("but", "instead") in between, cancels it: "It was not Paris, it was
London" and "you no longer live in Denver" do not match; "No, it was Paris" does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

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
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_FACTORS = _SCALES | {"k": 1000, "m": 10**6, "mn": 10**6, "bn": 10**9}  # m, mn, bn only after a currency sign
_MONTHS = "january february march april may june july august september october november december".split()
_MONTH_NO = {m: i + 1 for i, m in enumerate(_MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(_MONTHS)} | {"sept": 9}
_ABBREVIATIONS = {m[:3]: m for m in _MONTHS if m != "may"} | {"sept": "september"}
_KEEP = frozenset(_MONTHS) | ARTICLES | NEGATIONS | CONTRASTS
_TIME_UNITS = "second|minute|hour|day|week|month|year|decade|dozen"

_M = "|".join(sorted(_MONTH_NO, key=len, reverse=True))
_ISO_DATE = re.compile(r"(?<![\d:])\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b")
_MDY = re.compile(rf"\b({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{{4}})\b")
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_M})\.?,?\s+(\d{{4}})\b")
_MD = re.compile(rf"\b({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)")
_DM = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_M})\b")
_NUM = r"(\d+(?:\.\d+)?)"
_MAGNITUDE = re.compile(rf"{_NUM}\s?(hundred|thousand|million|billion)\b|{_NUM}k\b")
_MONEY_MAGNITUDE = re.compile(rf"([$€£])\s?{_NUM}\s?(m|mn|bn)\b")
_CURRENCIES = {"$": "dollars", "€": "euros", "£": "pounds", "¥": "yen", "₹": "rupees"}
_NUMBER_RE = re.compile(r"^\d+(?:\.\d+)?$")
# A token, or a clause break (punctuation that is not inside a number or a date token).
_SCAN = re.compile(r"(date:\d{4}-\d\d-\d\d|md:\d\d-\d\d"
                   r"|(?=[a-z][a-z0-9-]*\d)[a-z][a-z0-9]*(?:-[a-z0-9]+)+"
                   r"|\d+(?:[.:]\d+)+|[a-z0-9]+)|[.,;:!?()\[\]\"–—]")


@dataclass(frozen=True)
class Tok:
    """One normalised token and the clause it came from (negation never crosses a clause)."""

    text: str
    clause: int


def _date(year: str, month: str, day: str) -> str:
    m = int(month) if month.isdigit() else _MONTH_NO[month]
    if not (1 <= m <= 12 and 1 <= int(day) <= 31):
        return f" {year}-{month}-{day} "
    return f" date:{int(year):04d}-{m:02d}-{int(day):02d} "


def _month_day(month: str, day: str) -> str:
    return f" md:{_MONTH_NO[month]:02d}-{int(day):02d} " if 1 <= int(day) <= 31 else f" {month} {day} "


def _scaled(number: str, scale: str) -> str:
    return format((Decimal(number) * _FACTORS[scale]).normalize(), "f")


def clean(text: Any) -> str:
    """The string stage (module docstring); idempotent, so cleaning cleaned text changes nothing."""
    t = unicodedata.normalize("NFKC", str(text)).lower()
    t = re.sub(r"[\u2018\u2019\u02bc`]", "'", t).replace("\u201c", '"').replace("\u201d", '"')
    t = re.sub(r"[\u2010-\u2012\u2212]", "-", t).replace("\u2015", "—")
    t = re.sub(r"(?<=\d)[–—](?=\d)", "-", t)
    t = re.sub(r"'s\b", "", t).replace("'", "")
    t = _ISO_DATE.sub(lambda m: _date(m[1], m[2], m[3]), t)
    t = _MDY.sub(lambda m: _date(m[3], m[1], m[2]), t)
    t = _DMY.sub(lambda m: _date(m[3], m[2], m[1]), t)
    t = _MD.sub(lambda m: _month_day(m[1], m[2]), t)
    t = _DM.sub(lambda m: _month_day(m[2], m[1]), t)
    t = re.sub(r"\b([ap])\.m\.?", r"\1m", t)
    t = re.sub(r"\b(\d{1,2}):00\b", r"\1", t)
    t = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", t)
    t = _MONEY_MAGNITUDE.sub(lambda m: m[1] + _scaled(m[2], m[3]), t)
    t = _MAGNITUDE.sub(lambda m: _scaled(m[1], m[2]) if m[1] else _scaled(m[3], "k"), t)
    # A run of symbols ("$$5", "$ $5") is one currency: leaving one behind made cleaning non-idempotent.
    t = re.sub(r"([$€£¥₹])[$€£¥₹\s]*?(\d+(?:\.\d+)?)", lambda m: f" {m[2]} {_CURRENCIES[m[1]]} ", t)
    t = re.sub(rf"{_NUM}\s?(?:usd|bucks)\b", r"\1 dollars", t)
    t = re.sub(r"\bper ?cent\b", "percent", t).replace("%", " percent ")
    t = re.sub(r"(\d)(am|pm)\b", r"\1 \2", t)
    for word, count in (("once", "1 time"), ("twice", "2 times"), ("thrice", "3 times")):
        t = re.sub(rf"\b{word}\b(?!\s+as\b)", count, t)  # "twice as many" is a ratio, not a count
    t = re.sub(rf"\b(?:a|an)\s+({_TIME_UNITS})\b", r"1 \1", t)
    return re.sub(r"\s-+\s", " ; ", t)


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer  # imported on first use: nltk takes ~1 s to import

    return PorterStemmer()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """An inflection stemmer: Porter's step 1 (plurals, -ed, -ing, y -> i) and final-e step (5a),
    from nltk, run to a fixed point so stemming a stem changes nothing.

    Both sides of every comparison go through it, so "tomatoes" meets "tomato", "mixed" meets "mix"
    and "stories" meets "story". Porter's derivational steps are left out on purpose: they made
    "resolver" equal to "resolve" and "university" equal to "universe". Function words the rules look
    for by name (negations, contrasts, articles) and month names (a date's parts, `same`) are kept,
    and so is a word whose stem would be shorter than 3 letters ("going" is not "go")."""
    if not word.isalpha() or len(word) <= 3 or word in _KEEP:
        return word
    porter = _porter()
    for _ in range(8):
        # Each step is kept only when it leaves 3 letters or more: a step that would cut too deep is
        # skipped alone, never the steps before it ("aaeds" keeps its plural's cut: "aaed", as "aaed" does).
        shorter = word
        for step in (porter._step1a, porter._step1b, porter._step1c, porter._step5a):
            if len(cut := step(shorter)) >= 3:
                shorter = cut
        if shorter == word:
            break
        word = shorter
    return word


class StemmedWords(Set[str]):
    """A frozen set of words as the tokeniser spells them (stemmed), built on first use so that
    importing a grader does not import nltk."""

    def __init__(self, words: Iterable[str], *, minus: Iterable[str] = ()) -> None:
        self._words, self._minus = tuple(words), frozenset(minus)
        self._set: frozenset[str] | None = None

    def _items(self) -> frozenset[str]:
        if self._set is None:
            self._set = frozenset(stem(w) for w in self._words) - self._minus
        return self._set

    def __contains__(self, word: object) -> bool:
        return word in self._items()

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> frozenset[Any]:  # results of &, |, - are plain frozensets
        return frozenset(it)

    def intersection(self, other: Iterable[str]) -> frozenset[str]:
        return self._items().intersection(other)


def is_number(token: str) -> bool:
    return bool(_NUMBER_RE.match(token))


def canonical_number(value: Any) -> str:
    """'1,200' / '$1.2k' / 1200.0 -> '1200'; '0.50' -> '0.5'; a non-number comes back as its tokens."""
    text = str(value).strip()
    if _NUMBER_RE.match(text):
        return format(Decimal(text).normalize(), "f")
    toks = token_texts(text)
    numbers = [t for t in toks if is_number(t)]
    return numbers[0] if len(numbers) == 1 else " ".join(toks)


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
            elif w in ("thousand", "million", "billion") and last in ("", "unit", "tens", "scale"):
                total += max(current, 1) * _SCALES[w]
                current, last = 0, "scale"
            else:
                break
            i += 1
        out.append(str(total + current))
    return out


def _normalise_word(word: str) -> str:
    if word.isalpha():
        return stem(_ABBREVIATIONS.get(word, word))
    ordinal = re.match(r"^(\d+)(?:st|nd|rd|th)$", word)
    if ordinal:
        word = ordinal.group(1)
    clock = re.match(r"^0(\d):(\d\d)$", word)  # "09:20" is "9:20"
    if clock:
        return f"{clock[1]}:{clock[2]}"
    return format(Decimal(word).normalize(), "f") if is_number(word) else word


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[Tok, ...]:
    clauses: list[list[str]] = [[]]
    for match in _SCAN.finditer(clean(text)):
        if match.group(1) is None:
            clauses.append([])
        else:
            clauses[-1].append(match.group(1))
    return tuple(Tok(_normalise_word(w), i) for i, words in enumerate(clauses) for w in _words_to_numbers(words))


def tokens(text: Any) -> list[Tok]:
    """The full pipeline: normalised tokens with clause ids."""
    return list(_tokens(str(text)))


def token_texts(text: Any) -> list[str]:
    """Just the token strings."""
    return [t.text for t in _tokens(str(text))]


def is_value(token: str) -> bool:
    """A token that must match exactly, never be paraphrased: a number, date, time, identifier, version."""
    return any(ch.isdigit() for ch in token)


def same(wanted: str, found: str) -> bool:
    """Token equality, except that a date token holds its parts: "May 20, 2023" states "May 20",
    "may", "20" and "2023" (so a fact term "20" is found in it), never "May 2" or "2024"."""
    if wanted == found:
        return True
    if not found.startswith(("date:", "md:")):
        return False
    *year, month, day = found.split(":")[1].split("-")
    if wanted.startswith("md:"):
        return bool(year) and wanted[3:] == f"{month}-{day}"
    if wanted.isdigit():
        return (len(wanted) <= 2 and int(wanted) == int(day)) or year == [wanted]
    return wanted in _MONTHS and _MONTH_NO[wanted] == int(month)


def find_phrase(haystack: list[str], needle: list[str], start: int = 0) -> tuple[int, int] | None:
    """(start, end) of the first contiguous occurrence of `needle` in `haystack`, else None."""
    n = len(needle)
    if not n:
        return None
    for i in range(start, len(haystack) - n + 1):
        if all(same(w, f) for w, f in zip(needle, haystack[i:i + n], strict=True)):
            return i, i + n
    return None


def matches(text: str, phrase: str) -> bool:
    """Does `phrase` occur in `text`, as whole normalised tokens?"""
    return find_phrase(token_texts(text), token_texts(phrase)) is not None


def numbers_in(toks: list[str]) -> set[str]:
    return {t for t in toks if is_number(t)}


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


_STOP = ("a an the i me my myself we our ours us you your yours he him his she her hers it its they them "
         "their what which who whom this that these those am is are was were be been being have has had "
         "having do does did doing and but if or because as until while of at by for with about against "
         "between into through during before after above below to from up down in out on off over under "
         "again further then once here there when where why how all any both each few more most other some "
         "such only own same so than too very s t can will just should now also would could may might must "
         "shall about around approximately roughly total overall like user users")
# Words that carry no content for answer keys and fact comparisons (numbers are never stop words).
# Month names never are: "may" as a stop word let gold "May 2023" match "1 February 2023".
STOPWORDS = StemmedWords(_STOP.split(), minus=_MONTHS)
