"""Third-party code loaded through an entry point, so that nothing it does at import escapes.

A plugin runs arbitrary code when it is imported: `sys.exit(3)`, `raise KeyboardInterrupt`, an
exception from a missing dependency. Each becomes one `UserError` line naming the entry point (the
registry keeps it and says it only when the plugin's kind is asked for); the harness's own kinds never
wait on it. The one exception that still escapes is a real Ctrl-C: while plugins load, SIGINT is
watched, and a KeyboardInterrupt is the user's only if the signal actually arrived.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint
from typing import Any, TypeVar

from benchmarker.errors import UserError
from benchmarker.redact import redact_text

T = TypeVar("T")
MAX_DETAIL = 300   # a plugin's own message, masked then cut: one line, not its whole story


def entry_points_of(group: str) -> tuple[list[EntryPoint], str]:
    """The group's entry points, by name; and why they could not be listed ("" when they could)."""
    from importlib.metadata import entry_points

    try:
        return sorted(entry_points(group=group), key=lambda p: (p.name, p.value)), ""
    except Exception as exc:   # a damaged dist-info somewhere on the path: no plugins, the built-ins go on
        return [], f"the entry points of group {group} could not be listed ({_detail(exc)}); no plugin was loaded"


def describe(point: EntryPoint, group: str) -> str:
    """How a message names an entry point: `the entry point "name = value" (from dist version) of group G`."""
    dist = getattr(point, "dist", None)
    source = f" (from {dist.name} {dist.version})" if dist is not None else ""
    return f'the entry point "{point.name} = {point.value}"{source} of group {group}'


@contextmanager
def watching_sigint() -> Iterator[list[int]]:
    """While plugins load: a list that gets an item when SIGINT really arrives (the usual handler still runs)."""
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived   # signals reach the main thread only: a KeyboardInterrupt here was raised by code
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is None:   # a handler set outside Python: left alone, it cannot be put back
        yield arrived
        return

    def note(signum: int, frame: Any) -> None:
        arrived.append(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        yield arrived
    finally:
        signal.signal(signal.SIGINT, previous)
    if arrived and previous is signal.default_int_handler:
        raise KeyboardInterrupt   # a plugin caught the user's Ctrl-C (and went on, or raised another error)


def load(point: EntryPoint, where: str, ctrl_c: list[int], check: Callable[[Any], T]) -> T:
    """`check(point.load())`; anything the plugin raises, exits or interrupts with is a UserError naming
    `where`, except a KeyboardInterrupt while `ctrl_c` (watching_sigint) says SIGINT arrived."""
    try:
        loaded = point.load()
    except BaseException as exc:   # whatever its import does (its own UserError too): one line
        raise _failure(exc, where, ctrl_c) from None
    try:
        return check(loaded)
    except UserError:
        raise   # check's own verdict, which names `where`
    except BaseException as exc:   # a `name` property that raises, exits, ...
        raise _failure(exc, where, ctrl_c) from None


def _failure(exc: BaseException, where: str, ctrl_c: list[int]) -> UserError:
    """The line for what a plugin did; a real Ctrl-C (SIGINT arrived) is raised again instead."""
    if isinstance(exc, KeyboardInterrupt):
        if ctrl_c:
            raise exc   # the user pressed Ctrl-C: stop, as at any other moment
        why = "it raised KeyboardInterrupt itself (no Ctrl-C was pressed)"
    elif isinstance(exc, SystemExit):
        code = _cut(repr(exc.code)) if isinstance(exc.code, int | str | None) else type(exc.code).__name__
        why = f"it called sys.exit({code})"
    else:
        why = _detail(exc)
    return UserError(f"{where} failed to load: {why}; fix or uninstall it")


def _detail(exc: BaseException) -> str:
    """`Type: message` on one line, masked, cut to MAX_DETAIL characters."""
    try:
        text = " ".join(str(exc).split())
    except Exception:   # a plugin's exception whose __str__ raises too
        text = "(its message could not be read)"
    return _cut(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def _cut(text: str) -> str:
    """`text` masked whole, then cut (a cut first could leave a credential's prefix that masking misses)."""
    masked = redact_text(text)
    return masked if len(masked) <= MAX_DETAIL else masked[:MAX_DETAIL] + "..."
