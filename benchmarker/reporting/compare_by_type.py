"""`compare`'s "why": one run against the baseline per question type, on the questions both have.

Per type: accuracy, the retrieval recall the verdict would use and the nDCG at the same level and k, each as
baseline -> run with the paired difference and its bootstrap 95% interval; the exact McNemar p for the 0/1
figures, Holm-adjusted over every p-value in the table (a table of many types shows many p-values, and some
would fall under 0.05 by chance alone); and how the questions' attribution stages moved. A table of strings
(`header`, `rows`), so the markdown and the run browser's compare page show the same cells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import ACCURACY
from benchmarker.reporting.compare_shapes import PairedCell, Table
from benchmarker.reporting.compare_verdict import (
    BOOTSTRAP_ITERATIONS,
    BOOTSTRAP_SEED,
    Values,
    accuracy_values,
    paired_cell,
    recall_metric,
    retrieval_values,
)
from benchmarker.reporting.retrieval_compare import PerQuestion
from benchmarker.scoring.stats import holm

SHOWN_MOVES = 3  # stage moves named in a cell; the rest are counted


def _types(base: Sequence[ResultLine], other: Sequence[ResultLine], ids: list[str]) -> dict[str, list[str]]:
    kind = {str(r["question_id"]): str(r.get("question_type") or "?") for r in [*other, *base]}  # base's wins
    out: dict[str, list[str]] = {}
    for q in ids:
        out.setdefault(kind[q], []).append(q)
    return dict(sorted(out.items()))


def _moves(base: Sequence[ResultLine], other: Sequence[ResultLine], ids: list[str]) -> str:
    a = {str(r["question_id"]): r.get("attribution") for r in base}
    b = {str(r["question_id"]): r.get("attribution") for r in other}
    moved = Counter(f"{a[q]} -> {b[q]}" for q in ids if a.get(q) and b.get(q) and a[q] != b[q])
    shown = [f"{move} {n}" for move, n in moved.most_common(SHOWN_MOVES)]
    rest = sum(moved.values()) - sum(n for _, n in moved.most_common(SHOWN_MOVES))
    return "; ".join(shown + ([f"+{rest} more"] if rest else [])) or "none"


def _means(metric: str, cell: PairedCell) -> str:
    if metric == ACCURACY:
        return f"{100 * cell['base']:.1f}% -> {100 * cell['other']:.1f}%"
    return f"{cell['base']:.3f} -> {cell['other']:.3f}"


def _diff(metric: str, cell: PairedCell) -> str:
    scale, form = (100, "{:+.1f}") if metric == ACCURACY else (1, "{:+.3f}")
    return f"{form.format(scale * cell['diff'])} [{form.format(scale * cell['lo'])}, {form.format(scale * cell['hi'])}]"


def type_table(base: Sequence[ResultLine], other: Sequence[ResultLine], base_q: PerQuestion, other_q: PerQuestion,
               ids: list[str]) -> Table | None:
    """{"header", "rows", "note"} of the run (`other`) against the baseline over the shared `ids`; None when no
    type has a paired figure."""
    recall = recall_metric(base_q, other_q, ids)
    figures: list[tuple[str, Values, Values, bool]] = []
    acc_a, acc_b = accuracy_values(base), accuracy_values(other)
    if any(q in acc_a and q in acc_b for q in ids):
        figures.append((ACCURACY, acc_a, acc_b, True))
    if recall is not None:
        level, rest = recall.split(".", 1)
        ndcg = f"{level}.ndcg_any@{rest.rsplit('@', 1)[1]}"
        figures.append((recall, retrieval_values(base_q, recall), retrieval_values(other_q, recall), True))
        figures.append((ndcg, retrieval_values(base_q, ndcg), retrieval_values(other_q, ndcg), False))
    if not figures:
        return None
    by_type = _types(base, other, ids)
    cells = {(t, metric): paired_cell(a, b, qs, binary=binary)
             for t, qs in by_type.items() for metric, a, b, binary in figures}
    tested = [(c, p) for c in cells.values() if c is not None and (p := c["p"]) is not None]
    for (cell, _), adjusted in zip(tested, holm([p for _, p in tested]), strict=True):
        cell["p_holm"] = adjusted
    attributed = any(r.get("attribution") for r in base) and any(r.get("attribution") for r in other)
    header = ["type", "n"]
    for metric, _, _, binary in figures:
        name = "accuracy" if metric == ACCURACY else metric
        header += [name, "difference [95% CI]"] + (["p (Holm)"] if binary else [])
    header += ["stage moves"] if attributed else []
    rows = []
    for t, qs in by_type.items():
        row = [t, str(len(qs))]
        for metric, _, _, binary in figures:
            found = cells[(t, metric)]
            row += ["-", "-"] if found is None else [_means(metric, found), _diff(metric, found)]
            row += [("-" if found is None else f"{found['p_holm']:.3g}")] if binary else []
        row += [_moves(base, other, qs)] if attributed else []
        rows.append(row)
    note = (f"Each figure is baseline -> run over the type's shared questions that have it (judged answers; for "
            f"retrieval, non-abstention questions with evidence). Difference = run - baseline (accuracy in points) "
            f"with a paired bootstrap 95% CI ({BOOTSTRAP_ITERATIONS} resamples, seed {BOOTSTRAP_SEED}). p (Holm): "
            f"the exact McNemar p on the questions that changed, Holm-adjusted over the {len(tested)} "
            f"p-value{'' if len(tested) == 1 else 's'} in this table.")
    return {"header": header, "rows": rows, "note": note}


def table_lines(table: Table) -> list[str]:
    """A {"header", "rows"} table as markdown rows."""
    return ["| " + " | ".join(table["header"]) + " |", "|" + "---|" * len(table["header"]),
            *("| " + " | ".join(row) + " |" for row in table["rows"])]
