"""Fact-extraction scoring: deterministic matcher, per-case metrics, summary and report table.

Matching. An expected fact matches an extracted string when its similarity is at least
`[eval.thresholds] fact_match` (0.6). Text goes through `normalize` ('$3,000' = '3k' = '3000';
numbers and dates are whole tokens, so '2' never matches '12'). Similarity is 0 when a number
or date the expected fact needs is missing, or when the expected fact is negated ('does not
want', 'avoid'...) and the extracted one is not. With key terms, every term must occur as a
contiguous token run, and similarity is w + (1 - w) * dice(content words), w =
`fact_term_weight` (0.7), so any paraphrase that keeps the terms passes. Without terms,
similarity is the mean of content-word recall and dice. Pairs are assigned one-to-one by the
Hungarian method on similarity. An expected fact left over that an assigned string also states
counts as found too (a summary sentence often holds several atomic facts; `compound=False`
turns this off). An unassigned extracted string that still matches an expected fact restates a
fact already counted (an entry summary and its context line): it is listed as a duplicate, not
as a hallucination.

Metrics follow the memory evaluation strategy: precision and recall are 1.0 when their
denominator is 0, F1 is 0.0 when precision + recall is 0. A conflict case (one with superseded
facts) is resolved when its new values are present and no fact still states an old value
without a history marker ('was', 'previously', 'changed from', 'no longer', 'instead of'...).
A chit-chat case is minimal when nothing new was written. The targets compare the macro
(mean per case) precision / recall / F1, as the strategy scores each case.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import cast

import numpy as np

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.reporting.section_spec import Lines, Part, Section, Table
from benchmarker.scoring import normalize
from benchmarker.scoring.normalize import STOPWORDS, find_phrase, is_value, same, token_texts
from benchmarker.suites.fact_extraction.data import SCENARIOS, ExpectedFact, FactCase
from benchmarker.suites.fact_extraction.shapes import (
    CaseScoreDict,
    FactSummary,
    MacroScores,
    MicroScores,
    ScoreDetails,
    TargetRow,
)

# A fact stated as a refusal: grammatical negations plus the verbs of declining.
NEGATIONS = normalize.StemmedWords([*normalize.NEGATIONS, *(  # tokens are stemmed: "refused" -> "refus"
    "avoid dislike hate reject rejected refuse refused decline declined exclude excluded excluding except "
    "instead against none nothing skip veto vetoed ban banned forbid forbidden".split())])
# An old value may still be mentioned, but only as history ("was $3,000", "changed from ...").
STALE_MARKERS = re.compile(
    r"\b(previously|formerly|originally|earlier|was|were|used to|no longer|not anymore|anymore|instead of"
    r"|rather than|changed|switched|moved|updated|replaced|replacing|superseded|revised|raised|increased"
    r"|decreased|lowered|reduced|bumped|slipped|postponed|cancel+ed|dropped|prior|from|not)\b",
    re.IGNORECASE,
)
TARGETS = (  # metric, op, target: the strategy document's table
    ("precision", ">", 0.95),
    ("recall", ">", 0.85),
    ("f1", ">", 0.90),
    ("conflict_resolution_rate", ">=", 1.0),
    ("minimalism_rate", ">=", 1.0),
)


def _as_fact(value: ExpectedFact | str) -> ExpectedFact:
    return value if isinstance(value, ExpectedFact) else ExpectedFact(value)


def content_words(text: str) -> list[str]:
    """Normalised tokens without stop words (so "User's budget is $3,000" ~ "Budget: 3k")."""
    return [t for t in token_texts(text) if t not in STOPWORDS]


def similarity(expected: ExpectedFact | str, extracted: str, *, thresholds: ThresholdsConfig | None = None) -> float:
    """How well `extracted` states `expected`, in [0, 1] (see the module docstring)."""
    exp = _as_fact(expected)
    ext_tokens = token_texts(extracted)
    if not ext_tokens:
        return 0.0
    if NEGATIONS.intersection(token_texts(exp.fact)) and not NEGATIONS.intersection(ext_tokens):
        return 0.0
    terms = [run for run in (token_texts(t) for t in exp.terms) if run]
    needed = [t for t in ([x for run in terms for x in run] if terms else token_texts(exp.fact)) if is_value(t)]
    if not all(any(same(n, t) for t in ext_tokens) for n in needed):
        return 0.0
    a, b = set(content_words(exp.fact)), set(content_words(extracted))
    common = len(a & b)
    dice = 2 * common / (len(a) + len(b)) if a or b else 0.0
    if terms:
        weight = (thresholds or ThresholdsConfig()).fact_term_weight
        return weight + (1 - weight) * dice if all(find_phrase(ext_tokens, r) for r in terms) else 0.0
    return 0.5 * (common / len(a) if a else 0.0) + 0.5 * dice


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall, F1 with the strategy document's zero-denominator rules."""
    precision = tp / (tp + fp) if (tp + fp) > 0 else 1.0
    recall = tp / (tp + fn) if (tp + fn) > 0 else 1.0
    f1 = 2 * precision * recall / (precision + recall) if (precision + recall) > 0 else 0.0
    return precision, recall, f1


@dataclass(frozen=True)
class FactMatch:
    """One-to-one assignment of expected facts to extracted strings."""

    true_positives: tuple[tuple[str, str, float], ...]  # (expected fact, extracted, similarity)
    false_positives: tuple[str, ...]  # extracted, matching nothing expected: hallucinated
    false_negatives: tuple[str, ...]  # expected, matched by nothing: missed
    duplicates: tuple[str, ...] = ()  # extracted restatements of an already matched fact
    threshold: float = ThresholdsConfig().fact_match  # the fact_match threshold the match used

    tp = property(lambda self: len(self.true_positives))
    fp = property(lambda self: len(self.false_positives))
    fn = property(lambda self: len(self.false_negatives))
    precision = property(lambda self: prf(self.tp, self.fp, self.fn)[0])
    recall = property(lambda self: prf(self.tp, self.fp, self.fn)[1])
    f1 = property(lambda self: prf(self.tp, self.fp, self.fn)[2])


def match_facts(
    expected: list[ExpectedFact] | list[str], extracted: list[str], *, compound: bool = True,
    thresholds: ThresholdsConfig | None = None,
) -> FactMatch:
    """Assign expected facts to extracted strings one-to-one; keep TP / FP / FN lists.

    With `compound` (default), an expected fact left over by the assignment that an already
    assigned string also states counts as found: one entry summary often states several atomic
    facts. `compound=False` is the strict one-to-one count.
    """
    from scipy.optimize import linear_sum_assignment  # here: scipy.optimize would cost every CLI start ~0.3 s

    thresholds = thresholds or ThresholdsConfig()
    threshold = thresholds.fact_match
    facts = [_as_fact(e) for e in expected]
    sim = np.array([[similarity(f, x, thresholds=thresholds) for x in extracted] for f in facts])
    sim = sim.reshape(len(facts), len(extracted))
    gain = np.where(sim >= threshold, sim, 0.0)
    rows, cols = linear_sum_assignment(gain, maximize=True) if gain.size else (np.empty(0, dtype=int), np.empty(0, dtype=int))
    pairs = [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if gain[r, c] > 0]
    used_x = {c for _, c in pairs}
    if compound:
        used_f = {r for r, _ in pairs}
        for r in range(len(facts)):
            hits = [c for c in used_x if r not in used_f and gain[r, c] > 0]
            if hits:
                pairs.append((r, max(hits, key=lambda c: gain[r, c])))
    used_f = {r for r, _ in pairs}
    loose = [j for j in range(len(extracted)) if j not in used_x]
    return FactMatch(
        true_positives=tuple((facts[r].fact, extracted[c], round(float(sim[r, c]), 4)) for r, c in sorted(pairs)),
        false_positives=tuple(extracted[j] for j in loose if not (gain[:, j] > 0).any()),
        false_negatives=tuple(f.fact for i, f in enumerate(facts) if i not in used_f),
        duplicates=tuple(extracted[j] for j in loose if (gain[:, j] > 0).any()),
        threshold=threshold,
    )


def stale_facts(
    superseded: list[ExpectedFact] | tuple[ExpectedFact, ...], facts: list[str], *,
    thresholds: ThresholdsConfig | None = None,
) -> list[str]:
    """Facts that still present a superseded value as current (no 'was', 'changed from'... marker)."""
    thresholds = thresholds or ThresholdsConfig()
    return [
        f for f in facts
        if not STALE_MARKERS.search(f)
        and any(similarity(s, f, thresholds=thresholds) >= thresholds.fact_match for s in superseded)
    ]


def _replacements(fc: FactCase) -> list[ExpectedFact]:
    """The expected facts that carry the new values: per superseded fact, the closest expected one."""
    out: list[ExpectedFact] = []
    for old in fc.superseded_facts:
        old_words = set(content_words(old.fact))
        overlap = [len(old_words & set(content_words(e.fact))) for e in fc.expected_facts]
        out += [e for e, n in zip(fc.expected_facts, overlap, strict=True) if overlap and n == max(overlap) and e not in out]
    return out


@dataclass(frozen=True)
class CaseScore:
    """One case's score; a line of the results file (`to_dict` / `from_dict`)."""

    case_id: str
    scenario: str
    method: str = "deterministic"  # or "llm"
    judged: bool = True  # False: the judge gave no usable reply; left out of P/R/F1
    tp: int = 0
    fp: int = 0
    fn: int = 0
    extracted_count: int = 0
    conflict_resolved: bool | None = None  # cases with superseded facts only
    minimal: bool | None = None  # chit-chat cases only
    details: ScoreDetails = field(default_factory=lambda: ScoreDetails())

    def _prf(self, i: int) -> float | None:
        return prf(self.tp, self.fp, self.fn)[i] if self.judged else None

    precision = property(lambda self: self._prf(0))
    recall = property(lambda self: self._prf(1))
    f1 = property(lambda self: self._prf(2))

    def to_dict(self) -> CaseScoreDict:
        return cast(CaseScoreDict, {**asdict(self), "precision": self.precision, "recall": self.recall, "f1": self.f1})

    @classmethod
    def from_dict(cls, d: CaseScoreDict) -> CaseScore:
        """A results line's `fact_score` read back (its keys that are no field, the P / R / F1, are derived)."""
        plain = cls(d["case_id"], d["scenario"])
        return cls(d["case_id"], d["scenario"], d.get("method", plain.method), d.get("judged", plain.judged),
                   d.get("tp", 0), d.get("fp", 0), d.get("fn", 0), d.get("extracted_count", 0),
                   d.get("conflict_resolved"), d.get("minimal"), d.get("details", ScoreDetails()))


def score_case(fc: FactCase, extracted: list[str], *, context_facts: list[str] | None = None,
               thresholds: ThresholdsConfig | None = None) -> CaseScore:
    """Deterministic score of one case.

    `extracted` are the NEW facts written (see `extracted_facts_from_memory`); `context_facts`
    are all facts the latest context presents (`context_facts(latest_context)`): the stale-value
    check needs them because an old value left untouched in the context is not "new".
    """
    m = match_facts(list(fc.expected_facts), extracted, thresholds=thresholds)
    details: ScoreDetails = {
        "true_positives": [list(t) for t in m.true_positives],
        "false_positives": list(m.false_positives),
        "false_negatives": list(m.false_negatives),
        "duplicates": list(m.duplicates),
    }
    conflict = None
    if fc.superseded_facts:
        current = list(dict.fromkeys([*extracted, *(context_facts or [])]))
        present = match_facts(_replacements(fc), current, thresholds=thresholds)
        stale = stale_facts(fc.superseded_facts, current, thresholds=thresholds)
        details |= {"stale_facts": stale, "missing_new_values": list(present.false_negatives)}
        conflict = not stale and not present.false_negatives
    minimal = (len(extracted) == 0) if fc.scenario == "chit_chat" else None
    return CaseScore(
        case_id=fc.id, scenario=fc.scenario, tp=m.tp, fp=m.fp, fn=m.fn, extracted_count=len(extracted),
        conflict_resolved=conflict, minimal=minimal, details=details,
    )


def _micro(cases: list[CaseScore]) -> MicroScores:
    tp, fp, fn = (sum(getattr(c, k) for c in cases) for k in ("tp", "fp", "fn"))
    p, r, f = prf(tp, fp, fn) if cases else (None, None, None)
    return {"cases": len(cases), "tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": r, "f1": f}


def _rate(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def summarize_fact_scores(per_case: list[CaseScore]) -> FactSummary:
    """micro / macro P/R/F1 over judged cases, per scenario, conflict and minimalism rates, targets."""
    judged = [c for c in per_case if c.judged]
    precision, recall, f1 = (fmean(getattr(c, k) for c in judged) if judged else None
                             for k in ("precision", "recall", "f1"))
    macro: MacroScores = {"cases": len(judged), "precision": precision, "recall": recall, "f1": f1}
    order = {s: i for i, s in enumerate(SCENARIOS)}
    by_scenario: dict[str, MicroScores] = {}
    for scenario in sorted({c.scenario for c in per_case}, key=lambda s: (order.get(s, len(order)), s)):
        group = [c for c in per_case if c.scenario == scenario]
        judged_group = [c for c in group if c.judged]
        by_scenario[scenario] = _micro(judged_group) | {"cases": len(group), "judged": len(judged_group)}
    conflict = [c.conflict_resolved for c in per_case if c.conflict_resolved is not None]
    minimal = [c.minimal for c in per_case if c.minimal is not None]
    values = {"precision": precision, "recall": recall, "f1": f1,
              "conflict_resolution_rate": _rate(conflict), "minimalism_rate": _rate(minimal)}
    targets: list[TargetRow] = []
    for metric, op, target in TARGETS:
        value = values[metric]
        ok = None if value is None else (value > target if op == ">" else value >= target)
        row: TargetRow = {"metric": metric, "target": target, "op": op, "value": value, "pass": ok}
        if metric in macro:
            row["basis"] = "macro"
        targets.append(row)
    return {
        "method": per_case[0].method if len({c.method for c in per_case}) == 1 else "mixed",
        "cases": len(per_case),
        "micro": _micro(judged),
        "macro": macro,
        "by_scenario": by_scenario,
        "conflict_resolution_rate": values["conflict_resolution_rate"],
        "conflict_cases": len(conflict),
        "minimalism_rate": values["minimalism_rate"],
        "minimalism_cases": len(minimal),
        "targets": targets,
        "unjudged": [c.case_id for c in per_case if not c.judged],
    }


def _fmt(value: float | None, percent: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0%}" if percent else f"{value:.3f}"


def fact_report_section(summary: FactSummary) -> Section:
    """The report's section: targets (pass / fail), micro and macro, per-scenario table."""
    method = summary.get("method", "deterministic")
    targets = []
    for t in summary["targets"]:
        percent = t["metric"].endswith("_rate")
        name = t["metric"].replace("_", " ") + (f" ({t['basis']})" if t.get("basis") else "")
        result = {True: "pass", False: "**FAIL**", None: "n/a"}[t["pass"]]
        targets.append((name, f"{t['op']} {_fmt(t['target'], percent)}", _fmt(t["value"], percent), result))
    mi, ma = summary["micro"], summary["macro"]
    scenarios = tuple((name, str(s["cases"]), str(s["tp"]), str(s["fp"]), str(s["fn"]), _fmt(s["precision"]),
                       _fmt(s["recall"]), _fmt(s["f1"])) for name, s in summary["by_scenario"].items())
    parts: list[Part] = [
        Lines((f"## Fact extraction ({method} scoring, {summary['cases']} cases)",)),
        Table(("metric", "target", "measured", "result"), tuple(targets)),
        Lines((f"Micro over {mi['tp'] + mi['fn']} expected facts (TP {mi['tp']}, FP {mi['fp']}, FN {mi['fn']}): "
               f"precision {_fmt(mi['precision'])}, recall {_fmt(mi['recall'])}, F1 {_fmt(mi['f1'])}. "
               f"Macro over {ma['cases']} cases: precision {_fmt(ma['precision'])}, recall {_fmt(ma['recall'])}, "
               f"F1 {_fmt(ma['f1'])}.",)),
        Table(("scenario", "cases", "TP", "FP", "FN", "precision", "recall", "F1"), scenarios)]
    if summary["unjudged"]:
        parts.append(Lines((f"Unjudged (no usable judge reply; left out of the scores): {', '.join(summary['unjudged'])}.",)))
    return Section("Fact extraction", tuple(parts))
