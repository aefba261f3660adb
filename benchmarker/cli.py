"""The one command: `mycelian-longmemeval VERB ...`, verbs named for what the user does (in `--help` order).

    run CONFIG            run (or resume) the benchmark a TOML file describes
    estimate CONFIG       tokens and cost of a run before paying for it
    report RUN_DIR        re-compute summary.json and the report from a run directory's files
    score RUN_DIR CONFIG  judge a finished run's answers again with CONFIG's judge (no re-ingestion)
    replay RUN_DIR CONFIG re-apply a finished run's recorded memory writes to CONFIG's memory backend,
                          then QA and eval with CONFIG's reader and judge (no agent model call)
    judge-online CONFIG   the fact-enumeration judge (P / R / F1) over traced memory-extraction runs
    calibrate CONFIG --labels FILE ...   how far CONFIG's judge agrees with published labels
    oracle RUN_DIR [CONFIG]  the run's questions again with only their gold evidence as context
    baselines RUN_DIR [CONFIG]  the run's questions again with no memory and with the whole history
    view [DIR ...]        browse run directories in a local web page (--bundle OUT: a static copy)
    compare RUN_DIR ...   side by side, per-question flips and a paired significance test
    export RUN_DIR --out NAME.tar.gz  a result bundle: the run's files, their hashes, dataset, config, judge
    verify NAME.tar.gz    check a bundle: hashes, signature, every number re-derived from its lines
    keygen --out PREFIX   an Ed25519 key pair to sign bundles with (export --sign)
    errata derive PUBLISHED CORRECTED --out FILE  an errata file of gold corrections from a corrected copy
    serve-memory          the embedded Mycelian-compatible memory service (MCP over streamable HTTP
                          on /mcp, or stdio with --transport stdio)
    sample PATH           write the generated LongMemEval-format sample dataset

`--help` lists the verbs once (the subparsers'); this list is for readers of the source.
"""

from __future__ import annotations

import argparse
import logging
import sys

from benchmarker.cli_errors import run_verb
from benchmarker.commands import command_named, commands
from benchmarker.redact import redacted_terminal

DESCRIPTION = """Run the LongMemEval memory benchmark (and its other suites) against a memory backend, then
report, re-judge, compare and browse the results. Each verb has its own --help (VERB --help)."""
EPILOG = """typical use:
  mycelian-longmemeval run configs/quickstart.toml          # offline models: no key needed
  mycelian-longmemeval report runs/<run_id>
  mycelian-longmemeval compare runs/<a> runs/<b> --out compare.html

exit codes: 0 done; 1 the run stopped (failures in a row, a lost memory server, a full disk);
2 a usage, config, dataset or run-directory problem (one line says which and how to fix it);
3 `run` finished but the run is INVALID (summary.json's validity says why; its accuracy is not a score);
130 interrupted (everything finished so far is kept: the same command resumes)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mycelian-longmemeval", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging (before or after the verb)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    verbs = parser.add_subparsers(dest="verb", required=True, title="verbs", metavar="VERB")
    for command in commands():  # benchmarker/commands/: one module a verb, in --help order
        sub = verbs.add_parser(command.name, help=command.help, description=command.description,
                               epilog=command.epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
        # `run -v CONFIG` works too; SUPPRESS leaves the top-level -v alone when it is not repeated here
        sub.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                         help="debug logging (same as -v before the verb)")
        command.add_arguments(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mycelian-longmemeval")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with redacted_terminal():
        return run_verb(lambda: _dispatch(args))  # the one error boundary: one line and an exit code


def _dispatch(args: argparse.Namespace) -> int:
    return command_named(args.verb).run(args)


if __name__ == "__main__":
    sys.exit(main())
