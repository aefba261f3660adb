"""LoCoMo's report table and its `compare` rows, from summary.json's `locomo` block."""

from __future__ import annotations

from typing import Any

from benchmarker.reporting.fmt import accuracy_cell
from benchmarker.reporting.section_spec import Lines, Section, Table


def _interval(stat: dict[str, Any] | None, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    if not stat or stat.get("ci95") is None:
        return "n/a"
    lo, hi = stat["ci95"]
    return f"{fmt.format(scale * stat['mean'])} [{fmt.format(scale * lo)}, {fmt.format(scale * hi)}]"


def locomo_section(block: dict[str, Any]) -> Section:
    """The LoCoMo table: judge accuracy (Wilson), F1 and BLEU-1 (bootstrap) per category and overall."""
    rows = [(f"{c} {row['name']}", row) for c, row in block.get("by_category", {}).items() if c != "5"]
    rows.append(("**categories 1-4**", block.get("overall") or {}))   # not "overall": that counts every question
    adversarial = block.get("adversarial") or {}
    rows.append((f"5 {adversarial.get('name', 'adversarial')} (abstention)", adversarial))
    cells = []
    for name, row in rows:
        judge = row.get("judge") or {}
        accuracy = _interval({"mean": judge.get("accuracy"), "ci95": judge.get("ci95")}, 100, "{:.1f}")
        cells.append((name, str(row.get("questions", 0)), accuracy, str(judge.get("n", 0)),
                      str(judge.get("unjudged", 0)), _interval(row.get("f1")), _interval(row.get("bleu1"))))
    intervals = block.get("intervals") or {}
    closing = [f"Accuracy intervals: {intervals.get('judge', 'n/a')}; F1 and BLEU-1 intervals: "
               f"{intervals.get('f1_bleu1', 'n/a')}. F1 and BLEU-1 are not computed for category 5 (n/a). "
               "Categories 1-4 is the figure LoCoMo papers publish; the run's overall accuracy (QA accuracy) counts "
               "every question, category 5 included."]
    evidence = block.get("evidence") or {}
    if evidence.get("dropped") or evidence.get("repaired"):
        closing += ["", f"Evidence ids: {evidence['dropped']} evidence id(s) dropped ({evidence['unparseable']} "
                    f"unparseable, {evidence['names_no_turn']} name no turn), {evidence.get('repaired', 0)} repaired; "
                    "summary.json `locomo.evidence` lists each with its question."]
    closing += [f"- {note}" for note in block.get("notes", [])]
    return Section("LoCoMo", (
        Lines(("Category numbers as in locomo10.json: "
               + ", ".join(f"{c} = {name}" for c, name in block.get("categories", {}).items()) + ".",)),
        Table(("category", "questions", "judge accuracy [95% CI]", "judged", "unjudged", "F1 [95% CI]",
               "BLEU-1 [95% CI]"), tuple(cells)),
        Lines(tuple(closing))))


def compare_rows(runs: list[dict[str, Any]], key: str) -> Section:
    """Overall judge accuracy, F1, BLEU-1 and category 5 of each run's `key` block, side by side."""
    def stat(s: dict[str, Any] | None) -> str:
        if not s or s.get("mean") is None:
            return "n/a"
        return f"{s['mean']:.3f} [{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}] (n={s['n']})"

    rows = [("judge accuracy (1-4)", lambda b: accuracy_cell(b["overall"]["judge"])),
            ("F1 (1-4)", lambda b: stat(b["overall"].get("f1"))),
            ("BLEU-1 (1-4)", lambda b: stat(b["overall"].get("bleu1"))),
            ("5 adversarial (abstention)", lambda b: accuracy_cell(b["adversarial"]["judge"]))]
    return Section("LoCoMo", (
        Table(("metric", *(r["name"] for r in runs)), tuple((label, *(fn(r[key]) for r in runs)) for label, fn in rows)),
        Lines(("(1-4) = categories 1-4; accuracy with a 95% Wilson interval, F1 (LoCoMo's) and BLEU-1 (mem0's) with a "
               "95% bootstrap interval (seed 0); category 5 apart, as abstention.",))))
