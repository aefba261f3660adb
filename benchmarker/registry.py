"""The benchmark suites by name: the one place the harness spells a dataset kind.

A suite (benchmarker/suites/<name>/) owns everything one benchmark does differently: its config
rules, how it plans cases, how it scores an answer, its summary block and report section. Every
other module asks this registry for the suite, by the config's `[dataset].kind` (`suite`) or by
the `kind` a case, answer or result line carries (`suite_of_record`), and never tests a kind.

Suites are discovered, not listed: on first use (never at import, so this module stays cheap and
every stage may import it) the registry imports each subpackage of `benchmarker.suites` and takes
its module-level `SUITE`, then loads every entry point of the group `mycelian_longmemeval.suites`
(a `Suite` instance, or a module exposing `SUITE`). A suite's `name` is its dataset kind; its
`record_kinds` are the line kinds it scores (the first suite in order claiming one wins: the
generated sample inherits LongMemEval's "longmemeval"). Adding a benchmark: one package under
benchmarker/suites/ exposing `SUITE`, nothing else to edit; or a pip package declaring the entry
point (`[project.entry-points."mycelian_longmemeval.suites"] name = "pkg:SUITE"`). A suite whose
name another already has is an error naming both.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, overload

from benchmarker.errors import UserError
from benchmarker.log.records import DEFAULT_RECORD_KIND

if TYPE_CHECKING:
    from benchmarker.datasets.source import DatasetPlan
    from benchmarker.suites.base import Suite

SUITES_PACKAGE = "benchmarker.suites"
ENTRY_POINT_GROUP = "mycelian_longmemeval.suites"
# The order the docs and messages list the built-in kinds in; any other built-in follows (by name),
# then the entry-point suites (by name). Only the order: a kind missing here is still found.
BUILTIN_ORDER = ("longmemeval", "sample", "long_horizon", "levels", "fact_extraction", "locomo", "beam")



class _Discovered(MutableMapping[str, str]):
    """A table filled by discovery on first use; entries may still be set (a test registering a suite)."""

    def __init__(self, what: str) -> None:
        self._what = what
        self.data: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        _discover()
        return self.data[key]

    def __setitem__(self, key: str, value: str) -> None:
        _discover()
        self.data[key] = value

    def __delitem__(self, key: str) -> None:
        _discover()
        del self.data[key]

    def __contains__(self, key: object) -> bool:
        _discover()
        return key in self.data

    def __iter__(self) -> Iterator[str]:
        _discover()
        return iter(list(self.data))

    def __len__(self) -> int:
        _discover()
        return len(self.data)

    def __repr__(self) -> str:
        return f"<{self._what}: {self.data!r}>" if _done else f"<{self._what}: not discovered yet>"


class _Kinds(Sequence[str]):
    """The dataset kinds, in registry order: a live view of SUITES' keys."""

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return tuple(SUITES)[index]

    def __len__(self) -> int:
        return len(SUITES)

    def __iter__(self) -> Iterator[str]:
        return iter(SUITES)

    def __contains__(self, kind: object) -> bool:
        return kind in SUITES

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(tuple(self))


# [dataset].kind -> where its suite is (a module exposing SUITE, or "module:attribute"), in order.
SUITES: _Discovered = _Discovered("SUITES")
# The `kind` a line carries -> the dataset kind whose suite scores it (the generated sample writes
# LongMemEval-format cases, so its lines say "longmemeval").
RECORD_KINDS: _Discovered = _Discovered("RECORD_KINDS")
DATASET_KINDS: Sequence[str] = _Kinds()

_loaded: dict[str, Suite] = {}
_lock = threading.RLock()
_done = False
_discovering = False


def _as_suite(obj: Any, where: str) -> Suite:
    """The Suite an entry point or module gives (a module: its SUITE); UserError naming `where` if none."""
    base = importlib.import_module("benchmarker.suites.base")   # by name: suites come after the registry
    if isinstance(obj, ModuleType):
        obj = getattr(obj, "SUITE", None)
    if not isinstance(obj, base.Suite):
        raise UserError(f"{where} is not a benchmark suite: expected a Suite instance (benchmarker.suites.base) "
                        f"or a module exposing SUITE, got {type(obj).__name__}")
    if not obj.name or not isinstance(obj.name, str):
        raise UserError(f"{where}: its suite {type(obj).__name__} has no `name` (the dataset kind it runs)")
    return obj


def _load(locator: str) -> Suite:
    """The suite at "module" (its SUITE) or "module:attribute"."""
    module, _, attribute = locator.partition(":")
    obj: Any = importlib.import_module(module)
    for part in filter(None, attribute.split(".")):
        obj = getattr(obj, part)
    return _as_suite(obj, locator)


def _builtin_suites() -> list[tuple[str, Suite]]:
    """(module, suite) of every subpackage of benchmarker.suites exposing SUITE, in BUILTIN_ORDER."""
    import pkgutil

    package = importlib.import_module(SUITES_PACKAGE)
    found: dict[str, tuple[str, Suite]] = {}
    for info in pkgutil.iter_modules(package.__path__, SUITES_PACKAGE + "."):
        if not info.ispkg:
            continue
        module = importlib.import_module(info.name)
        if getattr(module, "SUITE", None) is None:
            continue   # a helper package, not a benchmark
        got = _as_suite(module, f"the suite package {info.name}")
        if got.name in found:
            raise UserError(f'two suite packages are both named "{got.name}": {found[got.name][0]} and '
                            f"{info.name}; give one of them its own `name`")
        found[got.name] = (info.name, got)

    def rank(name: str) -> tuple[int, str]:
        return (BUILTIN_ORDER.index(name) if name in BUILTIN_ORDER else len(BUILTIN_ORDER), name)

    return [found[name] for name in sorted(found, key=rank)]


def _plugin_suites(taken: dict[str, str]) -> list[tuple[str, Suite]]:
    """(entry point value, suite) of the group's entry points, by name; a name already taken is an error."""
    from importlib.metadata import entry_points

    found: dict[str, tuple[str, Suite]] = {}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        dist = f" (from {point.dist.name} {point.dist.version})" if point.dist is not None else ""
        where = f'the entry point "{point.name} = {point.value}"{dist} of group {ENTRY_POINT_GROUP}'
        try:
            loaded = point.load()
        except Exception as exc:   # a broken plugin is named, not a traceback from deep inside it
            raise UserError(f"{where} failed to load: {type(exc).__name__}: {exc}; fix or uninstall it") from exc
        got = _as_suite(loaded, where)
        if got.name in taken:
            raise UserError(f'{where} registers the suite "{got.name}", which clashes with the built-in suite '
                            f'"{got.name}" ({taken[got.name]}); rename the plugin\'s suite')
        if got.name in found:
            raise UserError(f'{where} registers the suite "{got.name}", which clashes with the suite of '
                            f'"{found[got.name][0]}" (another installed plugin); uninstall or rename one')
        found[got.name] = (point.value, got)
    return [found[name] for name in sorted(found)]


def _discover() -> None:
    """Fill SUITES and RECORD_KINDS once: the built-in suite packages, then the entry points."""
    global _done, _discovering
    if _done:
        return
    with _lock:
        if _done:
            return
        if _discovering:
            raise RuntimeError("a suite module asked the registry for suites while being discovered; "
                               "look suites up inside functions, not at import")
        _discovering = True
        try:
            builtins = _builtin_suites()
            suites = builtins + _plugin_suites({got.name: where for where, got in builtins})
            table = {got.name: where for where, got in suites}
            records: dict[str, str] = {}
            for _, got in suites:
                for record_kind in got.record_kinds:
                    records.setdefault(record_kind, got.name)
            _loaded.update({where: got for where, got in suites})
            SUITES.data.update(table)
            RECORD_KINDS.data.update(records)
            _done = True
        finally:
            _discovering = False


def suite(kind: str) -> Suite:
    """The suite of a `[dataset].kind`; ValueError naming the known kinds for any other."""
    locator = SUITES.get(kind)
    if locator is None:
        raise ValueError(f"unknown dataset kind {kind!r}: expected one of {', '.join(SUITES)}")
    if locator not in _loaded:
        _loaded[locator] = _load(locator)
    return _loaded[locator]


def suite_of_record(record_kind: str | None) -> Suite:
    """The suite that scores a case / answer / result line of this `kind` (none: LongMemEval)."""
    kind = record_kind or DEFAULT_RECORD_KIND
    if kind not in RECORD_KINDS:
        raise ValueError(f"unknown record kind {kind!r}: expected one of {', '.join(RECORD_KINDS)}")
    return suite(RECORD_KINDS[kind])


def suites_of(record_kinds: Iterable[str | None]) -> list[Suite]:
    """The distinct suites of these record kinds, in registry order; unknown kinds are skipped."""
    wanted = {RECORD_KINDS[k or DEFAULT_RECORD_KIND] for k in record_kinds if (k or DEFAULT_RECORD_KIND) in RECORD_KINDS}
    return [suite(kind) for kind in SUITES if kind in wanted]


def suites_of_results(results: Iterable[dict]) -> list[Suite]:
    """The suites whose lines these results are."""
    return suites_of(r.get("kind") for r in results)


def dataset_kinds_where(attribute: str) -> list[str]:
    """The dataset kinds whose suite has `attribute` set (loads every suite: for messages only)."""
    return [kind for kind in SUITES if getattr(suite(kind), attribute)]


class _Lookup:
    """The registry as reporting asks for it (benchmarker.reporting.suite_parts.SuiteLookup)."""

    def of_kinds(self, record_kinds: Iterable[str | None]) -> list[Suite]:
        return suites_of(record_kinds)

    def named(self, name: str) -> Suite:
        return suite(name)


SUITE_LOOKUP = _Lookup()


def plan_dataset(config: Any, run_dir: Path) -> DatasetPlan:
    """Resolve `[dataset]` into case groups (the kind's suite plans them); generated data is
    written into the run directory."""
    return suite(config.dataset.kind).plan(config, run_dir)
