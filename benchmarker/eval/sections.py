"""Suite-specific summaries (levels, long-horizon, fact extraction) computed from results lines.

`suite_summaries` adds keys to summary.json; `extra_sections` turns them into report sections.
Both read only the results lines, like every other metric.
"""

from __future__ import annotations

from collections import defaultdict
from statistics import mean
from typing import Any


def suite_summaries(results: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    inhouse = [r for r in results if r.get("kind") in ("level", "long_horizon")]
    facts = [r for r in results if r.get("kind") == "fact_extraction"]
    if any(r.get("kind") == "level" for r in inhouse):
        out["levels"] = _levels(inhouse)
    if any(r.get("kind") == "long_horizon" for r in inhouse):
        out["long_horizon"] = _categories([r for r in inhouse if r.get("kind") == "long_horizon"])
    if inhouse and len({r.get("seed") for r in inhouse if r.get("seed") is not None}) > 1:
        out["multi_seed"] = _multi_seed(inhouse)
    if facts:
        out["fact_extraction"] = _facts(facts)
    return out


def _scored(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if isinstance(r.get("score"), (int, float))]


def _table(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    groups: dict[str, list[float]] = defaultdict(list)
    for r in _scored(rows):
        groups[str(r.get(key) or "?")].append(float(r["score"]))
    return {name: {"n": len(v), "mean_score": round(mean(v), 4)} for name, v in sorted(groups.items())}


def _levels(rows: list[dict[str, Any]]) -> dict[str, Any]:
    levels = [r for r in rows if r.get("kind") == "level"]
    by_level = _table(levels, "level")
    overall = [float(r["score"]) for r in _scored(levels)]
    headline = f"mean score {mean(overall):.3f} over {len(overall)} questions" if overall else "no scores"
    covers = sorted({c for r in levels for c in ((r.get("rubric") or {}).get("overall_covers") or [])})
    return {"by_level": by_level, "by_category": _table(levels, "category"), "headline": headline,
            "score_covers": covers,
            "note": "rubric scores in 0..1; LLM dimensions are graded only when a judge model is configured"}


def _categories(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [float(r["score"]) for r in _scored(rows)]
    return {"by_category": _table(rows, "category"),
            "headline": f"mean score {mean(scored):.3f} over {len(scored)} questions" if scored else "no scores"}


def _multi_seed(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from benchmarker.eval.multiseed import summarize_seeds

    scores = [{"seed": r.get("seed"), "question_key": r.get("question_key") or r.get("question_id"),
               "category": r.get("category"), "level": r.get("level"), "score": float(r["score"])}
              for r in _scored(rows) if r.get("seed") is not None]
    return summarize_seeds(scores)


def _facts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    from benchmarker.eval.facts import CaseScore, summarize_fact_scores

    scores = [CaseScore.from_dict(r["fact_score"]) for r in rows if r.get("fact_score")]
    summary = summarize_fact_scores(scores)
    macro = summary.get("macro") or {}
    passed = sum(1 for t in summary.get("targets", []) if t.get("pass"))
    summary["headline"] = (f"macro P {macro.get('precision') or 0:.2f} R {macro.get('recall') or 0:.2f} "
                           f"F1 {macro.get('f1') or 0:.2f}; {passed}/{len(summary.get('targets', []))} targets met")
    return summary


def extra_sections(summary: dict[str, Any]) -> list[tuple[str, str]]:
    sections: list[tuple[str, str]] = []
    if "levels" in summary:
        sections.append(("Levels L1-L16", _score_table(summary["levels"]["by_level"], "level")
                         + "\n" + summary["levels"]["note"] + "\n\n" + _score_table(summary["levels"]["by_category"], "category")))
    if "long_horizon" in summary:
        sections.append(("Long-horizon dialogue", _score_table(summary["long_horizon"]["by_category"], "category")))
    if "multi_seed" in summary:
        sections.append(("Multi-seed statistics", _multi_seed_md(summary["multi_seed"])))
    if "fact_extraction" in summary:
        from benchmarker.eval.facts import fact_report_section

        sections.append(("Fact extraction", fact_report_section(summary["fact_extraction"])))
    if "self_improve" in summary:
        sections.append(("Self-improve loop", summary["self_improve"].get("markdown", "")))
    return sections


def _score_table(table: dict[str, Any], name: str) -> str:
    lines = [f"| {name} | n | mean score |", "|---|---|---|"]
    lines += [f"| {k} | {v['n']} | {v['mean_score']:.3f} |" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def _multi_seed_md(ms: dict[str, Any]) -> str:
    lines = ["| category | seeds | mean | std | 95% interval |", "|---|---|---|---|---|"]
    for name, row in sorted((ms.get("by_category") or {}).items()):
        ci = row.get("ci95") or [None, None]
        interval = f"{ci[0]:.3f}-{ci[1]:.3f}" if ci[0] is not None else "n/a"
        std = row.get("std")
        lines.append(f"| {name} | {row.get('n_seeds', row.get('n', ''))} | {row.get('mean', 0):.3f} | "
                     f"{'n/a' if std is None else f'{std:.3f}'} | {interval} |")
    noisy = ms.get("noisy_questions") or []
    lines.append(f"\n{len(noisy)} question(s) vary by more than 10 points across seeds"
                 + (": " + ", ".join(str(q.get("question_key")) for q in noisy[:20]) if noisy else "."))
    return "\n".join(lines) + "\n"
