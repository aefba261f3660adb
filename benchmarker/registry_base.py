"""`Registry[T]`: names to things, in the order they were registered; one shape for suites, judges and verbs.

A registry may be filled on first use (`discover`: called before every read, and cheap once it has run, as
the suite registry's is) or by `register` calls. It reads like a mapping (`in`, `[]`, `.get` -> None, iteration
in order) so callers and tests that treat it as one keep working; `lookup` is the read that fails with a
message a user can act on: "unknown judge 'x': expected one of deterministic, llm, official".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import TypeVar

T = TypeVar("T")


def _nothing() -> None:
    return None


def _no_hint() -> str:
    return ""


class Registry(MutableMapping[str, T]):
    """Name -> T in registration order. `what` names an entry in messages ("judge", "dataset kind")."""

    def __init__(self, what: str, entries: Iterable[tuple[str, T]] = (), *,
                 discover: Callable[[], None] = _nothing, hint: Callable[[], str] = _no_hint) -> None:
        self.what = what
        self.data: dict[str, T] = {}
        self._discover = discover   # fills the registry on first use (it must be cheap once done)
        self._hint = hint           # more words for `lookup`'s message (e.g. the plugins that did not load)
        for name, item in entries:
            self.register(name, item)

    def register(self, name: str, item: T) -> T:
        """Add `item` under `name`, last in order; ValueError when the name is taken."""
        self._discover()
        if name in self.data:
            raise ValueError(f"two entries are both the {self.what} {name!r}; rename one")
        self.data[name] = item
        return item

    def lookup(self, name: str) -> T:
        """The entry named `name`; ValueError naming the known ones when there is none."""
        self._discover()
        found = self.data.get(name)
        if found is None:
            raise ValueError(f"unknown {self.what} {name!r}: expected one of {', '.join(self.data)}{self._hint()}")
        return found

    def __getitem__(self, name: str) -> T:
        self._discover()
        return self.data[name]

    def __setitem__(self, name: str, item: T) -> None:   # a test registering a suite for a while (monkeypatch)
        self._discover()
        self.data[name] = item

    def __delitem__(self, name: str) -> None:
        self._discover()
        del self.data[name]

    def __contains__(self, name: object) -> bool:
        self._discover()
        return name in self.data

    def __iter__(self) -> Iterator[str]:
        self._discover()
        return iter(list(self.data))

    def __len__(self) -> int:
        self._discover()
        return len(self.data)

    def __repr__(self) -> str:
        return f"<{self.what} registry: {self.data!r}>"
