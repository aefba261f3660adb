"""Suite-specific summaries (levels, long-horizon, fact extraction) computed from results lines.

`suite_summaries` adds keys to summary.json; `extra_sections` turns them into report sections;
`locomo_section` renders summary.json's `locomo` block (built by summary.py) for the report.
Both read only the results lines, like every other metric (and the self-improve loop's
`self_improve.jsonl` when the run has one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from benchmarker.eval.fmt import num

SELF_IMPROVE_LOG = "self_improve.jsonl"


def suite_summaries(results: list[dict[str, Any]], run_dir: Path | None = None, *,
                    level_scores: Sequence[dict[str, Any]] = (), thresholds: dict[str, Any] | None = None) -> dict[str, Any]:
    """Summary keys for the in-house suites; `level_scores` are levels.jsonl lines (one per level case);
    `thresholds` the run's `[eval.thresholds]` (the manifest's; defaults when absent)."""
    out: dict[str, Any] = {}
    if run_dir is not None and (run_dir / SELF_IMPROVE_LOG).exists():
        out["self_improve"] = self_improve_summary(run_dir)
    inhouse = [r for r in results if r.get("kind") in ("level", "long_horizon")]
    facts = [r for r in results if r.get("kind") == "fact_extraction"]
    if any(r.get("kind") == "level" for r in inhouse):
        out["levels"] = _levels(inhouse, list(level_scores))
    if any(r.get("kind") == "long_horizon" for r in inhouse):
        out["long_horizon"] = _categories([r for r in inhouse if r.get("kind") == "long_horizon"])
    if inhouse and len({r.get("seed") for r in inhouse if r.get("seed") is not None}) > 1:
        out["multi_seed"] = _multi_seed(inhouse, thresholds)
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


def _levels(rows: list[dict[str, Any]], level_scores: list[dict[str, Any]]) -> dict[str, Any]:
    levels = [r for r in rows if r.get("kind") == "level"]
    by_level = _table(levels, "level")
    for name, cells in _level_scores(level_scores).items():
        by_level.setdefault(name, {"n": 0, "mean_score": 0.0}).update(cells)
    scores = [v["level_score"] for v in by_level.values() if v.get("level_score") is not None]
    headline = (f"mean level score {mean(scores):.3f} over {len(scores)} levels" if scores else "no scores")
    covers = sorted({c for r in levels for c in ((r.get("rubric") or {}).get("overall_covers") or [])})
    return {"by_level": dict(sorted(by_level.items(), key=lambda kv: int(kv[0][1:]) if kv[0][1:].isdigit() else 99)),
            "by_category": _table(levels, "category"), "headline": headline, "score_covers": covers,
            "note": ("mean score = mean rubric score of the level's questions; level score = the level's own "
                     "scoring (L13 tool trace, L14 stale-value penalty, L15 harmonic mean of control accuracy "
                     "and abstention, L16 decision); LLM dimensions are graded only with a judge model")}


def _level_scores(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Mean of each level's own score over its seeds (one levels.jsonl line per level and seed)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        groups[str(line.get("level"))].append(line)
    return {name: {"level_score": round(mean(float(row["score"]) for row in ls), 4), "scoring": ls[0].get("scoring"),
                   "seeds": len(ls)} for name, ls in groups.items()}


def _categories(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [float(r["score"]) for r in _scored(rows)]
    return {"by_category": _table(rows, "category"),
            "headline": f"mean score {mean(scored):.3f} over {len(scored)} questions" if scored else "no scores"}


def _multi_seed(rows: list[dict[str, Any]], thresholds: dict[str, Any] | None) -> dict[str, Any]:
    from benchmarker.config_schema import ThresholdsConfig
    from benchmarker.eval.multiseed import summarize_seeds

    scores = [{"seed": r.get("seed"), "question_key": r.get("question_key") or r.get("question_id"),
               "category": r.get("category"), "level": r.get("level"), "score": float(r["score"])}
              for r in _scored(rows) if r.get("seed") is not None]
    return summarize_seeds(scores, thresholds=ThresholdsConfig.model_validate(thresholds) if thresholds else None)


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
                         + "\n" + summary["levels"]["note"] + "\n\n"
                         + _score_table(summary["levels"]["by_category"], "category")))
    if "long_horizon" in summary:
        sections.append(("Long-horizon dialogue", _score_table(summary["long_horizon"]["by_category"], "category")))
    if "multi_seed" in summary:
        sections.append(("Multi-seed statistics", _multi_seed_md(summary["multi_seed"])))
    if "fact_extraction" in summary:
        from benchmarker.eval.facts import fact_report_section

        sections.append(("Fact extraction", fact_report_section(summary["fact_extraction"])))
    if "self_improve" in summary:
        sections.append(("Self-improve loop", summary["self_improve"].get("markdown", "")))
    if "rounds" in summary:
        from benchmarker.eval.rounds import rounds_section

        sections.append(("Adversarial rounds", rounds_section(summary["rounds"])))
    if "graders" in summary:
        from benchmarker.eval.graders import graders_section

        sections.append(("Graders with perspectives", graders_section(summary["graders"])))
    if "analyst" in summary:
        from benchmarker.eval.analyst import analyst_section

        sections.append(("Where answers were lost", analyst_section(summary["analyst"])))
    tracing = (summary.get("run") or {}).get("tracing") or {}
    if tracing.get("langsmith"):
        sections.append(("Traces", f"Every model and tool call of this run is traced in the LangSmith project "
                                   f"[{tracing.get('project')}]({tracing.get('url')}) ({tracing.get('endpoint')}; "
                                   f"sample rate {tracing.get('sample_rate')}). Filter by metadata `run_id` = "
                                   f"`{summary.get('run_id')}`; ingestion turns carry the tag `memory_extraction`."))
    return sections


def _interval(stat: dict[str, Any] | None, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    if not stat or stat.get("ci95") is None:
        return "n/a"
    lo, hi = stat["ci95"]
    return f"{fmt.format(scale * stat['mean'])} [{fmt.format(scale * lo)}, {fmt.format(scale * hi)}]"


def locomo_section(block: dict[str, Any]) -> list[str]:
    """The LoCoMo table: judge accuracy (Wilson), F1 and BLEU-1 (bootstrap) per category and overall."""
    out = ["## LoCoMo", "", "Category numbers as in locomo10.json: "
           + ", ".join(f"{c} = {name}" for c, name in block.get("categories", {}).items()) + ".", "",
           "| category | questions | judge accuracy [95% CI] | judged | unjudged | F1 [95% CI] | BLEU-1 [95% CI] |",
           "|---|---|---|---|---|---|---|"]
    rows = [(f"{c} {row['name']}", row) for c, row in block.get("by_category", {}).items() if c != "5"]
    rows.append(("**overall (1-4)**", block.get("overall") or {}))
    adversarial = block.get("adversarial") or {}
    rows.append((f"5 {adversarial.get('name', 'adversarial')} (abstention)", adversarial))
    for name, row in rows:
        judge = row.get("judge") or {}
        accuracy = _interval({"mean": judge.get("accuracy"), "ci95": judge.get("ci95")}, 100, "{:.1f}")
        out.append(f"| {name} | {row.get('questions', 0)} | {accuracy} | {judge.get('n', 0)} | "
                   f"{judge.get('unjudged', 0)} | {_interval(row.get('f1'))} | {_interval(row.get('bleu1'))} |")
    intervals = block.get("intervals") or {}
    out += ["", f"Accuracy intervals: {intervals.get('judge', 'n/a')}; F1 and BLEU-1 intervals: "
            f"{intervals.get('f1_bleu1', 'n/a')}. F1 and BLEU-1 are not computed for category 5 (n/a)."]
    return out + [f"- {note}" for note in block.get("notes", [])] + [""]


def _score_table(table: dict[str, Any], name: str) -> str:
    with_level = any("level_score" in v for v in table.values())
    lines = [f"| {name} | n | mean score |" + (" level score | scoring |" if with_level else ""),
             "|---|---|---|" + ("---|---|" if with_level else "")]
    for k, v in table.items():
        row = f"| {k} | {v['n']} | {v['mean_score']:.3f} |"
        if with_level:
            ls = v.get("level_score")
            row += f" {'n/a' if ls is None else f'{ls:.3f}'} | {v.get('scoring') or ''} |"
        lines.append(row)
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


def self_improve_summary(run_dir: Path) -> dict[str, Any] | None:
    """The self-improve loop from `self_improve.jsonl` alone: counts, start vs best, and a table."""
    from benchmarker.log.jsonl import read_jsonl

    by_iteration = {line["iteration"]: line for line in read_jsonl(run_dir / SELF_IMPROVE_LOG)}
    lines = [by_iteration[i] for i in sorted(by_iteration)]
    if not lines:
        return None
    decisions = [line["decision"] for line in lines]
    start, best = lines[0]["start"], lines[-1]["best"]
    before, after = _score(start, "holdout"), _score(best, "holdout")
    gain = None if before is None or after is None else after - before
    summary = {"iterations": len(lines), "log": SELF_IMPROVE_LOG,
               **{d: decisions.count(d) for d in ("accepted", "reverted", "refused", "stopped")},
               "start": start, "best": best, "holdout_gain": None if gain is None else round(gain, 4)}
    summary["markdown"] = _self_improve_md(summary, lines)
    return summary


def _score(candidate: dict[str, Any] | None, split: str) -> float | None:
    return ((candidate or {}).get(split) or {}).get("score")


def _tunables(candidate: dict[str, Any] | None) -> str:
    items = ((candidate or {}).get("tunables") or {}).items()
    return ", ".join(f"{k}={'service' if v is None else v}" for k, v in items)


def _self_improve_md(summary: dict[str, Any], lines: list[dict[str, Any]]) -> str:
    start, best = summary["start"], summary["best"]
    n = (start.get("holdout") or {}).get("n")
    out = [f"Started from {_tunables(start)}: held-out score {num(_score(start, 'holdout'))} (n={n}), "
           f"training {num(_score(start, 'train'))}.",
           f"Best after {summary['iterations']} iteration(s): {_tunables(best)} in `{best.get('dir')}`: held-out "
           f"{num(_score(best, 'holdout'))}, training {num(_score(best, 'train'))}.",
           f"{summary['accepted']} accepted, {summary['reverted']} reverted, {summary['refused']} refused"
           + (", stopped early (nothing left to try)" if summary["stopped"] else "") + ". A change is kept only when "
           "its held-out gain beats the noise (exact McNemar p < 0.05 or a paired-bootstrap 95% interval above 0), "
           "exceeds min_gain, and no question type, category or level drops more than 5 points.", "",
           "| # | proposal | votes | training | held-out | paired test | decision |", "|---|---|---|---|---|---|---|"]
    for line in lines:
        base, cand, stats = line.get("base"), line.get("candidate"), line.get("stats") or {}
        votes = line.get("votes") or []
        vote = f"{sum(1 for v in votes if v.get('approve'))}/{len(votes)}" if votes else "-"
        test = "-"
        if stats.get("bootstrap"):
            p = (stats.get("mcnemar") or {}).get("p")
            ci = stats["bootstrap"]
            test = (f"p={p:.3g}, " if p is not None else "") + f"CI [{ci['lo']:+.2f}, {ci['hi']:+.2f}]"
        reason = str(line.get("reason") or "").replace("|", "/")[:160]
        out.append(f"| {line['iteration']} | {_proposal_md(line.get('proposal'))} | {vote} | "
                   f"{_arrow(base, cand, 'train')} | {_arrow(base, cand, 'holdout')} | {test} | "
                   f"**{line['decision']}** ({line.get('stage')}): {reason} |")
    for line in lines:
        diff = (line.get("proposal") or {}).get("diff")
        if diff:
            out += ["", f"Iteration {line['iteration']} prompt diff ({line['decision']}):", "```diff", diff.rstrip(), "```"]
    return "\n".join(out) + "\n"


def _arrow(base: dict[str, Any] | None, cand: dict[str, Any] | None, split: str) -> str:
    return f"{num(_score(base, split))} -> {num(_score(cand, split))}" if cand else "-"


def _proposal_md(proposal: dict[str, Any] | None) -> str:
    if not proposal:
        return "-"
    if proposal.get("kind") == "config":
        return ", ".join(f"{k}={v}" for k, v in (proposal.get("delta") or {}).items()) or "config"
    diff = proposal.get("diff") or ""
    added = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---"))
    return f"diff {', '.join(proposal.get('files') or []) or '?'} (+{added}/-{removed})"
