"""LoCoMo's lexical scores (token F1, BLEU-1) per answer, and the `locomo` block of summary.json.

What each peer computes, and what we do:

  LoCoMo (snap-research/LoCoMo, task_eval/evaluation.py)
      normalise: drop commas, lowercase, drop ASCII punctuation (string.punctuation), drop the
      words a / an / the / and, split on whitespace, Porter-stem every token (NLTK's default
      PorterStemmer); F1 over token multisets. Category 1 (multi-hop): gold and reply are split
      on "," and F1 is the mean, over gold parts, of the best F1 against any reply part.
      Category 3 (open-domain): only the gold's first ";" part counts. Categories 2 and 4:
      plain F1. Category 5: 1 when the reply contains "no information available" or "not
      mentioned" (a substring test), else 0. No BLEU. Means per category, no intervals.
  mem0 (evaluation/metrics/utils.py, evals.py)
      F1 over token SETS of the lowercased text with . , ! ? turned into spaces, no stemming,
      no per-category rule; BLEU-1 = nltk `sentence_bleu([ref], hyp, weights=(1, 0, 0, 0),
      smoothing_function=SmoothingFunction().method1)` on `nltk.word_tokenize` of both texts
      lowercased; category 5 skipped entirely; its LLM judge is told to be "generous".
  We
      F1 = LoCoMo's exactly (normalisation, stemming, multisets, the category 1 and 3 rules),
      so it compares with the LoCoMo paper's numbers, not mem0's (set F1 without stemming).
      BLEU-1 = mem0's call on the full gold answer, with a regex tokenizer in place of
      word_tokenize (its punkt data cannot be downloaded offline): lowercase; numbers keep their
      inner . , : ("1,200", "3:30"); words keep inner hyphens and apostrophes; every other
      punctuation mark is a token of its own, as in word_tokenize. It differs on contractions
      ("don't" is one token; word_tokenize makes "do" "n't") and on quotes (kept as '"').
      Category 5 gets no F1 or BLEU-1: against "Not mentioned in the conversation." they
      would score the wording of a refusal, not whether it refused. It is reported by its
      judge label only, as abstention (the judge or the deterministic abstention check).
  Numbers: "3" and "three" share no token, so F1 and BLEU-1 give 0 (as in LoCoMo and mem0);
  the LLM judge and the deterministic grader (number words -> digits) count them equal.
  Empty replies score 0, as in both peers.

Intervals: judge accuracy carries a 95% Wilson interval (qa_metrics.cell); F1 and BLEU-1 means
carry a 95% percentile bootstrap interval (10,000 resamples of the questions, seed 0), because
per-answer F1 piles up at 0 and 1 and a t interval would assume a shape it does not have.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from benchmarker.log.lines import ResultLine
from benchmarker.scoring.qa_metrics import cell, not_graded
from benchmarker.scoring.stats import bootstrap_mean_ci
from benchmarker.suites.locomo.data import ADVERSARIAL, CATEGORY_NAMES
from benchmarker.suites.locomo.evidence import block_of_results
from benchmarker.suites.locomo.shapes import CategoryStats, LexicalScores, MeanCi, SummaryBlock

KIND = "locomo"
SCORED = tuple(str(c) for c in sorted(CATEGORY_NAMES) if c != ADVERSARIAL)  # "1".."4": the overall
BOOTSTRAP_ITERATIONS = 10_000
BOOTSTRAP_SEED = 0
_PUNCT = frozenset(string.punctuation)
_DROPPED = re.compile(r"\b(a|an|the|and)\b")
_BLEU_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[^\W_]+(?:['’-][^\W_]+)*|[^\w\s]")
_NAME_TO_CATEGORY = {name: str(c) for c, name in CATEGORY_NAMES.items()}


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.porter import PorterStemmer  # nltk takes ~2 s to import: only when scoring

    return PorterStemmer()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer().stem(word))


def normalize_answer(text: Any) -> str:
    """LoCoMo's normalisation: no commas, lowercase, no punctuation, no a/an/the/and, single spaces."""
    s = str(text).replace(",", "").lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    return " ".join(_DROPPED.sub(" ", s).split())


def f1_tokens(text: Any) -> list[str]:
    """The Porter-stemmed tokens LoCoMo's F1 counts."""
    return [_stem(w) for w in re.findall(r"\S+", normalize_answer(text))]


def token_f1(prediction: Any, gold: Any) -> float:
    """LoCoMo's `f1_score`: F1 over stemmed token multisets; 0 when nothing is shared."""
    pred, ref = f1_tokens(prediction), f1_tokens(gold)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: Any, gold: Any) -> float:
    """LoCoMo's category-1 `f1`: mean over the gold's comma parts of the best F1 against any reply part."""
    preds = [p.strip() for p in str(prediction).split(",")]
    golds = [g.strip() for g in str(gold).split(",")]
    return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)


def scored_gold(gold: Any, category: str) -> str:
    """The part of the gold answer LoCoMo's F1 compares with: the first ";" part for category 3."""
    text = str(gold)
    return text.split(";")[0].strip() if category == "3" else text


def locomo_f1(prediction: Any, gold: Any, category: str) -> float:
    """Token F1 with LoCoMo's per-category rule (category 1: multi-answer; 3: first ';' part)."""
    if category == "1":
        return multi_answer_f1(prediction, gold)
    return token_f1(prediction, scored_gold(gold, category))


def bleu_tokens(text: Any) -> list[str]:
    """Lowercased words, numbers and punctuation marks (word_tokenize's split, by regex)."""
    return _BLEU_TOKEN.findall(str(text).lower())


def bleu1(prediction: Any, gold: Any) -> float:
    """mem0's BLEU-1: unigram precision times the brevity penalty, smoothing method1; 0 when either is empty."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    hyp, ref = bleu_tokens(prediction), bleu_tokens(gold)
    if not hyp or not ref:
        return 0.0
    return float(sentence_bleu([ref], hyp, weights=(1, 0, 0, 0), smoothing_function=SmoothingFunction().method1))


def category_of(record: ResultLine) -> str:
    """A results line's LoCoMo category number as a string ("1".."5"), from `category` or the type name."""
    value = record.get("category")
    if value not in (None, ""):
        return str(value)
    return _NAME_TO_CATEGORY.get(str(record.get("question_type")), "?")


def category_name(category: str) -> str:
    """The name this harness gives a category number ("1" -> "multi-hop"); "unknown" for anything else."""
    return CATEGORY_NAMES.get(int(category), "unknown") if category.isdigit() else "unknown"


def answer_scores(hypothesis: Any, gold: Any, category: str) -> LexicalScores:
    """The `locomo` key of a results line: category, its name, f1 and bleu1 (null for category 5)."""
    name = category_name(category)
    if category == str(ADVERSARIAL):
        return {"category": category, "category_name": name, "f1": None, "bleu1": None}
    reply = "" if hypothesis is None else str(hypothesis)
    out: LexicalScores = {"category": category, "category_name": name,
                          "f1": round(locomo_f1(reply, gold, category), 4), "bleu1": round(bleu1(reply, gold), 4)}
    if scored_gold(gold, category) != str(gold):
        out["f1_gold"] = scored_gold(gold, category)
    return out


def mean_ci(values: Iterable[float]) -> MeanCi:
    """n, mean and a seeded 95% percentile bootstrap interval of the mean (null when n == 0)."""
    vals = [float(v) for v in values]
    if not vals:
        return {"n": 0, "mean": None, "ci95": None}
    lo, hi = bootstrap_mean_ci(vals, iterations=BOOTSTRAP_ITERATIONS, seed=BOOTSTRAP_SEED)
    return {"n": len(vals), "mean": sum(vals) / len(vals), "ci95": [lo, hi]}


def _metric(rows: list[ResultLine], key: str) -> MeanCi:
    return mean_ci(v for r in rows if isinstance(v := dict(r.get("locomo") or {}).get(key), (int, float)))


def _block(rows: list[ResultLine], *, lexical: bool = True, name: str | None = None) -> CategoryStats:
    out: CategoryStats = {"name": name} if name is not None else {}
    out |= {"questions": len(rows), "judge": cell(r.get("label") for r in rows)}
    if lexical:
        out |= {"f1": _metric(rows, "f1"), "bleu1": _metric(rows, "bleu1")}
    return out


def locomo_summary(results: Sequence[ResultLine]) -> SummaryBlock:
    """The `locomo` block of summary.json (keys documented in summary.py) from results lines alone."""
    rows = [r for r in results if r.get("kind") == KIND and not not_graded(r)]
    groups: dict[str, list[ResultLine]] = {}
    for r in rows:
        groups.setdefault(category_of(r), []).append(r)
    adversarial = str(ADVERSARIAL)
    by_category: dict[str, CategoryStats] = {}
    for category in sorted(groups, key=lambda c: (not c.isdigit(), int(c) if c.isdigit() else 0, c)):
        by_category[category] = _block(groups[category], lexical=category != adversarial,
                                       name=category_name(category))
    scored = [r for c in SCORED for r in groups.get(c, [])]
    overall: CategoryStats = {"categories": list(SCORED)}
    overall |= _block(scored)
    adversarial_row: CategoryStats = {"category": adversarial, "name": CATEGORY_NAMES[ADVERSARIAL]}
    adversarial_row |= _block(groups.get(adversarial, []), lexical=False)
    return {
        "categories": {str(c): name for c, name in sorted(CATEGORY_NAMES.items())},
        "by_category": by_category,
        "overall": overall,
        "adversarial": adversarial_row,
        "evidence": block_of_results([r for r in results if r.get("kind") == KIND]),
        "intervals": {"judge": "95% Wilson score interval",
                      "f1_bleu1": f"95% percentile bootstrap of the mean ({BOOTSTRAP_ITERATIONS:,} resamples, "
                                  f"seed {BOOTSTRAP_SEED})"},
        "notes": [
            "categories 1-4 (multi-hop, temporal, open-domain, single-hop; the block's `overall`) are what LoCoMo "
            "papers publish; category 5 (adversarial) is reported apart, as abstention accuracy: correct when the "
            "reply says it was not mentioned",
            "F1 = LoCoMo's token F1 (lowercase, no punctuation or a/an/the/and, Porter stems; category 1 "
            "multi-answer, category 3 first ';' part); BLEU-1 = mem0's (nltk sentence_bleu, weights (1,0,0,0), "
            "smoothing method1, regex tokens); neither is computed for category 5",
            "judge accuracy counts judged answers only (unjudged ones are excluded and counted); F1 and BLEU-1 "
            "count every answered question, judged or not",
        ],
    }
