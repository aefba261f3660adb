"""The CLI verbs, one module each, found by scanning this package (each module defines `COMMAND`).

Adding a verb: a module here whose `COMMAND` is a `Command` (base.py), its name in `ORDER` (where it
shows in `--help`) and its line in cli.py's docstring; tests/commands/test_commands.py checks all three.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from benchmarker.commands.base import Command
from benchmarker.registry_base import Registry

# The order the verbs show in `mycelian-longmemeval --help`; a verb missing here comes last, by name.
ORDER = ("run", "estimate", "report", "score", "replay", "judge-online", "calibrate", "oracle", "baselines",
         "view", "compare", "export", "verify", "keygen", "errata",
         "serve-memory", "sample")
NOT_COMMANDS = frozenset({"base"})


@cache
def registry() -> Registry[Command]:
    """Every command of this package by verb, in display order (`ORDER`, then any other by name)."""
    found: list[Command] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in NOT_COMMANDS or info.name.startswith("_"):
            continue
        command = getattr(importlib.import_module(f"{__name__}.{info.name}"), "COMMAND", None)
        if not isinstance(command, Command):
            raise TypeError(f"benchmarker/commands/{info.name}.py defines no COMMAND (a commands.base.Command)")
        found.append(command)
    names = [c.name for c in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two command modules declare the same verb: {sorted(names)}")
    rank = {name: i for i, name in enumerate(ORDER)}
    ordered = sorted(found, key=lambda c: (rank.get(c.name, len(ORDER)), c.name))
    return Registry("command", [(command.name, command) for command in ordered])


def commands() -> tuple[Command, ...]:
    """Every command of this package, in display order."""
    return tuple(registry().values())


def command_named(name: str) -> Command:
    """The command of a verb; KeyError(name) for any other."""
    return registry()[name]
