"""`python -m embedded_memory [flags]`: the same server as `mycelian-longmemeval serve-memory`."""

from __future__ import annotations

import argparse
import sys

from embedded_memory.cli import add_arguments, run
from embedded_memory.masking import redacted_terminal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m embedded_memory",
                                     description="Serve the embedded Mycelian-compatible memory service.")
    add_arguments(parser)
    with redacted_terminal():  # its log is a run file: masked like every other (the service's own masking)
        return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
