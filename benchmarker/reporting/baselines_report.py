"""summary.json's `baselines` block and the report's "Is memory needed here?" section, after `baselines RUN_DIR`.

The block is recomputed from result lines on every rebuild (the run's own, baselines/<name>/results.jsonl and
oracle/results.jsonl), never read back from a summary: scoring/headroom.py computes the figures, this module
adds what each baseline's reader was given and draws them. The chart puts the four accuracies side by side
per question type, each bar with its 95% Wilson interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.log.jsonl import latest_by
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.fmt import pct
from benchmarker.reporting.plots import COLORS, _save, plt
from benchmarker.reporting.summary_analysis_blocks import BaselinesBlock, Headroom, McNemarPair
from benchmarker.reporting.summary_block import Cell
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.headroom import CONDITIONS, is_memory_needed
from benchmarker.scoring.records import checked_results

TITLE = "Is memory needed here?"
BASELINES_DIR = "baselines"  # verbs/baselines.py writes there (a lower floor cannot import it)
BASELINE_NAMES = ("no_memory", "full_context")
CONDITION_COLORS = {"no_memory": "#BBBBBB", "memory": "#4C72B0", "full_context": "#DD8452", "oracle": "#55A868"}
CONDITION_WORDS = {"no_memory": "no memory", "memory": "memory", "full_context": "full context", "oracle": "oracle"}


def _lines(path: Path) -> list[ResultLine]:
    if not path.exists():
        return []
    return [r for r in latest_by(checked_results(path), "question_id") if not r.get("round")]


class FullContextCut(TypedDict):
    """summary.json's `baselines.runs.full_context.cut`: how much history the full-context reader lost."""

    questions_cut: int
    sessions_dropped: int
    tokens_before_max: int
    context_tokens_mean: float | None
    context_tokens_max: int


def _full_context_cut(results: Sequence[ResultLine]) -> FullContextCut:
    cuts = [cut for r in results if isinstance(cut := r.get("history_cut"), dict)]
    tokens = [int(r.get("context_tokens") or 0) for r in results]
    return {"questions_cut": sum(1 for c in cuts if c.get("sessions_dropped") or c.get("messages_dropped")),
            "sessions_dropped": sum(int(c.get("sessions_dropped") or 0) for c in cuts),
            "tokens_before_max": max((int(c.get("tokens_before") or 0) for c in cuts), default=0),
            "context_tokens_mean": sum(tokens) / len(tokens) if tokens else None,
            "context_tokens_max": max(tokens, default=0)}


def baselines_block(results: Sequence[ResultLine], answers_dir: Path) -> dict[str, Any]:
    """{"baselines": block} once a baseline has result lines in answers_dir/baselines/ ({} before)."""
    ran = {name: _lines(answers_dir / BASELINES_DIR / name / "results.jsonl") for name in BASELINE_NAMES}
    ran = {name: lines for name, lines in ran.items() if lines}
    if not ran:
        return {}
    conditions = {"memory": results, **ran, "oracle": _lines(answers_dir / "oracle" / "results.jsonl")}
    block = is_memory_needed(conditions)
    block["runs"] = {name: {"questions": len(lines), "dir": f"{BASELINES_DIR}/{name}"} for name, lines in ran.items()}
    if "full_context" in ran:
        block["runs"]["full_context"]["cut"] = _full_context_cut(ran["full_context"])
    return {"baselines": block}


def plot_is_memory_needed(block: BaselinesBlock, path: Path) -> Path | None:
    """Grouped bars: per question type (and overall) the accuracy of each condition, with its 95% interval."""
    accuracy = block.accuracy or {}
    present = [c for c in CONDITIONS if c in accuracy]
    if not present:
        return None
    types = sorted({t for c in present for t in accuracy[c].by_type or {}}) + ["overall"]
    width = 0.8 / len(present)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(types) + 2), 3.8))
    for i, condition in enumerate(present):
        table = accuracy[condition]
        cells = [table.overall or Cell() if t == "overall" else (table.by_type or {}).get(t, Cell()) for t in types]
        xs = [j + (i - (len(present) - 1) / 2) * width for j in range(len(types))]
        heights = [100 * (c.accuracy or 0.0) for c in cells]
        errors = [[max(0.0, h - 100 * (c.ci95 or [0, 0])[0]) for h, c in zip(heights, cells, strict=True)],
                  [max(0.0, 100 * (c.ci95 or [0, 0])[1] - h) for h, c in zip(heights, cells, strict=True)]]
        ax.bar(xs, heights, width, yerr=errors, capsize=2, color=CONDITION_COLORS[condition],
               label=CONDITION_WORDS[condition], error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(types)), types, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%), 95% CI")
    ax.grid(axis="y", color=COLORS["grid"])
    ax.set_axisbelow(True)
    ax.legend(ncol=len(present), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    return _save(fig, path)


def _headroom_line(h: Headroom) -> str:
    if h.value is None:
        return f"Headroom captured: not available ({h.note or 'the oracle and no memory score the same'})."
    ci = h.ci95
    interval = f", 95% paired bootstrap interval [{pct(ci[0])}, {pct(ci[1])}]" if ci else ""
    undefined = f"; {h.undefined_draws} draws without a gap left out" if h.undefined_draws else ""
    return (f"**Headroom captured** (memory - no memory) / (oracle - no memory): **{pct(h.value)}**{interval} "
            f"(n={h.n} questions judged under all three; {h.iterations:,} draws, seed {h.seed}{undefined}).")


def _mcnemar_line(m: McNemarPair | None) -> list[str]:
    if m is None or m.is_empty():
        return []
    return [f"Memory vs full context (exact McNemar, n={m.n}): right only with memory {m.memory_only}, right "
            f"only with the full context {m.full_context_only}, p = {m.p_value:.3g}.", ""]


def _cut_line(block: BaselinesBlock) -> list[str]:
    full_context = (block.runs or {}).get("full_context")
    cut = full_context.cut if full_context is not None else None
    if cut is None or cut.is_empty():
        return []
    return [f"Full context: the reader saw {cut.context_tokens_mean:,.0f} tokens on average (max "
            f"{cut.context_tokens_max:,}); {cut.questions_cut} questions had their oldest sessions cut "
            f"({cut.sessions_dropped} sessions in all; the longest history was {cut.tokens_before_max:,} tokens).",
            ""]


def baselines_section(summary: RunSummary, plots: Path) -> list[str]:
    block = summary.baselines
    if block is None or block.is_empty():
        return []
    present = block.conditions or []
    accuracy = block.accuracy or {}
    out = [f"## {TITLE}", "",
           "The run's questions asked again without its memory system and judged by the same judge: with no context "
           "at all (`no_memory`), with the case's whole history cut to the token budget, oldest sessions first "
           "(`full_context`), and with only the gold evidence (`oracle`, when run). Accuracy per question type, "
           "with 95% intervals:", "",
           "| type | " + " | ".join(CONDITION_WORDS[c] for c in present) + " |", "|---|" + "---|" * len(present)]
    types = sorted({t for c in present for t in accuracy[c].by_type or {}})
    for name in [*types, "overall"]:
        cells = [accuracy[c].overall if name == "overall" else (accuracy[c].by_type or {}).get(name) for c in present]
        out.append(f"| {'**overall**' if name == 'overall' else name} | "
                   + " | ".join(_cell(c) for c in cells) + " |")
    plot = plot_is_memory_needed(block, plots / "is_memory_needed.png")
    out += [""] + ([f"![is memory needed](plots/{plot.name})", ""] if plot else [])
    return out + [_headroom_line(block.headroom or Headroom()), ""] + \
        _mcnemar_line(block.mcnemar_memory_vs_full_context) + _cut_line(block)


def _cell(c: Cell | None) -> str:
    if c is None or not c.n:
        return "-"
    lo, hi = c.ci95 or (None, None)
    return f"{pct(c.accuracy)} [{pct(lo)}, {pct(hi)}] (n={c.n})"
