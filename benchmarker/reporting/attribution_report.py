"""The report's "Where answers were lost": the attribution block as a table and a stacked bar per
question type, then accuracy with memory beside accuracy with the gold evidence only (`oracle`).

The gap between the two accuracies is what the memory system is responsible for; what the oracle reader
still gets wrong is the reader's or the judge's.
"""

from __future__ import annotations

from pathlib import Path

from benchmarker.reporting.fmt import pct
from benchmarker.reporting.palette import OTHER_STAGE, STAGE_COLORS
from benchmarker.reporting.plots import COLORS, _save, plt
from benchmarker.reporting.summary_analysis_blocks import AttributionBlock, StageCell
from benchmarker.reporting.summary_metric_blocks import QaBlock
from benchmarker.reporting.summary_model import RunSummary

STAGE_WORDS = {"correct": "correct", "false_answer": "answered an unanswerable question",
               "not_written": "never written to memory", "not_retrieved": "written, not all retrieved",
               "not_used": "seen by the reader, still wrong", "no_evidence": "no evidence labels",
               "unattributed": "outside agent, nothing to inspect"}


def plot_attribution(block: AttributionBlock, path: Path) -> Path | None:
    """One horizontal bar per question type (and overall), split by stage, in shares of its questions."""
    rows: list[tuple[str, StageCell | AttributionBlock]] = [(t, c) for t, c in (block.by_type or {}).items() if c.n]
    rows.append(("overall", block))
    if not block.n:
        return None
    counts = block.counts or {}
    stages = [s for s in block.stages or [] if counts.get(s)]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.6))
    left = [0.0] * len(rows)
    for stage in stages:
        widths = [100 * (c.shares or {}).get(stage, 0.0) for _, c in rows]
        ax.barh(range(len(rows)), widths, left=left, color=STAGE_COLORS.get(stage, OTHER_STAGE), label=stage)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(range(len(rows)), [f"{name} (n={c.n})" for name, c in rows], fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of judged questions (%)")
    ax.invert_yaxis()
    ax.grid(axis="x", color=COLORS["grid"])
    ax.set_axisbelow(True)
    ax.legend(ncol=min(4, len(stages)), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False)
    return _save(fig, path)


def attribution_section(summary: RunSummary, plots: Path) -> list[str]:
    block = summary.attribution
    if block is None or block.is_empty():
        return []
    counts = block.counts or {}
    stages = [s for s in block.stages or [] if counts.get(s)]
    out = ["## Where answers were lost", "",
           f"Each of the {block.n} judged questions is attributed to one stage, from the run's files alone: "
           "was a gold evidence turn ever written to memory, did every evidence turn reach what the reader saw, "
           f"and was it still answered wrong. {block.lost_by_memory} wrong answers were lost before the reader (never "
           f"written, or not retrieved); {counts['not_used']} were in front of the reader and still wrong.", "",
           "| type | n | " + " | ".join(stages) + " |", "|---|---|" + "---|" * len(stages)]
    rows: list[tuple[str, StageCell | AttributionBlock]] = [*(block.by_type or {}).items(), ("**overall**", block)]
    for name, cell in rows:
        out.append(f"| {name} | {cell.n} | "
                   + " | ".join(f"{(cell.counts or {})[s]} ({pct((cell.shares or {})[s])})" for s in stages) + " |")
    plot = plot_attribution(block, plots / "attribution.png")
    if plot:
        out += ["", f"![where answers were lost](plots/{plot.name})"]
    out += ["", *(f"- `{s}`: {STAGE_WORDS.get(s, s)}" for s in stages),
            f"- written means {block.write_match}; seen means {block.seen_match}."]
    out += [f"- {note}" for note in block.notes or []]
    return out + [""] + oracle_lines(summary)


def oracle_lines(summary: RunSummary) -> list[str]:
    """Accuracy with memory vs with the gold evidence turns only, per type."""
    oracle = summary.oracle
    if oracle is None or oracle.is_empty():
        return []
    memory = summary.qa or QaBlock()
    memory_types, oracle_types = memory.by_type or {}, oracle.by_type or {}
    out = ["### With memory vs with the gold evidence (oracle reader)", "",
           "The oracle reader answered every question again with only its gold evidence turns as context "
           f"(`oracle/`, {oracle.questions or 0} questions, judged by the run's judge). The gap is what the memory "
           "system loses; what the oracle still misses is the reader's or the judge's.", "",
           "| type | with memory | with gold evidence | gap |", "|---|---|---|---|"]
    types = sorted(set(memory_types) | set(oracle_types))
    lacking = oracle.no_evidence or {}
    rows = [*((t, memory_types.get(t), oracle_types.get(t)) for t in types), ("**overall**", memory.overall, oracle.overall)]
    if lacking and (both := oracle.with_evidence):
        rows.append(("**overall, with gold evidence**", both.get("memory"), both.get("oracle")))
    for name, mine, gold in rows:
        a = mine.accuracy if mine is not None else None
        b = gold.accuracy if gold is not None else None
        gap = f"{100 * (b - a):+.1f} pts" if a is not None and b is not None else "n/a"
        none = sum(lacking.values()) if name == "**overall**" else lacking.get(name, 0)
        gold_n = (gold.n or 0) if gold is not None else 0
        if none and none >= gold_n:   # the oracle had nothing to read: it declined, trivially
            gap = "not comparable: no gold evidence"
        elif none:
            gap += f" ({none} without gold evidence)"
        out.append(f"| {name} | {pct(a)} (n={(mine.n or 0) if mine is not None else 0}) | {pct(b)} (n={gold_n}) "
                   f"| {gap} |")
    if lacking:
        out += ["", f"{sum(lacking.values())} question(s) had no gold evidence ("
                + ", ".join(f"{t}: {n}" for t, n in sorted(lacking.items())) + "): the oracle reader had nothing to "
                "read and declined, which an abstention question counts correct, so its accuracy there says nothing "
                "about memory; a row none of whose questions had any is not comparable, and the last row compares the "
                "questions that had some."]
    return out + [""]
