"""`compare --out x.html`'s figure: each run side by side per question type, accuracy (Wilson 95% intervals) and
the retrieval recall the verdict uses (bootstrap 95% intervals), from the runs' results lines. The page is one
file, so the PNG goes in as a data: URI."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

from benchmarker.log.lines import ResultLine
from benchmarker.metric_names import K_VALUES
from benchmarker.reporting.compare_verdict import BOOTSTRAP_SEED, RECALLS, accuracy_values, retrieval_values
from benchmarker.reporting.plots import plt
from benchmarker.reporting.retrieval_compare import per_question
from benchmarker.scoring.stats import bootstrap_mean_ci, wilson

WIDTH = 0.8  # the share of a type's slot that the bars of all runs fill
INTERVAL_RESAMPLES = 2000
FIGURE_NAME = "by_type.png"


def by_type_png(runs: Sequence[tuple[str, Sequence[ResultLine]]], recall: str | None) -> bytes | None:
    """Grouped bars, one per run: accuracy per question type and, given `recall`, that recall per type; None
    when there is nothing to draw."""
    panels = [("accuracy (%) with 95% Wilson interval", [_accuracy(lines) for _, lines in runs])]
    if recall is not None:
        panels.append((f"{recall} (%) with bootstrap 95% interval", [_recall(lines, recall) for _, lines in runs]))
    types = sorted({t for _, panel in panels for by_type in panel for t in by_type})
    if not types:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 0.45 * len(types) * len(runs) + 1.6),
                             squeeze=False, sharey=True)
    bar = WIDTH / len(runs)
    for ax, (xlabel, panel) in zip(axes[0], panels, strict=True):
        for i, ((name, _), by_type) in enumerate(zip(runs, panel, strict=True)):
            shown = [by_type.get(t, (0.0, (0.0, 0.0))) for t in types]
            err = [[max(0.0, 100 * (m - lo)) for m, (lo, _) in shown], [max(0.0, 100 * (hi - m)) for m, (_, hi) in shown]]
            ax.barh([y + i * bar for y in range(len(types))], [100 * m for m, _ in shown], height=bar, xerr=err,
                    capsize=3, ecolor="#333333", label=_plain(name))
        ax.set_xlim(0, 100)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(axis="x", color="#dddddd")
        ax.set_axisbelow(True)
    axes[0][0].set_yticks([y + WIDTH / 2 - bar / 2 for y in range(len(types))], [_plain(t) for t in types],
                              fontsize=8)
    axes[0][0].invert_yaxis()
    axes[0][-1].legend(fontsize=8)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def figure_markdown(runs: Sequence[tuple[str, Sequence[ResultLine]]]) -> tuple[str, dict[str, str]]:
    """The markdown that places the figure, and its image name -> data: URI (for html_page's image_src)."""
    recall = _shared_recall([lines for _, lines in runs])
    png = by_type_png(runs, recall)
    if png is None:
        return "", {}
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    shown = "accuracy" + (f" and retrieval {recall}" if recall else " (no retrieval recall that every run measured)")
    text = (f"\n## By question type, side by side\n\nEach run's {shown} per question type, with 95% intervals "
            f"(Wilson for accuracy, bootstrap for recall).\n\n![{shown} by question type]({FIGURE_NAME})\n")
    return text, {FIGURE_NAME: uri}


def _plain(text: str) -> str:
    """Text matplotlib draws as written: a "$" would start mathtext (and an unbalanced one fails the figure),
    a leading "_" would hide a legend entry."""
    return text.replace("$", r"\$").lstrip("_") or "?"


def _kinds(lines: Sequence[ResultLine]) -> dict[str, str]:
    return {str(r["question_id"]): str(r.get("question_type") or "?") for r in lines}


def _accuracy(lines: Sequence[ResultLine]) -> dict[str, tuple[float, tuple[float, float]]]:
    kinds, values = _kinds(lines), accuracy_values(lines)
    out = {}
    for qtype in sorted(set(kinds.values())):
        judged = [v for q, v in values.items() if kinds[q] == qtype]
        if judged:
            k, n = int(sum(judged)), len(judged)
            out[qtype] = (k / n, wilson(k, n))
    return out


def _recall(lines: Sequence[ResultLine], metric: str) -> dict[str, tuple[float, tuple[float, float]]]:
    kinds, values = _kinds(lines), retrieval_values(per_question(lines), metric)
    out = {}
    for qtype in sorted(set(kinds.values())):
        got = [v for q, v in values.items() if kinds[q] == qtype]
        if got:
            out[qtype] = (sum(got) / len(got), bootstrap_mean_ci(got, iterations=INTERVAL_RESAMPLES, seed=BOOTSTRAP_SEED))
    return out


def _shared_recall(runs: Sequence[Sequence[ResultLine]]) -> str | None:
    """The strictest recall every run measured, at the largest k all reach (as the verdict chooses for two)."""
    measured = [per_question(lines) for lines in runs]
    for stem in RECALLS:
        for k in reversed(K_VALUES):
            if all(retrieval_values(m, f"{stem}@{k}") for m in measured):
                return f"{stem}@{k}"
    return None
