"""LoCoMo's report table and its `compare` rows, from summary.json's `locomo` block."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from benchmarker.reporting.fmt import accuracy_cell
from benchmarker.reporting.section_spec import Lines, Section, Table
from benchmarker.scoring.qa_metrics import AccuracyCell
from benchmarker.suites.locomo.shapes import CategoryStats, MeanCi, SummaryBlock


def _interval(mean: float | None, ci95: list[float] | None, scale: float = 1.0, fmt: str = "{:.3f}") -> str:
    if ci95 is None or mean is None:
        return "n/a"
    lo, hi = ci95
    return f"{fmt.format(scale * mean)} [{fmt.format(scale * lo)}, {fmt.format(scale * hi)}]"


def _mean_ci(stat: MeanCi | None) -> str:
    return _interval(stat.get("mean"), stat.get("ci95")) if stat else "n/a"


def locomo_section(block: SummaryBlock) -> Section:
    """The LoCoMo table: judge accuracy (Wilson), F1 and BLEU-1 (bootstrap) per category and overall."""
    rows: list[tuple[str, CategoryStats]] = [(f"{c} {row['name']}", row)
                                             for c, row in block.get("by_category", {}).items() if c != "5"]
    rows.append(("**categories 1-4**", block.get("overall") or {}))   # not "overall": that counts every question
    adversarial = block.get("adversarial") or {}
    rows.append((f"5 {adversarial.get('name', 'adversarial')} (abstention)", adversarial))
    cells = []
    for name, row in rows:
        judge: AccuracyCell | None = row.get("judge")
        accuracy = _interval(judge.get("accuracy"), judge.get("ci95"), 100, "{:.1f}") if judge else "n/a"
        cells.append((name, str(row.get("questions", 0)), accuracy, str(judge.get("n", 0) if judge else 0),
                      str(judge.get("unjudged", 0) if judge else 0), _mean_ci(row.get("f1")), _mean_ci(row.get("bleu1"))))
    intervals = block.get("intervals") or {}
    closing = [f"Accuracy intervals: {intervals.get('judge', 'n/a')}; F1 and BLEU-1 intervals: "
               f"{intervals.get('f1_bleu1', 'n/a')}. F1 and BLEU-1 are not computed for category 5 (n/a). "
               "Categories 1-4 is the figure LoCoMo papers publish; the run's overall accuracy (QA accuracy) counts "
               "every question, category 5 included."]
    evidence = block.get("evidence")
    if evidence and (evidence.get("dropped") or evidence.get("repaired")):
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


def _stat(s: MeanCi | None) -> str:
    ci = s.get("ci95") if s else None
    if not s or s.get("mean") is None or ci is None:
        return "n/a"
    return f"{s['mean']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}] (n={s['n']})"


def _block(run: Mapping[str, SummaryBlock | str], key: str) -> SummaryBlock:
    block = run.get(key)
    return block if isinstance(block, dict) else {}


def compare_rows(runs: Sequence[Mapping[str, SummaryBlock | str]], key: str) -> Section:
    """Overall judge accuracy, F1, BLEU-1 and category 5 of each run's `key` block, side by side (a run: its
    `name` and its blocks)."""
    rows: list[tuple[str, Callable[[SummaryBlock], str]]] = [
        ("judge accuracy (1-4)", lambda b: accuracy_cell(b["overall"]["judge"])),
        ("F1 (1-4)", lambda b: _stat(b["overall"].get("f1"))),
        ("BLEU-1 (1-4)", lambda b: _stat(b["overall"].get("bleu1"))),
        ("5 adversarial (abstention)", lambda b: accuracy_cell(b["adversarial"]["judge"]))]
    return Section("LoCoMo", (
        Table(("metric", *(str(r["name"]) for r in runs)),
              tuple((label, *(fn(_block(r, key)) for r in runs)) for label, fn in rows)),
        Lines(("(1-4) = categories 1-4; accuracy with a 95% Wilson interval, F1 (LoCoMo's) and BLEU-1 (mem0's) with a "
               "95% bootstrap interval (seed 0); category 5 apart, as abstention.",))))
