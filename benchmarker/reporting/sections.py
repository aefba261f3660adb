"""Summary keys beyond QA and retrieval, computed from results lines, and their report sections.

`suite_summaries` adds each suite's keys to summary.json (levels, long-horizon, fact extraction,
through the registry), the multi-seed statistics and the self-improve loop; `extra_sections`
turns them into report sections. Both read only the results lines, like every other metric (and
the self-improve loop's `self_improve.jsonl` when the run has one).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarker.log.lines import Json, ResultLine
from benchmarker.reporting.fmt import num
from benchmarker.reporting.section_render import section_markdown, section_pair
from benchmarker.reporting.section_spec import Lines, Section, Table
from benchmarker.reporting.suite_parts import SuiteLookup, suites_of_results, suites_of_summary
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.mean_scores import scored_rows
from benchmarker.scoring.multiseed_shapes import SeedSummary

SELF_IMPROVE_LOG = "self_improve.jsonl"
MULTI_SEED_TITLE = "Multi-seed statistics"
SELF_IMPROVE_TITLE = "Self-improve loop"


def suite_summaries(results: Sequence[ResultLine], run_dir: Path | None = None, *, suites: SuiteLookup,
                    level_scores: Sequence[dict[str, Any]] = (), thresholds: dict[str, Json] | None = None) -> dict[str, Any]:
    """Summary keys of the run's suites (each suite's `summarise`), the multi-seed statistics over the
    suites that take several seeds, and the self-improve loop; `level_scores` are levels.jsonl lines
    (one per level case); `thresholds` the run's `[eval.thresholds]` (the manifest's; defaults when absent)."""
    out: dict[str, Any] = {}
    if run_dir is not None and (run_dir / SELF_IMPROVE_LOG).exists():
        out["self_improve"] = self_improve_summary(run_dir)
    found = suites_of_results(suites, results)
    for suite in found:
        out.update(suite.reporting.summarise(results, level_scores=list(level_scores)))
    seeded_kinds = {kind for suite in found if suite.reporting.multi_seed for kind in suite.record_kinds}
    seeded = [r for r in results if r.get("kind") in seeded_kinds]
    if seeded and len({r.get("seed") for r in seeded if r.get("seed") is not None}) > 1:
        out["multi_seed"] = _multi_seed(seeded, thresholds)
    return out


def _multi_seed(rows: Sequence[ResultLine], thresholds: dict[str, Json] | None) -> SeedSummary:
    from benchmarker.config_schema import ThresholdsConfig
    from benchmarker.scoring.multiseed import summarize_seeds

    scores = [{"seed": r.get("seed"), "question_key": r.get("question_key") or r.get("question_id"),
               "category": r.get("category"), "level": r.get("level"), "score": float(r.get("score") or 0)}
              for r in scored_rows(rows) if r.get("seed") is not None]
    return summarize_seeds(scores, thresholds=ThresholdsConfig.model_validate(thresholds) if thresholds else None)


def extra_sections(summary: RunSummary, suites: SuiteLookup) -> list[tuple[str, str]]:
    """The report's sections after the main ones: each suite's (its hook reads the summary as written), then the
    blocks other parts of the harness added."""
    raw = summary.as_dict()
    sections: list[tuple[str, str]] = []
    for suite in suites_of_summary(suites, summary):
        sections += [section_pair(section) for section in suite.reporting.report_sections(raw)]
    if "multi_seed" in raw:
        sections.append(section_pair(multi_seed_section(raw["multi_seed"])))
    if "self_improve" in raw:
        sections.append((SELF_IMPROVE_TITLE, raw["self_improve"].get("markdown", "")))  # self_improve_section's
    if "rounds" in raw:
        from benchmarker.reporting.rounds import rounds_section

        sections.append(("Adversarial rounds", rounds_section(raw["rounds"])))
    if "graders" in raw:
        from benchmarker.scoring.graders import graders_section

        sections.append(("Graders with perspectives", graders_section(raw["graders"])))
    if "analyst" in raw:
        from benchmarker.scoring.analyst import analyst_section

        sections.append(("Where answers were lost", analyst_section(raw["analyst"])))
    if summary.judge_sensitivity is not None:
        from benchmarker.reporting.judge_sensitivity_report import TITLE, judge_sensitivity_section

        sections.append((TITLE, judge_sensitivity_section(summary.judge_sensitivity)))
    if summary.budget is not None:
        from benchmarker.reporting.budget import budget_line

        sections.append(("Budget", budget_line(summary.budget)))
    tracing = summary.run.tracing
    if tracing is not None and tracing.langsmith:
        sections.append(("Traces", f"Every model and tool call of this run is traced in the LangSmith project "
                                   f"[{tracing.project}]({tracing.url}) ({tracing.endpoint}; "
                                   f"sample rate {tracing.sample_rate}). Filter by metadata `run_id` = "
                                   f"`{summary.run_id}`; ingestion turns carry the tag `memory_extraction`."))
    return sections


def multi_seed_section(ms: SeedSummary) -> Section:
    """The multi-seed block: a row per category, then how many questions vary across seeds (and which).

    Reads the keys summarize_seeds writes (`stdev`, `ci95_low`, `ci95_high`); one seed has neither: "n/a"."""
    rows = []
    for name, row in sorted((ms.get("by_category") or {}).items()):
        low, high, std = row.get("ci95_low"), row.get("ci95_high"), row.get("stdev")
        interval = f"{low:.3f}-{high:.3f}" if low is not None and high is not None else "n/a"
        rows.append((f"{name}", f"{row.get('n_seeds', '')}", f"{row.get('mean', 0):.3f}",
                     "n/a" if std is None else f"{std:.3f}", interval))
    noisy = ms.get("noisy_questions") or []
    note = (f"{len(noisy)} question(s) vary by more than 10 points across seeds"
            + (": " + ", ".join(str(q.get("question_key")) for q in noisy[:20]) if noisy else "."))
    return Section(MULTI_SEED_TITLE, (Table(("category", "seeds", "mean", "std", "95% interval"), tuple(rows)),
                                      Lines((note,))))


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
    summary["markdown"] = section_markdown(self_improve_section(summary, lines))  # the report shows it
    return summary


def _score(candidate: dict[str, Any] | None, split: str) -> float | None:
    return ((candidate or {}).get(split) or {}).get("score")


def _tunables(candidate: dict[str, Any] | None) -> str:
    items = ((candidate or {}).get("tunables") or {}).items()
    return ", ".join(f"{k}={'service' if v is None else v}" for k, v in items)


def self_improve_section(summary: dict[str, Any], lines: list[dict[str, Any]]) -> Section:
    """The loop: where it started and ended, a row per iteration, then each prompt diff it tried."""
    start, best = summary["start"], summary["best"]
    n = (start.get("holdout") or {}).get("n")
    outcome = Lines((
        f"Started from {_tunables(start)}: held-out score {num(_score(start, 'holdout'))} (n={n}), "
        f"training {num(_score(start, 'train'))}.",
        f"Best after {summary['iterations']} iteration(s): {_tunables(best)} in `{best.get('dir')}`: held-out "
        f"{num(_score(best, 'holdout'))}, training {num(_score(best, 'train'))}.",
        f"{summary['accepted']} accepted, {summary['reverted']} reverted, {summary['refused']} refused"
        + (", stopped early (nothing left to try)" if summary["stopped"] else "") + ". A change is kept only when "
        "its held-out gain beats the noise (exact McNemar p < 0.05 or a paired-bootstrap 95% interval above 0), "
        "exceeds min_gain, and no question type, category or level drops more than 5 points."))
    rows = []
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
        rows.append((f"{line['iteration']}", _proposal_md(line.get("proposal")), vote, _arrow(base, cand, "train"),
                     _arrow(base, cand, "holdout"), test, f"**{line['decision']}** ({line.get('stage')}): {reason}"))
    table = Table(("#", "proposal", "votes", "training", "held-out", "paired test", "decision"), tuple(rows))
    diffs = [Lines((f"Iteration {line['iteration']} prompt diff ({line['decision']}):", "```diff", diff.rstrip(), "```"))
             for line in lines if (diff := (line.get("proposal") or {}).get("diff"))]
    return Section(SELF_IMPROVE_TITLE, (outcome, table, *diffs))


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
