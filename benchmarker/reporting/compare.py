"""`mycelian-longmemeval compare BASE OTHER...`: did my change make memory better or worse, and why?

The first run is the baseline. It opens with one `verdict:` line per other run (compare_verdict.py): which run is
ahead on the deciding metric (accuracy; retrieval recall for retrieval-only runs), by how much, with its paired
interval and test, or "within the noise"; then, when two runs share only some questions, how many. Two runs that
share no question are refused (exit 2). Then per question type, paired on the shared questions: accuracy,
retrieval recall and nDCG with intervals, Holm-adjusted p-values and the stage moves (compare_by_type.py); then
search latency and cost side by side (compare_speed.py). The details follow; for each other run, on the question
ids judged in both:
  - flips: correct -> wrong (b) and wrong -> correct (c), with the ids;
  - exact McNemar p-value on (b, c): with paired data only the discordant questions carry
    information about a difference;
  - a paired bootstrap (seed 0, 10,000 resamples) 95% CI of accuracy(other) - accuracy(base).
Per-type accuracies with Wilson intervals are shown side by side for every run (all judged
questions of that run, not just the shared ones), and what a question and a correct answer cost (unit_cost.py).
Runs with retrieval data (every run searches;
a retrieval-only run does nothing else) are also compared on recall / ndcg at every k both
measured, paired per question (retrieval_compare.py). Each run's search settings (mode, embedder,
alpha, top_k) come from its summary.json, else from its results lines. When every run is a LoCoMo
run, LoCoMo's overall judge accuracy, F1 and BLEU-1 (categories 1-4) and its category 5
(abstention) accuracy are shown side by side too (its suite's compare rows), not paired. Where the results
lines carry an attribution, the stage counts are shown side by side and each pair lists how questions moved
between stages (attribution_compare.py). Before any figure, a like-for-like check of each run against the baseline
(like_for_like.py): dataset sha256, question set, judge, top_k and mean context tokens, one line per difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.errors import UserError
from benchmarker.log.jsonl import read_json_object
from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import ACCURACY
from benchmarker.reporting.attribution_compare import stage_counts, stage_lines, stage_moves
from benchmarker.reporting.compare_by_type import table_lines, type_table
from benchmarker.reporting.compare_shapes import BrowserPair, NamedView, Pair, PairFigures, PairView
from benchmarker.reporting.compare_speed import speed_and_cost, speed_table
from benchmarker.reporting.compare_verdict import (
    BOOTSTRAP_ITERATIONS,
    BOOTSTRAP_SEED,
    adjust_verdicts,
    decide,
    no_share_message,
    share_counts,
    share_note,
    shared,
)
from benchmarker.reporting.fmt import accuracy_cell, pct
from benchmarker.reporting.like_for_like import Check, check_lines, like_for_like, run_facts
from benchmarker.reporting.retrieval_compare import compare_retrieval, format_ids, pair_lines, per_question, side_by_side
from benchmarker.reporting.section_render import section_lines
from benchmarker.reporting.suite_parts import SuiteLookup, suites_of_results
from benchmarker.reporting.summary_model import RunSummary, load_summary
from benchmarker.reporting.summary_run_block import MemoryInfo
from benchmarker.scoring.qa_metrics import QaMetrics, qa_metrics
from benchmarker.scoring.records import load_results
from benchmarker.scoring.retrieval_metrics import retrieval_metrics
from benchmarker.scoring.stats import mcnemar_exact, paired_bootstrap


class RunSettings(TypedDict):
    """What was searched how: the settings a sweep varies (a column of compare's "Each run" table)."""

    mode: str | None
    embedder: str | None
    alpha: float | str | None    # "service default" where a Mycelian stack's own alpha searched
    top_k: int | None


class Comparison(TypedDict):
    """compare_runs(): the baseline's name, the question types, the like-for-like checks, each run's figures
    (without its results lines) and each pair's."""

    baseline: str | None
    types: list[str]
    like_for_like: list[Check]
    runs: list[dict[str, Any]]
    pairs: list[Pair]


def _run_name(run_dir: Path) -> str:
    return str(read_json_object(run_dir / "manifest.json").get("run_id") or run_dir.name)


def _settings(run_dir: Path, results: Sequence[ResultLine]) -> RunSettings:
    """mode, embedder, alpha and top_k of a run: what you changed between two runs of a sweep."""
    run = load_summary(run_dir / "summary.json").run
    first: ResultLine = results[0] if results else {}
    memory = run.memory or MemoryInfo()
    alpha = run.alpha if "alpha" in run.model_fields_set else first.get("alpha")
    # a replay runs in agent mode but no agent model wrote its memory: "agent" would hide the one difference
    replayed = run.replay or read_json_object(run_dir / "manifest.json").get("replay")
    return {"mode": "replay" if replayed else run.mode or first.get("mode"), "embedder": memory.embedder,
            "alpha": alpha if alpha is not None else memory.alpha,
            "top_k": run.top_k or first.get("top_k")}


def compare_pair(base: Sequence[ResultLine], other: Sequence[ResultLine]) -> PairFigures:
    """Flips, McNemar and paired bootstrap between two runs' results lines; the deciding metric and the per-type
    table on the questions both have (the verdict's sentence is written by compare_runs, over every pair)."""
    a = {r["question_id"]: r.get("label") for r in base}
    b = {r["question_id"]: r.get("label") for r in other}
    common = sorted(q for q in a.keys() & b.keys() if a[q] is not None and b[q] is not None)
    to_wrong = [q for q in common if a[q] and not b[q]]
    to_right = [q for q in common if not a[q] and b[q]]
    base_vals = [int(bool(a[q])) for q in common]
    other_vals = [int(bool(b[q])) for q in common]
    n = len(common)
    return {
        "n_common": n,
        "excluded_unjudged_or_missing": len(a.keys() | b.keys()) - n,
        "baseline_accuracy": (sum(base_vals) / n) if n else None,
        "accuracy": (sum(other_vals) / n) if n else None,
        "flips": {"correct_to_wrong": to_wrong, "wrong_to_correct": to_right},
        "b": len(to_wrong), "c": len(to_right),
        "mcnemar_p": mcnemar_exact(len(to_wrong), len(to_right)),
        "bootstrap": paired_bootstrap(base_vals, other_vals, iterations=BOOTSTRAP_ITERATIONS,
                                      seed=BOOTSTRAP_SEED),
        "retrieval": compare_retrieval(base, other, iterations=BOOTSTRAP_ITERATIONS, seed=BOOTSTRAP_SEED),
        "stages": stage_moves(base, other),
        **paired_view(base, other),
    }


def paired_view(base: Sequence[ResultLine], other: Sequence[ResultLine]) -> PairView:
    """The shared questions, the deciding metric's paired figures and the per-type table (the run browser's
    compare page shows the same)."""
    share = shared(base, other)
    base_q, other_q = per_question(base), per_question(other)
    return {"share": share_counts(share), "verdict": decide(base, other, base_q, other_q, share.ids),
            "by_type": type_table(base, other, base_q, other_q, share.ids)}


def browser_pair(base: tuple[str, Sequence[ResultLine], RunSummary],
                 other: tuple[str, Sequence[ResultLine], RunSummary]) -> BrowserPair:
    """What the run browser's compare page opens with, as `compare` does: the verdict (or why there is none) and
    the share note, the per-type table, and search latency and cost; each run is (name, results lines, summary)."""
    (name_a, lines_a, summary_a), (name_b, lines_b, summary_b) = base, other
    speed = speed_table([{"name": name_a, **speed_and_cost(lines_a, summary_a)},
                         {"name": name_b, **speed_and_cost(lines_b, summary_b)}])
    if not shared(lines_a, lines_b).ids:
        return {"opening": [no_share_message(name_a, name_b, len(lines_a), len(lines_b))], "by_type": None,
                "speed": speed}
    pair: NamedView = {"baseline": name_a, "run": name_b, **paired_view(lines_a, lines_b)}
    pair["verdict"] |= {"baseline": name_a, "run": name_b}
    adjust_verdicts([pair["verdict"]])
    return {"opening": opening_lines([pair]), "by_type": pair["by_type"], "speed": speed}


def compare_runs(run_dirs: list[Path], suites: SuiteLookup) -> Comparison:
    """Side-by-side QA and retrieval metrics and paired tests of every run against the first."""
    # each run's figures by name; a suite's compare blocks add keys of its own, which its compare_sections hook
    # reads by name from these dicts (suite_parts.py), so a run stays a dict
    runs: list[dict[str, Any]] = []
    for run_dir in run_dirs:
        run_dir = Path(run_dir)
        results = load_results(run_dir)
        runs.append({"name": _run_name(run_dir), "run_dir": str(run_dir), "results": results,
                     "settings": _settings(run_dir, results), "qa": qa_metrics(results),
                     **speed_and_cost(results, load_summary(run_dir / "summary.json")),
                     "retrieval": retrieval_metrics(results), "suites": [s.name for s in suites_of_results(suites, results)],
                     "stages": stage_counts(results),
                     **{key: block for suite in suites_of_results(suites, results)
                        for key, block in suite.reporting.compare_blocks(results).items()}})
    types = sorted({t for run in runs for t in run["qa"]["by_type"]})
    for run in runs[1:]:  # refused before any figure: a comparison of nothing would read as "no difference"
        if not shared(runs[0]["results"], run["results"]).ids:
            raise UserError("compare: " + no_share_message(runs[0]["run_dir"], run["run_dir"],
                                                            len(runs[0]["results"]), len(run["results"])))
    pairs: list[Pair] = [{"baseline": runs[0]["name"], "run": run["name"],
                          **compare_pair(runs[0]["results"], run["results"])} for run in runs[1:]]
    for pair in pairs:
        pair["verdict"] |= {"baseline": pair["baseline"], "run": pair["run"]}
    adjust_verdicts([pair["verdict"] for pair in pairs])
    facts = [run_facts(r["name"], Path(r["run_dir"]), r["results"], r["settings"].get("top_k")) for r in runs]
    return {"baseline": runs[0]["name"] if runs else None, "types": types,
            "like_for_like": [like_for_like(facts[0], other) for other in facts[1:]],  # said first, before any figure
            "runs": [{k: v for k, v in run.items() if k != "results"} for run in runs], "pairs": pairs}


def format_compare(comparison: Comparison, suites: SuiteLookup) -> str:
    """The comparison as markdown: the verdicts, each run against the baseline per question type, speed and
    cost; then settings, accuracy and retrieval tables, and each run vs the baseline in detail."""
    runs = comparison["runs"]
    lines = ["# Run comparison", "", *opening_lines(comparison["pairs"]), ""]
    lines += [line for check in comparison.get("like_for_like") or [] for line in check_lines(check) + [""]]
    for pair in comparison["pairs"]:
        if by_type := pair.get("by_type"):
            lines += [f"## {pair['run']} vs {pair['baseline']}, by question type", "",
                      *table_lines(by_type), "", by_type["note"], ""]
    lines += ["## Search latency and cost", "", *table_lines(speed_table(runs)), "",
              "Search: the one memory search each question makes (its results line's `timings.search_ms`). Cost: "
              "as each run's summary.json prices it (n/a: not priced).", ""]
    lines += ["## Each run", "", f"Baseline: **{comparison['baseline']}**", "",
             "| | " + " | ".join(r["name"] for r in runs) + " |",
             "|---|" + "---|" * len(runs)]
    for key in ("mode", "embedder", "alpha", "top_k"):
        values = [(r.get("settings") or {}).get(key) for r in runs]
        if any(v is not None for v in values):
            lines.append(f"| {key} | " + " | ".join("?" if v is None else f"`{v}`" for v in values) + " |")
    judged = any(r["qa"]["judged"] for r in runs)
    lines += _qa_rows(comparison) if judged else [
        "| QA accuracy | " + " | ".join("not judged" for _ in runs) + " |", "",
        "No run has judged answers (retrieval-only runs answer nothing): accuracy is not compared."]
    if judged:
        for name in dict.fromkeys(name for r in runs for name in r.get("suites") or ()):
            lines += [line for section in suites.named(name).reporting.compare_sections(runs)
                      for line in ['', *section_lines(section)]]
    lines += stage_lines(runs) if judged else []
    lines += side_by_side(runs)
    for pair in comparison["pairs"]:
        lines += ["", f"## {pair['run']} vs {pair['baseline']}"]
        if judged:
            lines += _qa_pair_lines(pair) + stage_lines(runs, pair)
        lines += pair_lines(pair)
    return "\n".join(lines) + "\n"


def _qa_rows(comparison: Comparison) -> list[str]:
    runs, lines = comparison["runs"], []
    rows = [("overall", lambda q: accuracy_cell(q["overall"])),
            ("task-averaged", lambda q: pct(q["task_averaged"]["accuracy"])),
            ("abstention", lambda q: accuracy_cell(q["abstention"]))]
    rows += [(t, _type_cell(t)) for t in comparison["types"]]
    rows.append(("unjudged", lambda q: str(q["unjudged"])))
    for label, fn in rows:
        lines.append(f"| {label} | " + " | ".join(fn(r["qa"]) for r in runs) + " |")
    lines.append("")
    lines.append("Accuracy with a 95% Wilson interval; unjudged answers are excluded.")
    return lines


def opening_lines(pairs: Sequence[NamedView]) -> list[str]:
    """The verdict of each run against the baseline, then, where they share only some questions, how many."""
    notes = [share_note(pair["share"], pair["baseline"], pair["run"]) for pair in pairs]
    return [pair["verdict"]["text"] for pair in pairs] + [note for note in notes if note]


def _qa_pair_lines(pair: Pair) -> list[str]:
    boot = pair["bootstrap"]
    mean, lo, hi = boot["diff"], boot["lo"], boot["hi"]  # all None together: no pair
    diff = "n/a" if mean is None or lo is None or hi is None else (
        f"{100 * mean:+.1f} points, 95% CI [{100 * lo:+.1f}, {100 * hi:+.1f}]")
    return ["", f"- questions judged in both: {pair['n_common']} "
            f"(excluded: {pair['excluded_unjudged_or_missing']} unjudged or missing in one run)",
            f"- accuracy on those: {pct(pair['baseline_accuracy'])} -> {pct(pair['accuracy'])}",
            f"- difference (paired bootstrap, {boot['iterations']} resamples, seed {boot['seed']}): {diff}",
            f"- flips: {pair['b']} correct -> wrong, {pair['c']} wrong -> correct; "
            f"exact McNemar p = {pair['mcnemar_p']:.4g}" + _holm_note(pair),
            f"- correct -> wrong: {format_ids(pair['flips']['correct_to_wrong'])}",
            f"- wrong -> correct: {format_ids(pair['flips']['wrong_to_correct'])}"]


def _holm_note(pair: Pair) -> str:
    """The accuracy p Holm-adjusted over the verdicts, when accuracy decided and more than one run was compared."""
    verdict = pair["verdict"]
    if verdict.get("family", 1) < 2 or verdict["metric"] != ACCURACY:
        return ""
    return f" (Holm-adjusted over {verdict['family']} verdicts: {verdict['p_holm']:.4g})"


def _type_cell(question_type: str) -> Callable[[QaMetrics], str]:
    """The accuracy cell of one question type (a closure per type, not over the loop variable)."""
    return lambda q: accuracy_cell(q["by_type"].get(question_type))
