"""Group "plugins": suite plugins that exit, interrupt, raise, give the wrong thing or clash (issue 42, item 7).

Each attack installs one plugin the way pip leaves it (a package and a dist-info whose entry_points.txt
names it in group `mycelian_longmemeval.suites`) in a folder put first on sys.path, with the suite
registry as if nothing had been discovered yet, and runs through the real CLI entry point, in this process:
  builtin   `estimate` on a built-in kind ("sample")    ok: exit 0; wrong: refused with an error line;
                                                        crash: no error line, a traceback, "interrupted"
  plugin    `estimate` on the plugin's kind (the entry point's name; the clashing name for twins)
                                                        clean: exit 2, one `error:` line naming the entry point;
                                                        unclear: refused without naming it; accepted: exit 0
  listing   `estimate` on an unknown kind               clean: its error lists the plugin as not loaded;
                                                        unclear: it does not
  run       (full set, a few attacks) `run` on a built-in kind: ok when it finishes
A plugin whose error carries a key is `leaked` where any verb prints the key's unmasked prefix. The controls
"sigint" and "sigint_caught" are a real Ctrl-C while a plugin loads (the second caught by the plugin): the
built-in verb must stop as interrupted (exit 130): ok; anything else: wrong.
Hangs are not attacked (a plugin that never returns from its import hangs the verb; nothing can stop that
from inside the process).
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.fuzz.outcome import Tally
from bench.fuzz.rundir_attack import Outcome, run_cli

GROUP = "mycelian_longmemeval.suites"
SECRET = "sk-proj-" + "Q7x" * 14   # a key-shaped value a plugin's error message carries
SAMPLE = "from dataclasses import replace\nfrom benchmarker.suites.sample import SUITE as SAMPLE\n"
TINY = """
run_id = "tiny-{kind}"
[dataset]
kind = "{kind}"
questions_per_type = 1
sessions_per_question = 3
[memory]
embedder = "none"
alpha = 0.0
[run]
output_dir = "{out}"
progress = false
"""


@dataclass(frozen=True)
class Attack:
    body: str                                   # the plugin package's __init__.py
    points: dict[str, str] = field(default_factory=dict)   # entry point name -> value; default: <label> = <pkg>:SUITE
    asked: str = ""                             # the kind the "plugin" verb asks for; default: the entry point's name


def _suite_class(**attributes: str) -> str:
    """The built-in sample's `Suite` value with these fields changed (a plugin's suite is a value, not a class)."""
    fields = ", ".join(f"{key}={value}" for key, value in attributes.items())
    return SAMPLE + f"\nSUITE = replace(SAMPLE, {fields})\n"


ATTACKS: dict[str, Attack] = {
    "exit3": Attack("import sys\nsys.exit(3)\n"),
    "exit0": Attack("import sys\nsys.exit(0)\n"),
    "exit_text": Attack("import sys\nsys.exit('the plugin says goodbye')\n"),
    "interrupt": Attack("raise KeyboardInterrupt\n"),
    "generator_exit": Attack("raise GeneratorExit\n"),
    "base_exception": Attack("raise BaseException('odd')\n"),
    "raises": Attack("raise RuntimeError('boom')\n"),
    "missing_dependency": Attack("import fz_not_an_installed_dependency\n"),
    "secret_in_error": Attack(f"raise RuntimeError('could not log in with {SECRET}')\n"),
    "long_error": Attack("raise RuntimeError('x' * 100_000 + '\\nsecond line')\n"),
    "asks_registry": Attack("from benchmarker import registry\nregistry.suite('sample')\n"),
    "wrong_int": Attack("SUITE = 42\n"),
    "wrong_none": Attack("SUITE = None\n"),
    "wrong_class": Attack(SAMPLE + "SUITE = type(SAMPLE)\n"),
    "no_suite": Attack("VALUE = 1\n"),
    "missing_module": Attack("", {"missing_module": "fz_plugin_no_such_module:SUITE"}),
    "bad_value": Attack("", {"bad_value": "fz plugin: not a valid value!!"}),
    "empty_name": Attack(_suite_class(name='""')),
    "name_raises": Attack("from benchmarker.suites.base import Suite\n\nclass Plugged(Suite):\n    @property\n"
                          "    def name(self):\n        raise RuntimeError('no name today')\n\n"
                          "SUITE = object.__new__(Plugged)\n"),
    "record_kinds_int": Attack(_suite_class(name='"record_kinds_int"', record_kinds="5")),
    "record_kinds_items": Attack(_suite_class(name='"record_kinds_items"', record_kinds="(1, 2)")),
    "clash_builtin": Attack(SAMPLE + "SUITE = SAMPLE\n"),
    "clash_longmemeval": Attack(_suite_class(name='"longmemeval"')),
    "twins": Attack(_suite_class(name='"twin"'), {"twin_a": "fz_plugin_twins:SUITE", "twin_b": "fz_plugin_twins:SUITE"},
                    asked="twin"),
}
QUICK = ("exit3", "interrupt", "raises", "secret_in_error", "wrong_int", "clash_builtin", "twins")
RUN_ATTACKS = ("exit3", "interrupt", "raises")   # the full set also runs the built-in kind end to end
# Controls: a real Ctrl-C while a plugin loads, and one the plugin catches and turns into another error
SIGINTS = {"sigint": "import signal, time\nsignal.raise_signal(signal.SIGINT)\nfor _ in range(200):\n    time.sleep(0.01)\n",
           "sigint_caught": "import signal, time\ntry:\n    signal.raise_signal(signal.SIGINT)\n    time.sleep(2)\n"
                            "except KeyboardInterrupt:\n    raise ImportError('caught')\n"}


def install(site: Path, label: str, attack: Attack) -> Path:
    """The plugin package and its dist-info under `site`."""
    package = f"fz_plugin_{label}"
    if attack.body:
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text(attack.body, encoding="utf-8")
    info = site / f"{package}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n", encoding="utf-8")
    points = attack.points or {label: f"{package}:SUITE"}
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}", encoding="utf-8")
    return site


@contextmanager
def plugged_in(site: Path) -> Iterator[None]:
    """`site` first on sys.path and the registry undiscovered; both put back afterwards (the plugin's modules
    dropped), so each verb finds the plugin as a fresh process would."""
    from benchmarker import registry

    fresh = {"_done": False, "_loaded": {}, "_refused": {}, "_shadowed": {}}
    saved = {name: getattr(registry, name) for name in fresh if hasattr(registry, name)}   # (older code: fewer)
    tables = (registry.SUITES.data, registry.RECORD_KINDS.data)
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    for name in saved:
        setattr(registry, name, fresh[name])
    registry.SUITES.data, registry.RECORD_KINDS.data = {}, {}
    try:
        yield
    finally:
        sys.path.remove(str(site))
        for name, value in saved.items():
            setattr(registry, name, value)
        registry.SUITES.data, registry.RECORD_KINDS.data = tables
        for module in [m for m in sys.modules if m.startswith("fz_plugin_")]:
            del sys.modules[module]


def config(base: Path, kind: str) -> str:
    path = base / f"{kind}.toml"
    path.write_text(TINY.format(kind=kind, out=base / "runs"), encoding="utf-8")
    return str(path)


def errors_of(outcome: Outcome) -> list[str]:
    return [line for line in outcome.stderr.splitlines() if line.startswith("error:")]


def broke(outcome: Outcome) -> str:
    """Why a verb's outcome is a crash ("" when it is not): it escaped, tracebacked, stopped as interrupted,
    or failed without saying why."""
    if outcome.error or "Traceback" in outcome.stderr:
        return outcome.error or outcome.stderr.strip()[-300:]
    if "interrupted:" in outcome.stderr:
        return f"exit {outcome.code}: stopped as interrupted"
    if outcome.code != 0 and not errors_of(outcome):
        return f"exit {outcome.code}, no error line: {outcome.stderr.strip()[-300:]!r}"
    return ""


def judge_builtin(outcome: Outcome) -> tuple[str, str]:
    if crash := broke(outcome):
        return "crash", crash
    return ("ok", "") if outcome.code == 0 else ("wrong", errors_of(outcome)[0][:300])


def judge_plugin(outcome: Outcome, names: list[str]) -> tuple[str, str]:
    if crash := broke(outcome):
        return "crash", crash
    if outcome.code == 0:
        return "accepted", "exit 0"
    errors = errors_of(outcome)
    if outcome.code != 2 or len(errors) != 1 or len(outcome.stderr.strip().splitlines()) != 1:
        return "unclear", f"exit {outcome.code}, {len(outcome.stderr.splitlines())} lines: {outcome.stderr[:300]!r}"
    named = all(f'"{name} = ' in errors[0] for name in names)
    return ("clean", "") if named else ("unclear", errors[0][:300])


def judge_listing(outcome: Outcome, names: list[str]) -> tuple[str, str]:
    if crash := broke(outcome):
        return "crash", crash
    if outcome.code == 0:
        return "accepted", "exit 0"
    listed = all(f'"{name}"' in outcome.stderr for name in names)
    return ("clean", "") if listed else ("unclear", outcome.stderr.strip()[-300:])


def verb(site: Path, argv: list[str]) -> Outcome:
    with plugged_in(site):
        return run_cli(argv)


def attack(base: Path, label: str, spec: Attack, tally: Tally, *, full: bool) -> None:
    site = install(base / label, label, spec)
    names = list(spec.points or {label: ""})
    outcomes = {"builtin": verb(site, ["estimate", config(base, "sample")]),
                "plugin": verb(site, ["estimate", config(base, spec.asked or label)]),
                "listing": verb(site, ["estimate", config(base, "fz_no_such_kind")])}
    if full and label in RUN_ATTACKS:
        outcomes["run"] = verb(site, ["run", config(base, "sample")])
    for what, outcome in outcomes.items():
        judged = {"plugin": lambda o: judge_plugin(o, names), "listing": lambda o: judge_listing(o, names)}
        result, detail = judged.get(what, judge_builtin)(outcome)
        if SECRET[:12] in outcome.stderr + outcome.error:
            result, detail = "leaked", f"the key's prefix in what {what} printed"
        tally.add(result, f"{label}.{what}", detail)


@contextmanager
def sigint_as_a_terminal() -> Iterator[None]:
    """Ctrl-C delivered as a terminal delivers it. A job started in the background by a non-interactive shell
    (`make test &`, CI runners) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def attack_sigint(base: Path, tally: Tally) -> None:
    for label, body in SIGINTS.items():
        with sigint_as_a_terminal():
            outcome = verb(install(base / label, label, Attack(body)), ["estimate", config(base, "sample")])
        interrupted = outcome.code == 130 and not outcome.error and "interrupted:" in outcome.stderr
        tally.add("ok" if interrupted else "wrong", f"{label}.builtin",
                  f"exit {outcome.code}, {outcome.error or outcome.stderr.strip()[-300:]}")


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "plugins"
    base.mkdir(parents=True, exist_ok=True)
    for label, spec in ATTACKS.items():
        if not quick or label in QUICK:
            attack(base, label, spec, tally, full=not quick)
    attack_sigint(base, tally)
    return tally
