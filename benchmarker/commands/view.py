"""`view [DIR ...]`: browse run directories in a local web page (--bundle OUT: a static copy)."""

from __future__ import annotations

import argparse

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from benchmarker.view import add_arguments as add_view_arguments

    add_view_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from benchmarker.view import run_view

    return run_view(args)


COMMAND = Command(name="view", help="browse run directories in a local web page (questions, evidence, compare)",
                  add_arguments=add_arguments, run=run,
                  description="Serve a local web page to browse run directories: each question with its answer, "
                              "verdict, retrieved memories and gold evidence, and two runs side by side. With "
                              "--bundle OUT, write a static copy instead of serving. Reads only; writes nothing "
                              "in the run directories.",
                  example="mycelian-longmemeval view runs/\n"
                          "mycelian-longmemeval view runs/quickstart-1a2b3c4d --bundle /tmp/run-view")
