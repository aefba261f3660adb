"""Errors a user can act on. The CLI prints their message (no traceback) and exits with `exit_code`
(benchmarker/cli_errors.py is that boundary; Ctrl-C exits 130)."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user: a config key, a data file, a flag. Nothing was started."""

    exit_code = 2


class ConfigError(UserError):
    """A config file problem; the message names the file, the key and the fix."""


class DatasetError(UserError):
    """A dataset file problem; the message names the file, the instance index and the field."""


class MemoryToolError(RuntimeError):
    """The memory server answered a tool call with isError; carries the tool name and its text."""

    def __init__(self, tool: str, message: str):
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.message = message


class IndexNotSearchableError(RuntimeError):
    """A case's writes never became searchable in time: searching now would score a lagging index as
    retrieval misses, so the case fails (errors.jsonl) and re-running the command retries it."""


class ProviderError(RuntimeError):
    """A model provider's service failed us (a batch failed, or outlived `[batch] max_wait_s`): not bad
    input, so exit 1; what finished is saved and the same command resumes."""

    exit_code = 1


class RunAbortedError(RuntimeError):
    """Too many cases failed in a row: something systematic (keys, server, model) is wrong."""

    exit_code = 1


class MemoryServerLost(RunAbortedError):
    """The memory MCP server's connection broke mid-run (the process died, the network went): every case
    in flight is failed into errors.jsonl naming the server, and the run stops with one line; the same
    command resumes once the server answers again."""


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) groups, in order; a plain exception is its own leaf."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]
