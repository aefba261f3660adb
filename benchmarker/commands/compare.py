"""`compare RUN_DIR ...`: side by side, per-question flips and a paired significance test."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarker.commands.base import Command
from benchmarker.errors import UserError
from benchmarker.registry import SUITE_LOOKUP

OUT_SUFFIXES = (".html", ".md")  # what --out can write: a page for a browser, or markdown for a PR


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN_DIR",
                        help="run directories (or sweep points, runs/<id>/points/<label>); the first is the baseline")
    parser.add_argument("--out", type=Path, default=None,
                        help="also write the comparison here: FILE.html a self-contained page, FILE.md markdown")
    parser.add_argument("--allow-invalid", action="store_true",
                        help="compare runs whose validity verdict is false (each labelled INVALID at the top); "
                             "without it such a run is refused (exit 2): its accuracy is not a score")


def out_format(out: Path) -> str:
    """`html` or `md` by --out's suffix; any other suffix is refused before any run is read."""
    suffix = out.suffix.lower()
    if suffix not in OUT_SUFFIXES:
        raise UserError(f"compare --out {out}: the file must end in .html (a web page) or .md (markdown), "
                        f"not {suffix or 'no suffix'}")
    return suffix[1:]


def run(args: argparse.Namespace) -> int:
    from benchmarker.reporting.compare import compare_runs, format_compare

    kind = out_format(args.out) if args.out else None
    for run_dir in args.run_dirs:
        if not (run_dir / "results.jsonl").exists():
            raise UserError(f"{run_dir}: no results.jsonl here; is it a run directory (or a sweep point)?")
    from benchmarker.reporting.validity_report import invalid_runs

    invalid = invalid_runs(list(args.run_dirs), allow=args.allow_invalid, verb="compare")  # exit 2 unless allowed
    comparison = compare_runs(list(args.run_dirs), SUITE_LOOKUP)
    text = "".join(f"**{line}** (run `{run_dir}`): its accuracy below is not a score.\n\n"
                   for run_dir, line in invalid.items()) + format_compare(comparison, SUITE_LOOKUP)
    print(text)
    if args.out:
        from benchmarker.log.jsonl import write_text_atomic
        from benchmarker.reporting.compare_plots import figure_markdown
        from benchmarker.reporting.report import html_page
        from benchmarker.scoring.records import load_results

        if kind == "html":  # the page carries the per-type figure inline (one file to share)
            figure, images = figure_markdown([(r["name"], load_results(Path(r["run_dir"]))) for r in comparison["runs"]])
            text = html_page(f"Run comparison: {', '.join(r['name'] for r in comparison['runs'])}", text + figure,
                             image_src=images.get)
        write_text_atomic(args.out, text)
    return 0


COMMAND = Command(name="compare", help="compare runs: verdict, per type, flips, McNemar / paired bootstrap",
                  add_arguments=add_arguments, run=run,
                  description="Compare runs side by side against the first (the baseline). It opens with a verdict "
                              "per run (which is ahead on accuracy, or retrieval recall for retrieval-only runs, by "
                              "how much, with its paired interval and test, or within the noise), then a like-for-like "
                              "check (same dataset, questions, judge, top_k, context within 10%; each difference "
                              "one line); runs that share no question are refused (exit 2). Then per question type "
                              "accuracy, recall and nDCG paired with Holm-adjusted p-values, search latency and cost, "
                              "and each run's accuracy per question "
                              "type with Wilson intervals, retrieval recall / nDCG, the questions that flipped, an "
                              "exact McNemar test and a paired bootstrap interval. Printed as markdown; --out also "
                              "writes it as a web page (.html) or markdown (.md).",
                  example="mycelian-longmemeval compare runs/base runs/new --out compare.html")
