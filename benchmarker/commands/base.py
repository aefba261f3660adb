"""`Command`: one CLI verb, declared by its own module in `benchmarker/commands/` as `COMMAND`.

`cli.py` adds one subparser per command (name, help, description and example), lets the command add its arguments, and
calls its `run` inside the one error boundary (`cli_errors.run_verb`). A command module imports only
what its arguments need at the top: every module is imported to build the parser, so whatever
`run` needs (models, graphs, the run machinery) is imported inside `run` and `--help` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str                                               # the verb: `mycelian-longmemeval NAME ...`
    help: str                                               # its line in `mycelian-longmemeval --help`
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]                # the exit code
    description: str                                        # the top of `NAME --help`: what it does, reads, writes
    example: str                                            # `NAME --help`'s example: one or more command lines

    def epilog(self) -> str:
        """The example block under `NAME --help`'s options (printed as written: RawDescriptionHelpFormatter)."""
        return "example:\n" + "\n".join(f"  {line}" for line in self.example.strip().splitlines())
