"""`serve-memory`: the embedded Mycelian-compatible memory service (MCP over streamable HTTP on /mcp,
or stdio with --transport stdio); its flags are embedded_memory/cli.py's, shared with
`python -m embedded_memory`."""

from __future__ import annotations

import argparse

from benchmarker.commands.base import Command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from embedded_memory.cli import add_arguments as add_serve_arguments

    add_serve_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from embedded_memory.cli import run as serve

    return serve(args)


COMMAND = Command(name="serve-memory", help="serve the embedded memory service over MCP (streamable HTTP, "
                                            "or stdio with --transport stdio)",
                  add_arguments=add_arguments, run=run,
                  description="Serve the embedded Mycelian-compatible memory service (the one `run` starts for "
                              "[memory] backend = \"embedded\") on its own: MCP over streamable HTTP on "
                              "http://HOST:PORT/mcp, or over stdin/stdout with --transport stdio. Stop it with Ctrl-C.",
                  example="mycelian-longmemeval serve-memory --port 11546 --db /tmp/memory.sqlite")
