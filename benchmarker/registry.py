"""The benchmark suites by name: the one place the harness spells a dataset kind.

A suite (benchmarker/suites/<name>/) owns everything one benchmark does differently: its config
rules, how it plans cases, how it scores an answer, its summary block and report section. Every
other module asks this registry for the suite, by the config's `[dataset].kind` (`suite`) or by
the `kind` a case, answer or result line carries (`suite_of_record`), and never tests a kind.

Suites are discovered, not listed: on first use (never at import, so this module stays cheap for the
floors above it that import it: score, config, graph, run, verbs, commands; no floor below it names it, and
reporting is handed `SUITE_LOOKUP`) the registry imports each subpackage of `benchmarker.suites` and takes
its module-level `SUITE`, then loads every entry point of the group `mycelian_longmemeval.suites`
(a `Suite` value, or a module exposing `SUITE`). A suite's `name` is its dataset kind; its
`record_kinds` are the line kinds it scores (the first suite in order claiming one wins: the
generated sample inherits LongMemEval's "longmemeval"). Adding a benchmark: one package under
benchmarker/suites/ exposing `SUITE`, nothing else to edit; or a pip package declaring the entry
point (`[project.entry-points."mycelian_longmemeval.suites"] name = "pkg:SUITE"`). Two suite packages
with one name are an error naming both.

A plugin never stops the others (plugin_guard.py): one that fails to load whatever its import does
(sys.exit, KeyboardInterrupt, an exception), gives no suite, or claims a name another plugin claims is
left out, and asking for its kind (the entry point's name, or the name it claims) is one UserError line
naming the entry point; a message listing the kinds lists it as not loaded. A built-in's name stays the
built-in's: a plugin claiming it is refused under its own name, with a warning when the built-in is used.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, overload

from benchmarker import plugin_guard
from benchmarker.errors import UserError
from benchmarker.log.records import DEFAULT_RECORD_KIND
from benchmarker.registry_base import Registry

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from pydantic import BaseModel

    from benchmarker.datasets.source import DatasetPlan
    from benchmarker.suites.base import Suite
    from benchmarker.suites.settings import PlanSettings

SUITES_PACKAGE = "benchmarker.suites"
ENTRY_POINT_GROUP = "mycelian_longmemeval.suites"
# The order the docs and messages list the built-in kinds in; any other built-in follows (by name),
# then the entry-point suites (by name). Only the order: a kind missing here is still found.
BUILTIN_ORDER = ("longmemeval", "sample", "long_horizon", "levels", "fact_extraction", "locomo", "beam")


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
SUITES: Registry[str] = Registry("dataset kind", discover=lambda: _discover(), hint=lambda: plugins_not_loaded())
# The `kind` a line carries -> the dataset kind whose suite scores it (the generated sample writes
# LongMemEval-format cases, so its lines say "longmemeval").
RECORD_KINDS: Registry[str] = Registry("record kind", discover=lambda: _discover(),
                                        hint=lambda: plugins_not_loaded())
DATASET_KINDS: Sequence[str] = _Kinds()

log = logging.getLogger(__name__)
_loaded: dict[str, Suite] = {}
# A kind no suite answers for -> the one line that says why: an entry point's name (or the suite name it
# claims) whose plugin did not load, gave no suite or clashes. Said only when that kind is asked for.
_refused: dict[str, str] = {}
# A built-in kind a plugin claims too -> the warning logged (once) when it is asked for.
_shadowed: dict[str, str] = {}
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
    """(entry point value, suite) of the group's entry points that load and claim a free name, by name.

    A plugin that fails to load (whatever its import does: plugin_guard), gives no suite, or claims a name
    another suite has is left out, and `_refused` keeps its one line for when its kind is asked for: the
    built-ins and the other plugins go on. A built-in's name stays the built-in's (`_shadowed` warns)."""
    points, unlisted = plugin_guard.entry_points_of(ENTRY_POINT_GROUP)
    if unlisted:
        log.warning(unlisted)
    claims: dict[str, list[tuple[EntryPoint, str, Suite]]] = {}   # suite name -> (entry point, where, suite)
    with plugin_guard.watching_sigint() as ctrl_c:
        for point in points:
            where = plugin_guard.describe(point, ENTRY_POINT_GROUP)
            try:
                got = plugin_guard.load(point, where, ctrl_c, partial(_as_plugin_suite, where=where))
            except UserError as exc:
                _refused.setdefault(point.name, str(exc))
                continue
            claims.setdefault(got.name, []).append((point, where, got))
    found: list[tuple[str, Suite]] = []
    for name, claimants in sorted(claims.items()):
        if name in taken:
            for point, where, _ in claimants:
                _refused.setdefault(point.name, f'{where} registers the suite "{name}", which clashes with the '
                                                f'built-in suite "{name}" ({taken[name]}); rename the plugin\'s suite')
                _shadowed.setdefault(name, _refused[point.name] + f'; the built-in "{name}" is used')
        elif len(claimants) > 1:
            clash = (f'{" and ".join(where for _, where, _ in claimants)} both register the suite "{name}"; '
                     "uninstall or rename one")
            for kind in (name, *(point.name for point, _, _ in claimants)):
                _refused.setdefault(kind, clash)
        else:
            ((point, _, got),) = claimants
            found.append((point.value, got))
    return found


def _as_plugin_suite(obj: Any, where: str) -> Suite:
    """_as_suite, and record kinds that are a tuple or list of strings (a plugin's, unlike a built-in's, unchecked)."""
    got = _as_suite(obj, where)
    kinds = got.record_kinds
    if not isinstance(kinds, tuple | list) or not all(isinstance(kind, str) for kind in kinds):
        raise UserError(f"{where}: its suite {type(got).__name__} has `record_kinds` = {type(kinds).__name__}; "
                        "expected a tuple of strings (the `kind` its lines carry)")
    return got


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
    """The suite of a `[dataset].kind`; UserError for a plugin's that did not load, ValueError naming the
    known kinds for any other."""
    if kind not in SUITES:
        refuse_plugin_kind(kind)
    locator = SUITES.lookup(kind)
    if kind in _shadowed:
        log.warning(_shadowed.pop(kind))
    if locator not in _loaded:
        _loaded[locator] = _load(locator)
    return _loaded[locator]


def suite_of_record(record_kind: str | None) -> Suite:
    """The suite that scores a case / answer / result line of this `kind` (none: LongMemEval)."""
    return suite(RECORD_KINDS.lookup(record_kind or DEFAULT_RECORD_KIND))


def refuse_plugin_kind(kind: object) -> None:
    """UserError naming the entry point when `kind` is a plugin's that did not load (or clashes)."""
    if isinstance(kind, str) and kind not in SUITES and kind in _refused:
        raise UserError(_refused[kind])


def plugins_not_loaded() -> str:
    """`; plugins not loaded: "a", "b" (...)` for a message listing the kinds; "" when every plugin loaded."""
    _discover()
    if not _refused:
        return ""
    names = ", ".join(f'"{name}"' for name in sorted(_refused))
    return f"; plugins not loaded: {names} (name one as the kind to see why)"


def suites_of(record_kinds: Iterable[str | None]) -> list[Suite]:
    """The distinct suites of these record kinds, in registry order; unknown kinds are skipped."""
    wanted = {RECORD_KINDS[k or DEFAULT_RECORD_KIND] for k in record_kinds if (k or DEFAULT_RECORD_KIND) in RECORD_KINDS}
    return [suite(kind) for kind in SUITES if kind in wanted]


def suites_of_results(results: Iterable[dict]) -> list[Suite]:
    """The suites whose lines these results are."""
    return suites_of(r.get("kind") for r in results)


def dataset_kinds_where(attribute: str | Callable[[Suite], object]) -> list[str]:
    """The dataset kinds whose suite has `attribute` set, or answers the predicate truly (loads every suite:
    for messages only)."""
    test = attribute if callable(attribute) else lambda got: getattr(got, attribute)
    return [kind for kind in SUITES if test(suite(kind))]


def dataset_option_model(key: str) -> type[BaseModel] | None:
    """The options model of the first suite, in order, that reads `[dataset].<key>`; None when no suite does."""
    for kind in SUITES:
        model = suite(kind).data.options
        if model is not None and key in model.model_fields:
            return model
    return None


def scoring_suite(kind: str) -> Suite:
    """The suite that scores the cases a `[dataset].kind` plans: the one of the record kind they carry, its
    first `record_kinds` (a suite naming none plans LongMemEval-format cases, as the generated sample does).
    The run resolves it once (RunContext.suite); the graph reads its parts."""
    chosen = suite(kind)
    return suite_of_record(chosen.record_kinds[0] if chosen.record_kinds else None)


def adversary_kinds() -> str:
    """The kinds the adversary writes questions for (their suite has an adversary policy), as a config error
    says them: those proposing from fact records first, then the others, in registry order."""
    policies = {kind: suite(kind).adversary for kind in SUITES}
    kinds = [kind for kind, policy in policies.items() if policy is not None and policy.proposes_from_facts]
    kinds += [kind for kind, policy in policies.items() if policy is not None and not policy.proposes_from_facts]
    return ", ".join(kinds[:-1]) + f" and {kinds[-1]}" if len(kinds) > 1 else "".join(kinds)


class _Lookup:
    """The registry as reporting asks for it (benchmarker.reporting.suite_parts.SuiteLookup)."""

    def of_kinds(self, record_kinds: Iterable[str | None]) -> list[Suite]:
        return suites_of(record_kinds)

    def named(self, name: str) -> Suite:
        return suite(name)


SUITE_LOOKUP = _Lookup()


def plan_dataset(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    """Resolve `[dataset]` into case groups (the kind's suite plans them from `settings`, which a verb or a run
    builds once with `PlanSettings.of`); generated data is written into the run directory. With
    `[dataset] errata`, each case carries its checked corrections."""
    chosen = suite(settings.dataset.kind)
    plan = chosen.data.plan(settings, run_dir)
    if errata := settings.dataset.errata:
        from benchmarker.errata.plan import errata_plan

        plan = errata_plan(plan, Path(errata), chosen.errata_gold, chosen.name)
    return plan
