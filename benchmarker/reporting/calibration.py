"""The files of a calibration: calibration.json (the summary), calibration.jsonl (every
disagreement and unjudged answer) and report.md / report.html (rendered by reporting/markdown_html.py)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from benchmarker.log.confined import make_folders
from benchmarker.log.jsonl import JsonlWriter, write_json_atomic, write_text_atomic
from benchmarker.reporting.calibration_shapes import AgreementFigures, CalibrationSummary, Disagreement
from benchmarker.reporting.fmt import pct
from benchmarker.reporting.markdown_html import fence_for
from benchmarker.reporting.plots import plot_agreement_by_type
from benchmarker.scoring.calibration.store import SUMMARY_FILE

DISAGREEMENTS_FILE = "calibration.jsonl"
FILES = (SUMMARY_FILE, DISAGREEMENTS_FILE, "report.md", "report.html")  # what write_calibration writes


def write_calibration(out_dir: Path, summary: CalibrationSummary, disagreements: list[Disagreement]) -> dict[str, Path]:
    out_dir = Path(out_dir)
    make_folders(out_dir)   # never through a link below a held folder (log/confined.py)
    write_json_atomic(out_dir / SUMMARY_FILE, summary)
    tmp = out_dir / (DISAGREEMENTS_FILE + ".tmp")
    writer = JsonlWriter(tmp)
    for line in disagreements:
        writer.write(dict(line))
    writer.close()
    tmp.replace(out_dir / DISAGREEMENTS_FILE)
    plot = plot_agreement_by_type(summary, out_dir / "plots" / "agreement_by_type.png")
    markdown = render_markdown(summary, disagreements, plot=f"plots/{plot.name}" if plot else None)
    write_text_atomic(out_dir / "report.md", markdown)
    from benchmarker.reporting.report import html_page

    write_text_atomic(out_dir / "report.html", html_page(f"Judge calibration: {summary['judge']['label']}", markdown,
                                                         image_src=lambda rel: _data_uri(out_dir, rel)))
    return {name: out_dir / name for name in FILES}


def _data_uri(out_dir: Path, rel: str) -> str | None:
    """A figure inlined, so report.html is one self-contained file."""
    path = out_dir / rel
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii") if path.is_file() else None


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _kappa(value: float | None) -> str:
    """Kappa, or why there is none: a constant rater leaves it undefined (agreement.py)."""
    return "undefined" if value is None else f"{value:.3f}"


def _ci(ci: list[float] | None) -> str:
    return "n/a" if not ci else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _row(name: str, b: AgreementFigures) -> str:
    c = b["confusion"]
    return (f"| {name} | {b['n']} | {pct(b['agreement'])} | {_kappa(b['kappa'])} | {_ci(b['kappa_ci95'])} "
            f"| {c['tp']} | {c['fn']} | {c['fp']} | {c['tn']} | {_num(b['precision'])} | {_num(b['recall'])} "
            f"| {b['unjudged']} |")


HEAD = ["| | n | agreement | kappa | kappa 95% CI | both correct | label correct, judge wrong "
        "| label wrong, judge correct | both wrong | precision | recall | unjudged |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]


def render_markdown(summary: CalibrationSummary, disagreements: list[Disagreement], plot: str | None = None) -> str:
    judge = summary["judge"]
    models = ", ".join(f"{m or 'unknown'} ({n})" for m, n in summary["labels_models"].items())
    out = [f"# Judge calibration: {judge['label']}", "",
           f"- judge: {judge['kind']}" + (f" ({judge['model']})" if judge.get("model") else "") + f"; {judge['note']}",
           f"- labels: {', '.join(f['file'] for f in summary['labels'])}; labelled by {models}",
           f"- gold: `{summary['dataset_file']}`",
           f"- Cohen's kappa {_kappa(summary['kappa'])} {_ci(summary['kappa_ci95'])}, agreement {pct(summary['agreement'])} "
           f"on {summary['n']} answers ({summary['unjudged']} unjudged); kappa interval: seeded bootstrap "
           f"({summary['bootstrap']['iterations']} resamples of the answers)",
           "- precision / recall are those of the judge's \"correct\" against the labels' \"correct\"", "",
           *_development_lines(summary)]
    snapshot = summary.get("tokens")
    tokens = snapshot.get("total") if snapshot else None
    if tokens and tokens.get("calls"):
        usd = "no price in [prices]" if tokens.get("cost_usd") is None else f"${tokens['cost_usd']:,.4f}"
        out += [f"- judge tokens: {tokens.get('input_tokens', 0):,} in, {tokens.get('output_tokens', 0):,} out "
                f"over {tokens['calls']} calls, {usd}", ""]
    if fit := summary.get("development_fit"):
        out += ["## Held out (the calibration)", ""]
        out += [*HEAD, _row("**held out**", held)] if (held := summary.get("held_out")) else \
            ["None: every labels file given was used in developing this judge."]
        out += ["", "## Development fit (not a calibration)", "", *HEAD, _row("**development fit**", fit), ""]
    out += ["## All files together" if summary.get("development_fit") else "## All", "", *HEAD,
            _row("**all**", summary), "", "## By question type", "",
            "`_abs` questions count in their type and again in the abstention row.", "", *HEAD]
    out += [_row(t, b) for t, b in summary["by_type"].items()]
    out += ["", f"![agreement by question type]({plot})"] if plot else []
    out += ["", "## By labels file", "", *HEAD]
    developed = {f["file"] for f in summary.get("labels") or [] if f.get("development")}
    out += [_row(f + (" (development)" if f in developed else ""), b) for f, b in summary["by_file"].items()]
    return "\n".join(out + _disagreement_lines(summary, disagreements)) + "\n"


def _development_lines(summary: CalibrationSummary) -> list[str]:
    """Which labels files shaped the judge: their agreement is a fit, never presented as the calibration."""
    developed = [f for f in summary.get("labels") or [] if f.get("development")]
    if not developed:
        return []
    held = summary.get("held_out")
    out = ["> " + ("The calibration is the held-out files only. " if held else
                   "No held-out labels: every labels file given was used in developing this judge, so the figures "
                   "below are a development fit, not a calibration. ")
           + "A judge agrees better with answers it was developed on than with answers it never saw.", ""]
    out += [f"- development file `{f['file']}`: {f['development']}" for f in developed]
    fit = summary.get("development_fit") or {}   # a development file given: its answers' fit
    out.append(f"- development fit (not a calibration): kappa {_kappa(fit['kappa'])}, agreement {pct(fit['agreement'])} "
               f"on {fit['n']} answers")
    if held:
        out.append(f"- **held out (the calibration)**: kappa {_kappa(held['kappa'])} {_ci(held['kappa_ci95'])}, "
                   f"agreement {pct(held['agreement'])} on {held['n']} answers")
    return out + [""]


def _disagreement_lines(summary: CalibrationSummary, disagreements: list[Disagreement]) -> list[str]:
    """Every disagreement, grouped by labels file (the files' own order), each answer whole but collapsed:
    the judge's reason often refers to an answer's last sentence, so a cut answer cannot be checked."""
    wrong = [d for d in disagreements if not d.get("unjudged")]
    out = ["", "## Disagreements", "", f"{len(wrong)} disagreements, all listed here by labels file "
           "(also in `calibration.jsonl`); click an answer to open it.", ""]
    files = list(dict.fromkeys([*(f["file"] for f in summary.get("labels") or []), *(d["file"] for d in wrong)]))
    for name in files:
        mine = [d for d in wrong if d["file"] == name]
        if mine:
            out += [f"### {name}: {len(mine)} disagreement{'s' if len(mine) != 1 else ''}", ""]
            out += [line for d in mine for line in _disagreement(d)]
    return out


def _disagreement(d: Disagreement) -> list[str]:
    """One disagreement; the answer in a fence longer than any backtick run in it, so no answer can end it."""
    answer = str(d["answer"])
    fence = fence_for(answer)
    return [f"#### {d['question_id']} ({d['question_type']}, {d['file']}:{d['line']})", "",
            f"- question: {_flat(d['question'])}", f"- gold: {_flat(d['gold'])}",
            f"- label: {'correct' if d['label'] else 'wrong'}; judge: {'correct' if d['verdict'] else 'wrong'} "
            f"({_flat(d['reason'])})", "",
            f"<details><summary>answer ({len(answer):,} characters)</summary>", "", fence, answer, fence, "",
            "</details>", ""]


def _flat(text: Any) -> str:
    """One line (a list item cannot span lines), whole."""
    return " ".join(str(text).split())
