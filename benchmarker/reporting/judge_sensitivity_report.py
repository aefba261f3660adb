"""The report's "Does the judge decide it?": summary.json's `judge_sensitivity` block as tables.

Accuracy under each judge per question type with the spread between them, then how far each pair of judges
agrees, then the questions they disagree on (the run browser links each to its question page).
"""

from __future__ import annotations

from benchmarker.reporting.fmt import num, pct
from benchmarker.reporting.retrieval_report import cell as text_cell
from benchmarker.reporting.summary_block import Cell
from benchmarker.reporting.summary_judge_blocks import JudgeGroup, JudgeSensitivityBlock, JudgeSpread

TITLE = "Does the judge decide it?"
LISTED = 100  # disagreements listed in the report; summary.json lists them all


def judge_sensitivity_section(block: JudgeSensitivityBlock) -> str:
    """The section's markdown (the report adds its "## " title)."""
    entries = block.judges or []
    judges = [str(j.name) for j in entries]
    out = [f"The same {block.questions or 0} answers were judged {len(judges)} times: by the run's own judge "
           "(`results.jsonl`) and again by `score RUN_DIR CONFIG` (`scores/<judge>/`). Every figure is over the "
           f"{block.paired or 0} questions every judge labelled. The spread is the highest accuracy minus the "
           "lowest; its interval is a paired bootstrap over questions "
           f"({_bootstrap(block)}). A spread whose interval is well above 0 means the judge, not memory, moves the "
           "number.", "",
           "| type | n | " + " | ".join(_cell_head(name) for name in judges) + " | spread [95% CI] |",
           "|---|---|" + "---|" * len(judges) + "---|"]
    rows = [*((text_cell(t), g) for t, g in (block.by_type or {}).items()), ("**overall**", block.overall or JudgeGroup())]
    for name, group in rows:
        cells = group.judges or {}
        out.append(f"| {name} | {group.n or 0} | " + " | ".join(_cell(cells.get(j)) for j in judges)
                   + f" | {_spread(group.spread)} |")
    out += ["", "| judge | judge kind | model | source | unjudged |", "|---|---|---|---|---|"]
    out += [f"| {j.name} | {j.judge or '–'} | {j.model or '–'} | `{j.source}` | {j.unjudged or 0} |" for j in entries]
    out += ["", "Agreement between each pair of judges (Cohen's kappa is n/a where one judge gave the same label "
            "to every question: nothing beyond chance to measure):", "",
            "| judge A | judge B | n | agreement | kappa | only A says correct | only B says correct |",
            "|---|---|---|---|---|---|---|"]
    out += [f"| {p.a} | {p.b} | {p.n} | {pct(p.agreement)} | {num(p.kappa, '{:.2f}')} | "
            f"{p.only_a_correct} | {p.only_b_correct} |" for p in block.pairs or []]
    out += ["", *_disagreements(block, judges)]
    out += [f"- {note}" for note in block.notes or []]
    return "\n".join(out) + "\n"


def _cell_head(name: str) -> str:
    return f"{name} [95% CI]"


def _cell(c: Cell | None) -> str:
    if c is None or c.accuracy is None:
        return "n/a"
    lo, hi = c.ci95 or (None, None)
    return f"{pct(c.accuracy)} [{pct(lo)}, {pct(hi)}]"


def _spread(spread: JudgeSpread | None) -> str:
    if spread is None or spread.value is None:
        return "n/a"
    lo, hi = spread.ci95 or (None, None)
    return f"{100 * spread.value:.1f} pts [{_pts(lo)}, {_pts(hi)}]"


def _pts(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _bootstrap(block: JudgeSensitivityBlock) -> str:
    b = block.bootstrap or {}
    return f"{b.get('iterations', 0):,} resamples, seed {b.get('seed', 0)}"


def _disagreements(block: JudgeSensitivityBlock, judges: list[str]) -> list[str]:
    found = block.disagreements or []
    if not found:
        return ["The judges agree on every question.", ""]
    shown = found[:LISTED]
    more = (f"; the first {LISTED} are listed, summary.json's `judge_sensitivity.disagreements` has them all"
            if len(found) > LISTED else "")
    out = [f"{len(found)} question(s) the judges disagree on{more} (`view RUN_DIR` links each to its question page):", "",
           "| question | type | " + " | ".join(judges) + " |", "|---|---|" + "---|" * len(judges)]
    for d in shown:
        labels = d.labels or {}
        out.append(f"| {text_cell(d.question_id)} | {text_cell(d.question_type)} | "
                   + " | ".join(_label(labels.get(j)) for j in judges) + " |")
    return out + [""]


def _label(value: bool | None) -> str:
    return "correct" if value is True else "wrong" if value is False else "–"
