"""report.md + a self-contained report.html (+ plots/*.png) for one run directory.

The markdown is the source; the HTML is rendered from it with the plots inlined as base64
data URIs and the CSS inline, so the file can be mailed or attached to a PR as is. Other
suites (levels, fact extraction, self-improve) append their own (title, markdown) sections.
Order: what the run was, QA accuracy (then LoCoMo's table on a LoCoMo run), retrieval, sweep, where
answers were lost (attribution, oracle), worst questions, cost and speed. A retrieval-only run (no agent,
reader or judge) gets no QA section, its worst questions by retrieval, and speed without cost
(retrieval_report.py).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarker.log.jsonl import write_text_atomic
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.attribution_report import attribution_section
from benchmarker.reporting.baselines_report import baselines_section
from benchmarker.reporting.cost_report import cost_section
from benchmarker.reporting.errata_report import errata_section
from benchmarker.reporting.fmt import num, pct
from benchmarker.reporting.markdown_html import render
from benchmarker.reporting.plots import (
    measured_ks,
    metric_value,
    plot_accuracy_by_type,
    plot_recall_curves,
    plot_sweep_heatmap,
)
from benchmarker.reporting.retrieval_report import (
    WORST_LIMIT,
    clip,
    evidence_session_ids,
    hits_table,
    index_description,
    retrieval_header,
    worst_by_retrieval,
)
from benchmarker.reporting.section_render import chart_lines, section_lines
from benchmarker.reporting.suite_parts import SuiteLookup, suites_of_summary
from benchmarker.reporting.summary import is_retrieval_only
from benchmarker.reporting.summary_block import Cell
from benchmarker.reporting.summary_metric_blocks import CountsBlock, QaBlock, RetrievalBlock, TaskAveraged
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.summary_run_block import MemoryAgentInfo
from benchmarker.reporting.sweep_shapes import SweepHeatmap
from benchmarker.reporting.validity_report import banner, struck, validity_section
from benchmarker.scoring.calibration.store import calibration_line
from benchmarker.scoring.qa_metrics import shown_rows
from benchmarker.scoring.retrieval_metrics import evidence_sets, question_retrieval

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1.2em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #4C72B0;padding-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd}
h3{margin-top:1.4em;font-size:1.05em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}th,td{border:1px solid #ccc;padding:.25em .6em;
text-align:left;vertical-align:top}th{background:#f0f3f8}tr:nth-child(even) td{background:#fafafa}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px;font-size:.9em}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto}figure{margin:1em 0}img{max-width:100%}
blockquote{border-left:4px solid #e0a030;background:#fff8e6;margin:1em 0;padding:.5em 1em}
ul{padding-left:1.4em}li{margin:.15em 0}
"""


def html_page(title: str, markdown: str, image_src: Callable[[str], str | None] = lambda rel: None) -> str:
    """One self-contained HTML page (inline CSS) for a markdown document: every report, calibration and
    comparison page looks the same, and its title and text are escaped in one place (markdown_html.py)."""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head>\n<body>\n{render(markdown, image_src=image_src)}\n</body></html>\n")


def _judge_models(summary: RunSummary) -> str:
    """The judge's models; an offline run's deterministic grader calls none, which "none" made look like a fault."""
    models = ", ".join((summary.counts.judge_models or []) if summary.counts is not None else [])
    return models or ("offline (no model call)" if summary.offline else "none")


def _ci(c: Cell) -> str:
    return "n/a" if not c.ci95 else f"[{100 * c.ci95[0]:.1f}, {100 * c.ci95[1]:.1f}]"


def _header(summary: RunSummary, retrieval_only: bool) -> list[str]:
    counts, run = summary.counts or CountsBlock(), summary.run
    out = [f"# Benchmark report: {summary.run_id or 'run'}", ""]
    if retrieval_only:
        out += retrieval_header(summary)
    else:
        if summary.offline:
            out += ["> **Offline run.** Deterministic agent, extractive reader and deterministic grader: "
                    "a reproducible floor, not a model's score.", ""]
        judges = ", ".join(f"{k} ({v})" for k, v in (counts.judges or {}).items()) or "none"
        out += [f"- questions: {counts.questions or 0} (judged {counts.judged or 0}, "
                f"unjudged {counts.unjudged or 0}, abstention {counts.abstention or 0})",
                f"- judge: {judges}; models: {_judge_models(summary)}"]
        out += [line for line in [calibration_line(summary.block("judge_calibration"))] if line]
        legacy = run.model_extra or {}  # keys older versions wrote into run
        out += [f"- {key}: `{legacy[key]}`" for key in ("dataset", "provider", "models")
                if legacy.get(key) not in (None, "", {})]
        if run.memory_agent is not None:
            out.append(f"- memory agent: {agent_writes(run.memory_agent)}")
        if (run.memory is not None and not run.memory.is_empty()) or run.top_k is not None:
            out.append(f"- memory searched: {index_description(run)}")  # an outside agent searched itself
    if (rescored := run.rescored) is not None:
        out.insert(2, f"> **Re-judged answers** of run `{rescored.of_run}` by `{rescored.judge}`"
                      + (f" ({rescored.model})" if rescored.model else "")
                      + f", thresholds {rescored.thresholds}; the run's own report is `{rescored.original_report}`.")
        out.insert(3, "")
    out += [f"- {name}: `{value}`" for value, name in ((run.started_at, "started"), (run.config, "config")) if value]
    told = ("offline run", "retrieval-only run")  # already said above
    out += [f"- note: {n}" for n in summary.notes or [] if not n.startswith(told)]
    return out + [""]


def agent_writes(agent: MemoryAgentInfo) -> str:
    """How the memory agent wrote: ingest unit, who typed raw_entry, how often the context was written."""
    raw = ("harness (the model named each message; the harness stored its text)" if agent.raw_entry == "harness"
           else "model (the model re-typed each message)")
    every = agent.context_every_sessions or 1
    context = ("on the message cadence" if agent.context_update != "session"
               else "once per session" if every == 1 else f"every {every} sessions")
    return f"ingest unit {agent.ingest_unit}, raw_entry {raw}, context written {context}"


def _qa_section(summary: RunSummary, plot: Path | None) -> list[str]:
    qa = summary.qa or QaBlock()
    out = ["## QA accuracy", ""]
    if not qa.judged:
        return out + ["No judged answers (no questions, or every answer unjudged).", ""]
    out += ["| | n | correct | accuracy | 95% CI | unjudged |", "|---|---|---|---|---|---|"]
    rows = [("**overall**", qa.overall or Cell()),
            *((name, Cell.model_validate(c)) for name, c in shown_rows(qa.as_dict()))]
    for name, c in rows:
        out.append(f"| {name} | {c.n} | {c.correct} | {struck(summary, pct(c.accuracy))} | {_ci(c)} | {c.unjudged} |")
    ta = qa.task_averaged or TaskAveraged()
    averaged = struck(summary, pct(ta.accuracy))
    out += ["", f"Task-averaged accuracy (mean over {ta.n_types or 0} types): **{averaged}**", ""]
    return out + ([f"![accuracy by type](plots/{plot.name})", ""] if plot else [])


def _retrieval_section(r: RetrievalBlock, plot: Path | None) -> list[str]:
    out = ["## Retrieval", ""]
    if not r.available:
        return out + [f"- {n}" for n in (r.notes if r.notes is not None else ["no retrieval data"])] + [""]
    m, n = r.metrics or {}, r.n or {}
    out += ["Means over non-abstention questions with evidence (LongMemEval definitions).", "",
            "| k | session recall_any | session recall_all | session ndcg_any | turn recall_any "
            "| turn recall_all | turn ndcg_any | n (session/turn) |", "|---|---|---|---|---|---|---|---|"]
    for k in measured_ks(r):  # a k above top_k was never measured: the notes say so, no row of n/a
        vals = [num(m.get(f"{lvl}.{met}@{k}")) for lvl in ("session", "turn")
                for met in ("recall_any", "recall_all", "ndcg_any")]
        out.append(f"| {k} | " + " | ".join(vals) + f" | {n.get(f'session@{k}', 0)}/{n.get(f'turn@{k}', 0)} |")
    out += [""] + [f"- {note}" for note in r.notes or []] + [""]
    caption = f"Plotted at the k values this run measured (k = {', '.join(map(str, measured_ks(r)))})."
    out += ([f"![recall at k](plots/{plot.name})", "", caption, ""] if plot else []) + _retrieval_by_type(r)
    return out


def _retrieval_by_type(r: RetrievalBlock) -> list[str]:
    n = r.n or {}
    usable = [k for k in r.k_values or [] if n.get(f"session@{k}") or n.get(f"turn@{k}")]
    if not usable or not r.by_type:
        return []
    k = max(x for x in usable if x <= 10) if any(x <= 10 for x in usable) else usable[0]
    out = [f"By question type, k = {k}:", "",
           "| type | session recall_any | session recall_all | turn recall_any | turn recall_all | n |",
           "|---|---|---|---|---|---|"]
    for qtype, block in r.by_type.items():
        m = block.metrics or {}
        out.append(f"| {qtype} | {num(m.get(f'session.recall_any@{k}'))} | {num(m.get(f'session.recall_all@{k}'))} "
                   f"| {num(m.get(f'turn.recall_any@{k}'))} | {num(m.get(f'turn.recall_all@{k}'))} "
                   f"| {(block.n or {}).get(f'session@{k}', 0)} |")
    return out + [""]


def _sweep_section(sweep: SweepHeatmap, plot: Path | None) -> list[str]:
    metric = sweep.get("metric", "session.recall_all@10")
    out = ["## Sweep: alpha x top_k", "", f"Metric: `{metric}`", ""]
    if plot:
        out += [f"![sweep heatmap](plots/{plot.name})", ""]
    points = sorted(sweep.get("points") or [], key=lambda p: (p["alpha"], p["top_k"]))
    qa = any(metric_value(p.get("summary") or {}, "qa.overall.accuracy") is not None for p in points)
    out += ["| alpha | top_k | " + metric + (" | QA accuracy |" if qa else " |"),
            "|---|---|---|" + ("---|" if qa else "")]
    for p in points:
        s = p.get("summary") or {}
        out.append(f"| {p['alpha']:g} | {p['top_k']} | {num(metric_value(s, metric))} |"
                   + (f" {pct(metric_value(s, 'qa.overall.accuracy'))} |" if qa else ""))
    return out + [""]


def _retrieval_miss(record: ResultLine) -> int:
    k = int(record.get("top_k") or len(record.get("retrieved") or []) or 1)
    per_q = question_retrieval(record, ks=(k,)) or {}
    hit = (per_q.get("session") or {}).get(f"recall_any@{k}")
    return 0 if hit == 0.0 else 1  # evidence never retrieved sorts first: the memory's fault


def _worst_section(results: Sequence[ResultLine]) -> list[str]:
    wrong = [r for r in results if r.get("label") is False]
    unjudged = [r for r in results if r.get("label") is None and r.get("grade")]
    out = ["## Worst questions", ""]
    if not wrong and not unjudged:
        return out + ["No incorrect or unjudged answers.", ""]
    chosen = sorted(wrong, key=lambda r: (_retrieval_miss(r), str(r.get("question_type")), str(r.get("question_id"))))
    chosen = (chosen + unjudged)[:WORST_LIMIT]
    out.append(f"{len(wrong)} incorrect and {len(unjudged)} unjudged answers; showing {len(chosen)} of them in this "
               "order: incorrect answers whose evidence was never retrieved, the other incorrect answers, then the "
               "unjudged. ✔ marks a hit from an evidence session, ✔ turn the evidence turn itself.")
    for r in chosen:
        state = "unjudged" if r.get("label") is None else "incorrect"
        evidence = evidence_sets(r)
        out += ["", f"### `{r.get('question_id')}` ({r.get('question_type')}, {state})", "",
                f"- question: {clip(r.get('question'), 400)}",
                f"- answer: {clip(r.get('answer'), 400)}",
                f"- hypothesis: {clip(r.get('hypothesis'), 400)}",
                f"- grade: {clip((r.get('grade') or {}).get('reason'), 300)}",
                f"- evidence sessions: {', '.join(f'`{s}`' for s in evidence_session_ids(evidence)) or 'none'}"]
        out += hits_table(r, evidence)
    return out + [""]


def _data_uri(run_dir: Path, rel: str) -> str | None:
    path = run_dir / rel
    if not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def render_markdown(run_dir: Path, summary: RunSummary, results: Sequence[ResultLine], *, suites: SuiteLookup,
                    sweep: SweepHeatmap | None = None,
                    extra_sections: list[tuple[str, str]] | tuple = ()) -> str:
    """Draw the plots into run_dir/plots and return the report markdown. The sections read the typed summary;
    suites' hooks get it as written (`raw`, the file's dict)."""
    plots = Path(run_dir) / "plots"
    raw = summary.as_dict()
    retrieval_only = is_retrieval_only(raw.get("run", {}))
    lines = _header(summary, retrieval_only)
    lines[2:2] = banner(summary)  # an invalid run says so first (scoring/validity.py)
    if not retrieval_only:  # nothing was answered: no accuracy to show, not even "no judged answers"
        lines += _qa_section(summary, plot_accuracy_by_type(summary.qa or QaBlock(), plots / "accuracy_by_type.png"))
        lines += errata_section(summary)  # as published and as corrected, with [dataset] errata
        for suite in suites_of_summary(suites, summary):
            lines += [line for section in suite.reporting.qa_sections(raw) for line in [*section_lines(section), '']]
            lines += [line for chart in suite.reporting.report_charts(raw) for line in chart_lines(chart, plots)]
    retrieval = summary.retrieval or RetrievalBlock()
    lines += _retrieval_section(retrieval, plot_recall_curves(retrieval, plots / "recall_at_k.png"))
    if sweep and sweep.get("points"):
        lines += _sweep_section(sweep, plot_sweep_heatmap(sweep, plots / "sweep_heatmap.png"))
    lines += validity_section(summary)
    lines += attribution_section(summary, plots)
    lines += baselines_section(summary, plots)
    lines += worst_by_retrieval(results) if retrieval_only else _worst_section(results)
    lines += cost_section(summary, retrieval_only)
    for title, body in extra_sections:
        lines += [f"## {title}", "", body.rstrip(), ""]
    return "\n".join(lines)


def write_report(run_dir: Path, summary: RunSummary, results: Sequence[ResultLine], *, suites: SuiteLookup,
                 sweep: SweepHeatmap | None = None,
                 extra_sections: list[tuple[str, str]] | tuple = ()) -> dict[str, Path]:
    """Write report.md, report.html and plots/*.png into run_dir; return their paths."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(run_dir, summary, results, suites=suites, sweep=sweep, extra_sections=extra_sections)
    md_path, html_path = run_dir / "report.md", run_dir / "report.html"
    write_text_atomic(md_path, markdown)
    write_text_atomic(html_path, html_page(f"Benchmark report: {summary.run_id or run_dir.name}", markdown,
                                           image_src=lambda rel: _data_uri(run_dir, rel)))
    return {"markdown": md_path, "html": html_path,
            **{p.stem: p for p in sorted((run_dir / "plots").glob("*.png"))}}
