"""The one error boundary around every CLI verb (`cli.main` calls `run_verb` once).

An expected error prints `error: <message>` (credentials masked) on stderr and exits with its
documented code: a `UserError` (config, dataset, flag, run directory in use) 2, a `RunAbortedError`
(`[run].max_failures_in_a_row` cases or judge calls failed in a row) 1, Ctrl-C 130. Whatever the
run path wrapped them in is unwrapped first: asyncio and anyio task groups raise (nested)
`BaseExceptionGroup`s, whose sibling cancellations are noise. A full disk (ENOSPC, EDQUOT, EFBIG,
SQLite's "database or disk is full") anywhere in what arrived is one line naming the file, exit 1
(disk_full.py). Anything else is a bug in the harness (or in a library under it) and keeps its
traceback.

Not an error, so not here: `run` returns 3 itself when the run finished but its validity verdict is false
(commands/run.py INVALID_EXIT_CODE; scoring/validity.py): the table says why, and the number is not a score.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable

from benchmarker import disk_full
from benchmarker.errors import ProviderError, RunAbortedError, UserError, leaves
from benchmarker.redact import redact_text

EXPECTED = (UserError, ProviderError, RunAbortedError, KeyboardInterrupt)
RESUME_HINT = "see errors.jsonl in the run directory; fix the cause and run the same command again to resume."
DISK_FULL_HINT = f"the disk looks full: {disk_full.HINT}."
INTERRUPTED = "\ninterrupted: everything finished so far is saved; run the same command again to resume."


def expected_cause(exc: BaseException) -> BaseException | None:
    """The expected error `exc` stands for, or None when it is (or holds) a bug.

    A group counts as its first expected leaf when every other leaf is a cancellation (the
    siblings a task group cancelled because of it) or expected too; a group holding any other
    exception is a bug and is left whole, so its traceback shows every leaf."""
    found = leaves(exc)
    causes = [leaf for leaf in found if not isinstance(leaf, asyncio.CancelledError)]
    if causes and all(isinstance(leaf, EXPECTED) for leaf in causes):
        return causes[0]
    return None


def run_verb(verb: Callable[[], int]) -> int:
    """Run one verb; print an expected error as one line and return its exit code, re-raise the rest."""
    try:
        return verb()
    except BaseException as exc:
        cause = expected_cause(exc)
        full = disk_full.find(exc) if not isinstance(cause, KeyboardInterrupt) else None
        if full is not None:
            print(f"error: {redact_text(full.line())}", file=sys.stderr)
            return disk_full.EXIT_CODE
        if cause is None:
            raise
        return report(cause)


def report(cause: BaseException) -> int:
    """Print an expected error for the user; return its exit code."""
    if isinstance(cause, KeyboardInterrupt):
        print(INTERRUPTED, file=sys.stderr)
        return 130
    print(f"error: {redact_text(str(cause))}", file=sys.stderr)
    if isinstance(cause, RunAbortedError):
        print(DISK_FULL_HINT if disk_full.mentions_disk_full(str(cause)) else RESUME_HINT, file=sys.stderr)
        return RunAbortedError.exit_code
    return getattr(cause, "exit_code", 2)
