"""BEAM's numbers from the results lines: mean score per ability, the mean over abilities (BEAM's headline),
bootstrap intervals, and the report / compare tables.

The interval of the mean over abilities resamples questions within each ability (a stratified bootstrap,
seed 0, 2,000 draws), so an ability with two questions does not vanish from a draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.section_spec import Cell, Lines, MeanScoreChart, Part, Section, Table
from benchmarker.scoring.stats import bootstrap_mean_ci
from benchmarker.suites.beam.blocks import AbilityStat, EventOrdering, OrderingMetrics, Overall, SummaryBlock, answer_block
from benchmarker.suites.beam.data import ABILITIES

DRAWS = 2_000


def _scores(results: Sequence[ResultLine]) -> dict[str, list[float]]:
    by: dict[str, list[float]] = {}
    for r in results:
        block = answer_block(r)
        ability = str(block.get("ability") or r.get("question_type") or "")
        score = block.get("score")
        if ability and score is not None:
            by.setdefault(ability, []).append(float(score))
    return by


def _ci(values: list[float]) -> list[float] | None:
    if len(values) < 2:
        return None
    lo, hi = bootstrap_mean_ci(values, iterations=DRAWS, seed=0)
    return [round(float(lo), 4), round(float(hi), 4)]


def macro_interval(by: dict[str, list[float]]) -> list[float] | None:
    """95% interval of the mean over abilities, resampling within each ability."""
    groups = [np.asarray(v, dtype=float) for v in by.values() if v]
    if not groups or sum(len(g) for g in groups) < 2:
        return None
    rng = np.random.default_rng(0)
    draws = np.mean([g[rng.integers(0, len(g), size=(DRAWS, len(g)))].mean(axis=1) for g in groups], axis=0)
    return [round(float(np.percentile(draws, 2.5)), 4), round(float(np.percentile(draws, 97.5)), 4)]


def beam_summary(results: Sequence[ResultLine]) -> SummaryBlock:
    """The summary.json `beam` block."""
    lines = [r for r in results if r.get("kind") == "beam"]
    by = _scores(lines)
    abilities: dict[str, AbilityStat] = {}
    order = [a for a in ABILITIES if a in by or any(r.get("question_type") == a for r in lines)]
    order += sorted({str(r.get("question_type")) for r in lines} - set(order))
    for ability in order:
        mine = [r for r in lines if r.get("question_type") == ability]
        values = by.get(ability, [])
        halves = [float(half) for r in mine if (half := answer_block(r).get("score_half")) is not None]
        abilities[ability] = {"questions": len(mine), "scored": len(values),
                              "mean": round(float(np.mean(values)), 4) if values else None, "ci95": _ci(values),
                              "mean_half": round(float(np.mean(halves)), 4) if halves else None}
    means = [mean for a in abilities.values() if (mean := a.get("mean")) is not None]
    ordering: list[OrderingMetrics] = [o for r in lines if r.get("question_type") == "event_ordering"
                                       if (o := answer_block(r).get("ordering") or {})]
    return {
        "by_ability": abilities,
        "overall": {"mean_over_abilities": round(float(np.mean(means)), 4) if means else None,
                    "ci95": macro_interval(by), "abilities": len(means),
                    "questions": len(lines), "scored": sum(len(v) for v in by.values()),
                    "mean_over_questions": round(float(np.mean([x for v in by.values() for x in v])), 4)
                    if by else None},
        "event_ordering": {"questions": len(ordering),
                           "tau_norm": round(float(np.mean([o["tau_norm"] for o in ordering])), 4) if ordering else None,
                           "f1": round(float(np.mean([o["f1"] for o in ordering])), 4) if ordering else None},
        "scoring": "per question the mean of its rubric items' 0 / 0.5 / 1 scores (event ordering: normalised "
                   "Kendall tau-b); per ability the mean over its questions; headline the mean over abilities",
    }


def _cell(stat: AbilityStat) -> str:
    if stat.get("mean") is None:
        return "n/a"
    ci = stat.get("ci95")
    return f"{stat['mean']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def _bar(value: float | None, width: int = 20) -> str:
    return "" if value is None else "█" * round(max(0.0, min(1.0, value)) * width)


def beam_section(block: SummaryBlock) -> Section:
    """The report's BEAM table: per ability its mean score (95% bootstrap interval) and a bar."""
    overall: Overall = block.get("overall") or {}
    rows: list[tuple[Cell, ...]] = []
    for ability, stat in (block.get("by_ability") or {}).items():
        half = stat.get("mean_half")
        rows.append((ability, str(stat["questions"]), str(stat["scored"]), _cell(stat),
                     "n/a" if half is None else f"{half:.3f}", _bar(stat.get("mean"))))
    mean = overall.get("mean_over_abilities")
    ci = overall.get("ci95")
    rows.append(("**mean over abilities**", str(overall.get("questions", 0)), str(overall.get("scored", 0)),
                 "n/a" if mean is None else f"**{mean:.3f}**" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""),
                 None, _bar(mean)))
    parts: list[Part] = [
        Lines(("Per ability, the mean question score (0-1; 95% bootstrap interval). A question's score is the mean of "
               "its rubric items' 0 / 0.5 / 1; event ordering's is BEAM's normalised Kendall tau-b.",)),
        Table(("ability", "questions", "scored", "mean score [95% CI]", "with 0.5 kept", None), tuple(rows))]
    eo: EventOrdering = block.get("event_ordering") or {}
    if eo.get("questions"):
        parts.append(Lines((f"Event ordering ({eo['questions']} questions): mean normalised tau-b {eo['tau_norm']:.3f}, "
                            f"mean F1 of the aligned events {eo['f1']:.3f}.",)))
    parts.append(Lines(("\"With 0.5 kept\" differs from the score only under the official judge: the repository's "
                        "evaluators add int(score), so a half-met rubric item counts 0 there (event ordering excepted).",)))
    return Section("BEAM", tuple(parts))


def beam_chart(block: SummaryBlock) -> MeanScoreChart:
    """Per-ability mean scores as bars (95% bootstrap intervals), the mean over abilities last."""
    rows = [(name, float(mean), s.get("ci95"), int(s["scored"]))
            for name, s in (block.get("by_ability") or {}).items() if (mean := s.get("mean")) is not None]
    overall: Overall = block.get("overall") or {}
    headline = overall.get("mean_over_abilities")
    if rows and headline is not None:
        rows.append(("mean over abilities", float(headline), overall.get("ci95"), int(overall.get("scored") or 0)))
    return MeanScoreChart(tuple(rows), "beam_abilities.png", "mean score (0-1) with 95% bootstrap interval",
                          "BEAM mean score per ability")


def _block(run: Mapping[str, SummaryBlock | str], key: str) -> SummaryBlock:
    block = run.get(key)
    return block if isinstance(block, dict) else {}


def _headline(overall: Overall) -> AbilityStat:
    return {"mean": overall.get("mean_over_abilities"), "ci95": overall.get("ci95")}


def compare_rows(runs: Sequence[Mapping[str, SummaryBlock | str]], key: str) -> Section:
    """Each run's per-ability means and mean over abilities, side by side (a run: its `name` and its blocks)."""
    abilities = list(dict.fromkeys(a for r in runs for a in (_block(r, key).get("by_ability") or {})))
    rows = [(ability, *(_cell((_block(r, key).get("by_ability") or {}).get(ability) or {}) for r in runs))
            for ability in abilities]
    rows.append(("**mean over abilities**", *(_cell(_headline(_block(r, key).get("overall") or {})) for r in runs)))
    return Section("BEAM", (Table(("ability", *(str(r.get("name", "")) for r in runs)), tuple(rows)),
                            Lines(("BEAM: mean question score per ability (95% bootstrap interval, seed 0).",))))
