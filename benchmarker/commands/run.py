"""`run CONFIG`: run (or resume) the benchmark a TOML file describes."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarker.commands.base import Command

if TYPE_CHECKING:
    from benchmarker.reporting.summary_model import RunSummary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, metavar="CONFIG",
                        help="the run's TOML (see configs/: quickstart.toml runs offline with no key)")


def run(args: argparse.Namespace) -> int:
    from benchmarker.config import load_config

    config = load_config(args.config)  # raises ConfigError (exit 2) before anything starts
    from benchmarker.run.console import print_outcome
    from benchmarker.run.runner import execute_run, sweep_points

    points = sweep_points(config.sweep, config.params.top_k, config.memory.search_alpha)
    complete = finished_questions(config.run_dir, [p.label for p in points])
    if complete is not None:  # nothing left to run: no per-question progress lines for work an earlier run did
        config = config.model_copy(update={"run": config.run.model_copy(update={"progress": False})})
    outcome = asyncio.run(execute_run(config))
    if complete is not None:
        print(already_complete_line(complete, config.run_dir, config.run.mode))
    print_outcome(outcome)
    return INVALID_EXIT_CODE if invalid_points(outcome.points) else 0


INVALID_EXIT_CODE = 3  # the run finished, but its number is not a score (summary.json's validity)


def invalid_points(points: list[tuple[str, Path, RunSummary]]) -> list[str]:
    """The results directories whose summary's validity verdict is false ("" names a plain run's)."""
    return [label for label, _, summary in points if summary.validity is not None and summary.validity.valid is False]


def finished_questions(run_dir: Path, labels: list[str]) -> int | None:
    """The question count when an earlier attempt finished and every point has a results line for every
    question (a re-run then has nothing to do); None when there is work left, or no earlier run."""
    from benchmarker.log.jsonl import read_json_object, read_jsonl

    manifest = read_json_object(run_dir / "manifest.json")
    total = (manifest.get("dataset") or {}).get("questions")
    if manifest.get("status") != "finished" or not isinstance(total, int) or total <= 0:
        return None
    for label in labels:
        answers_dir = run_dir / "points" / label if label else run_dir
        scored = {r.get("question_id") for r in read_jsonl(answers_dir / "results.jsonl") if not r.get("round")}
        if len(scored) < total:
            return None
    return total


def already_complete_line(total: int, run_dir: Path, mode: str) -> str:
    """Says why a re-run printed no progress, and how to get a fresh run instead of this one."""
    did = "searched and scored" if mode == "retrieval" else "answered and judged"
    return (f"already complete: {total} of {total} questions {did}; nothing to do (the report was rebuilt). "
            f"To start fresh, remove {run_dir} or set a new run_id (or [run] output_dir) in the config.")


DESCRIPTION = """Run the benchmark a TOML config describes: ingest each case's sessions into memory, answer its
questions, judge the answers, then write summary.json and report.{md,html}.

Output: <[run] output_dir>/<run_id>/ (output_dir defaults to runs/ beside the config; run_id is the
config's top-level run_id key, else <config file stem>-<hash of the config>). The same config always
lands in the same directory.

Resume: running the same command again picks up where it stopped (finished cases are kept, failed ones
retried). To start fresh, remove that directory, or set another run_id or [run] output_dir.

Exit codes: 0 done, and the run is valid; 1 the run stopped (max_failures_in_a_row failures, a lost memory
server, a full disk: see errors.jsonl, fix, run again to resume); 2 a config, dataset or run-directory problem
(one line names the key and the fix); 3 the run finished but is INVALID (cases that did not finish, failed
searches, a memory gone between phases, unjudged answers...: summary.json's `validity` and the first line of
the table say which; its accuracy is not a score; re-running the same command retries failed cases);
130 interrupted (the same command resumes)."""

COMMAND = Command(name="run", help="run or resume the benchmark described by a TOML config",
                  add_arguments=add_arguments, run=run, description=DESCRIPTION,
                  example="mycelian-longmemeval run configs/quickstart.toml\n"
                          "mycelian-longmemeval -v run configs/openai.toml     # OPENAI_API_KEY set")
