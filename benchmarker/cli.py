"""The one command: `mycelian-longmemeval VERB ...`, verbs named for what the user does.

    run CONFIG            run (or resume) the benchmark a TOML file describes
    report RUN_DIR        re-compute summary.json and the report from a run directory's files
    score RUN_DIR CONFIG  judge a finished run's answers again with CONFIG's judge (no re-ingestion)
    replay RUN_DIR CONFIG re-apply a finished run's recorded memory writes to CONFIG's memory backend,
                          then QA and eval with CONFIG's reader and judge (no agent model call)
    compare RUN_DIR ...   side by side, per-question flips and a paired significance test
    judge-online CONFIG   the fact-enumeration judge (P / R / F1) over traced memory-extraction runs
    serve-memory          the embedded Mycelian-compatible memory service (MCP over streamable HTTP
                          on /mcp, or stdio with --transport stdio)
    estimate CONFIG       tokens and cost of a run before paying for it
    calibrate CONFIG --labels FILE ...   how far CONFIG's judge agrees with published labels
    oracle RUN_DIR [CONFIG]  the run's questions again with only their gold evidence as context
    view [DIR ...]        browse run directories in a local web page (--bundle OUT: a static copy)
    sample PATH           write the generated LongMemEval-format sample dataset
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from benchmarker.cli_errors import run_verb
from benchmarker.errors import UserError
from benchmarker.redact import redacted_terminal


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mycelian-longmemeval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    verbs = parser.add_subparsers(dest="verb", required=True)

    run = verbs.add_parser("run", help="run or resume the benchmark described by a TOML config")
    run.add_argument("config", type=Path)

    estimate = verbs.add_parser("estimate", help="estimate tokens and cost of the run a TOML config describes")
    estimate.add_argument("config", type=Path)
    estimate.add_argument("--json", action="store_true",
                          help="print one JSON object (schema_version 1) instead of the tables")

    report = verbs.add_parser("report", help="rebuild summary.json and report.{md,html} from a run directory")
    report.add_argument("run_dir", type=Path)

    score = verbs.add_parser("score", help="re-judge a finished run's answers with the judge a config describes")
    score.add_argument("run_dir", type=Path)
    score.add_argument("config", type=Path, help="a TOML whose [provider], [models].eval and [eval] set the judge")

    replay = verbs.add_parser(
        "replay", help="re-apply a finished run's memory writes into CONFIG's memory backend, then QA and eval "
                       "(no agent model call)")
    replay.add_argument("run_dir", type=Path, help="a finished agent-mode run directory (its decisions.jsonl)")
    replay.add_argument("config", type=Path, help="a TOML whose [memory], [params], [models].qa and [eval] "
                                                  "are used; same dataset and questions as the run")

    online = verbs.add_parser("judge-online", help="the fact-enumeration judge over traced memory-extraction runs "
                              "(LangSmith, or a run's decisions.jsonl)")
    online.add_argument("config", type=Path, help="a TOML with [online] (source, project, tag, since, until) and the judge")
    online.add_argument("--estimate", action="store_true", help="only count what would be judged: tokens and USD")
    calibrate = verbs.add_parser("calibrate", help="measure CONFIG's judge against labelled answers: agreement, "
                                 "Cohen's kappa, confusion, per type and per file")
    calibrate.add_argument("config", type=Path, help="a TOML whose [dataset] file holds the gold answers and whose "
                                                     "[provider], [models].eval and [eval] set the judge")
    calibrate.add_argument("--labels", type=Path, action="append", required=True,
                           help="labelled answers (LongMemEval eval-results JSONL, or {question_id, hypothesis, "
                                "label} lines); repeat for more files")
    calibrate.add_argument("--judge", action="append", default=[], choices=("deterministic", "llm", "official"),
                           help="calibrate this judge instead of the config's (repeat: several judges, same labels)")
    calibrate.add_argument("--json", action="store_true", help="print each judge's summary as one JSON object a line")
    calibrate.add_argument("--estimate", action="store_true", help="only price the judge calls: tokens and USD")
    calibrate.add_argument("--out", type=Path, default=None,
                           help="write ROOT/<judge>/ here (default: <[run] output_dir>/calibration)")
    oracle = verbs.add_parser("oracle", help="re-ask a finished run's questions with only their gold evidence as the "
                              "reader's context: how much of the score memory loses")
    oracle.add_argument("run_dir", type=Path)
    oracle.add_argument("config", type=Path, nargs="?", default=None,
                        help="another reader or judge ([provider], [models].qa / eval, [eval]); default: the run's own")
    oracle.add_argument("--estimate", action="store_true", help="only price the reader and judge calls: tokens and USD")
    view = verbs.add_parser("view", help="browse run directories in a local web page (questions, evidence, compare)")
    from benchmarker.view import add_arguments as add_view_arguments

    add_view_arguments(view)
    compare = verbs.add_parser("compare", help="compare runs: per type, flips, McNemar / paired bootstrap")
    compare.add_argument("run_dirs", type=Path, nargs="+")
    compare.add_argument("--out", type=Path, default=None, help="also write the comparison (markdown) here")

    serve = verbs.add_parser("serve-memory", help="serve the embedded memory service over MCP (streamable HTTP, "
                             "or stdio with --transport stdio)")
    from benchmarker.memory.service.cli import add_arguments

    add_arguments(serve)

    sample = verbs.add_parser("sample", help="write the generated LongMemEval-format sample dataset")
    sample.add_argument("path", type=Path)
    sample.add_argument("--seed", type=int, default=42)
    sample.add_argument("--questions-per-type", type=_int_in(1, 50), default=2, help="1..50 (default 2)")
    sample.add_argument("--sessions-per-question", type=_int_in(3, 200), default=8, help="3..200 (default 8)")
    return parser


def _oracle(run_dir: Path, config_path: Path | None, *, estimate: bool) -> int:
    from benchmarker.eval.fmt import pct
    from benchmarker.eval.outputs import rebuild_outputs
    from benchmarker.run.oracle import estimate_oracle, run_config, run_oracle
    from benchmarker.run.run_lock import hold_run_lock, run_root

    config = run_config(run_dir, config_path)
    if estimate:
        data = estimate_oracle(run_dir, config)
        usd = "no price in [prices]" if data["usd"] is None else f"${data['usd']:,.4f}"
        print(f"oracle: {data['pending']} of {data['questions']} questions to answer and judge: reader "
              f"{data['models']['qa']} ~{data['qa']['input_tokens']:,} tokens in, ~{data['qa']['output_tokens']:,} out; "
              f"judge {data['models']['eval'] or 'deterministic'} ~{data['eval']['input_tokens']:,} in; {usd}")
        return 0
    with hold_run_lock(run_root(run_dir), "oracle"):
        summary, out = asyncio.run(run_oracle(run_dir, config))
        report = rebuild_outputs(run_dir)  # the run's report now shows memory vs gold evidence
    mine = json.loads((run_dir / "summary.json").read_text(encoding="utf-8")).get("qa", {}).get("overall") or {}
    gold = summary.get("qa", {}).get("overall") or {}
    usd = (summary.get("cost") or {}).get("usd", {}).get("total")
    print(f"oracle: {out}\nreport: {report}\naccuracy with memory {pct(mine.get('accuracy'))}, with the gold evidence "
          f"{pct(gold.get('accuracy'))} (n={gold.get('n', 0)}); cost {'n/a' if usd is None else f'${usd:,.4f}'}")
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mycelian-longmemeval")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _int_in(low: int, high: int):
    """An argparse type for an integer in [low, high] (the same ranges as the [dataset] keys)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {value}")
        return value
    return parse


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with redacted_terminal():
        return run_verb(lambda: _dispatch(args))  # the one error boundary: one line and an exit code


def _dispatch(args: argparse.Namespace) -> int:
    if args.verb == "run":
        return _run(args.config)
    if args.verb == "estimate":
        return _estimate(args.config, as_json=args.json)
    if args.verb == "report":
        from benchmarker.eval.outputs import rebuild_outputs
        from benchmarker.run.run_lock import hold_run_lock

        with hold_run_lock(args.run_dir, "report"):  # a run (or another report) rewrites the same files
            path = rebuild_outputs(args.run_dir)
        print(f"report: {path}")
        return 0
    if args.verb == "score":
        from rich.console import Console

        from benchmarker.config import load_config
        from benchmarker.run.console import summary_table
        from benchmarker.run.rescore import rescore
        from benchmarker.run.run_lock import hold_run_lock, run_root

        config = load_config(args.config)
        with hold_run_lock(run_root(args.run_dir), "score"):
            summary, out = asyncio.run(rescore(args.run_dir, config))
        print(f"scores: {out}\nreport: {out / 'report.html'}")
        Console().print(summary_table(summary, f"{args.run_dir.name} re-judged by {out.name}"))
        return 0
    if args.verb == "replay":
        from benchmarker.config import load_config
        from benchmarker.run.replay import execute_replay, print_replay_outcome

        outcome = asyncio.run(execute_replay(args.run_dir, load_config(args.config)))
        print_replay_outcome(outcome, args.run_dir)
        return 0
    if args.verb == "judge-online":
        from benchmarker.config import load_config
        from benchmarker.run.judge_online import estimate_judge_online, run_judge_online

        if args.estimate:
            data = estimate_judge_online(load_config(args.config))
            usd = "no price in [prices]" if data["usd"] is None else f"${data['usd']:,.4f}"
            print(f"{data['runs_to_judge']} runs to judge ({data['already_judged']} already judged) with {data['model']}: "
                  f"~{data['input_tokens']:,} tokens in, ~{data['output_tokens']:,} out, {usd}")
            return 0
        from benchmarker.run.run_lock import hold_run_lock

        config = load_config(args.config)
        config.run_dir.mkdir(parents=True, exist_ok=True)
        with hold_run_lock(config.run_dir, "judge-online"):
            asyncio.run(run_judge_online(config))
        return 0
    if args.verb == "calibrate":
        from benchmarker.run.calibrate import run_calibrate_verb

        return run_calibrate_verb(args)
    if args.verb == "oracle":
        return _oracle(args.run_dir, args.config, estimate=args.estimate)
    if args.verb == "view":
        from benchmarker.view import run_view

        return run_view(args)
    if args.verb == "compare":
        from benchmarker.eval.compare import compare_runs, format_compare

        for run_dir in args.run_dirs:
            if not (run_dir / "results.jsonl").exists():
                raise UserError(f"{run_dir}: no results.jsonl here; is it a run directory (or a sweep point)?")
        text = format_compare(compare_runs(list(args.run_dirs)))
        print(text)
        if args.out:
            from benchmarker.log.jsonl import write_text_atomic

            write_text_atomic(args.out, text)
        return 0
    if args.verb == "serve-memory":
        from benchmarker.memory.service.cli import run as serve

        return serve(args)
    if args.verb == "sample":
        from benchmarker.datasets.sample import write_sample

        if args.path.is_dir():
            raise UserError(f"sample: {args.path} is a directory; give a file path, e.g. "
                            f"{args.path / 'sample_longmemeval.json'}")
        try:
            write_sample(args.path, seed=args.seed, questions_per_type=args.questions_per_type,
                         sessions_per_question=args.sessions_per_question)
        except OSError as err:
            raise UserError(f"sample: cannot write {args.path}: {err.strerror or err}") from None
        print(f"wrote {args.path}")
        return 0
    raise AssertionError(args.verb)


def _estimate(config_path: Path, *, as_json: bool = False) -> int:
    import json
    import tempfile

    from benchmarker.config import load_config
    from benchmarker.run.estimate import estimate_json, estimate_run, format_estimate

    config = load_config(config_path)
    with tempfile.TemporaryDirectory() as scratch:  # generated data is written here, not into runs/
        est = estimate_run(config, Path(scratch))
    print(json.dumps(estimate_json(est, config), indent=2) if as_json else format_estimate(est, config))
    return 0


def _run(config_path: Path) -> int:
    from benchmarker.config import load_config

    config = load_config(config_path)  # raises ConfigError (exit 2) before anything starts
    from benchmarker.run.console import print_outcome
    from benchmarker.run.runner import execute_run

    outcome = asyncio.run(execute_run(config))
    print_outcome(outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main())
