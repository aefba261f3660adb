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
import logging
import sys

from benchmarker.cli_errors import run_verb
from benchmarker.commands import command_named, commands
from benchmarker.redact import redacted_terminal


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mycelian-longmemeval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    verbs = parser.add_subparsers(dest="verb", required=True)
    for command in commands():  # benchmarker/commands/: one module a verb, in --help order
        command.add_arguments(verbs.add_parser(command.name, help=command.help))
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
