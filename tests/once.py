"""A module fixture that is a whole run, built once per test process.

pytest-xdist tears a module-scoped fixture down whenever a worker's queue runs dry (it runs the last
queued item with no next item), so a fixture worth 15-45 s was built again for the module's next test.
What a fixture returns here lives for the worker's life instead; it must not need a teardown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_BUILT: dict[str, Any] = {}


def built_once(key: str, build: Callable[[], Any]) -> Any:
    if key not in _BUILT:
        _BUILT[key] = build()
    return _BUILT[key]
