"""A broken suite plugin stops nothing but itself (issue 42, item 7): whatever its import does (sys.exit,
KeyboardInterrupt, an exception, a wrong object, a built-in's name), every verb on a built-in kind still
works, and asking for the plugin's kind is one line naming its entry point, exit 2. A real Ctrl-C while
plugins load still interrupts."""

from __future__ import annotations

import importlib.metadata
import textwrap
import threading
from pathlib import Path

import pytest

from bench.fuzz.plugin_attack import sigint_as_a_terminal
from benchmarker import registry
from benchmarker.cli import main
from benchmarker.cli_errors import INTERRUPTED
from benchmarker.errors import UserError
from tests.suites.test_discovery import TINY, fresh

__all__ = ["fresh"]  # the registry reset, a fixture used by name
# A plugin's suite: the built-in sample under its own name.
PLUGIN = ("from dataclasses import replace\nfrom benchmarker.suites.sample import SUITE as SAMPLE\n\n"
          "SUITE = replace(SAMPLE, name={name!r})\n")

BODIES = {
    "exits": "import sys\nsys.exit(3)\n",
    "interrupts": "raise KeyboardInterrupt\n",
    "raises": "raise ImportError('no module named torch_extra')\n",
    "stops": "raise GeneratorExit('stopped')\n",
    "wrong_type": "SUITE = 42\n",
    "bad_record_kinds": textwrap.dedent("""
        from dataclasses import replace

        from benchmarker.suites.sample import SUITE as SAMPLE

        SUITE = replace(SAMPLE, name="bad_record_kinds", record_kinds=5)
    """),
}


def install(monkeypatch, tmp_path: Path, **bodies: str) -> None:
    """One module per plugin under tmp_path, each behind the entry point `<name> = <module>:SUITE`."""
    points = []
    for name, body in bodies.items():
        module = f"plugin_exit_{name}_{tmp_path.name}"
        (tmp_path / f"{module}.py").write_text(body, encoding="utf-8")
        points.append(importlib.metadata.EntryPoint(name, f"{module}:SUITE", registry.ENTRY_POINT_GROUP))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: points if group == registry.ENTRY_POINT_GROUP else [])


def config(tmp_path: Path, kind: str) -> str:
    path = tmp_path / f"{kind}.toml"
    path.write_text(TINY.format(kind=kind), encoding="utf-8")
    return str(path)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("broken", sorted(BODIES))
def test_a_built_in_kind_is_estimated_whatever_a_broken_plugin_does(fresh, tmp_path: Path, capsys, broken) -> None:
    install(fresh, tmp_path, **{broken: BODIES[broken]})
    assert main(["estimate", config(tmp_path, "sample")]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and INTERRUPTED.strip() not in captured.err
    assert captured.out.startswith("questions 9,")   # the estimate itself


@pytest.mark.parametrize("broken", sorted(BODIES))
def test_asking_for_a_broken_plugins_kind_is_one_line_naming_its_entry_point(fresh, tmp_path: Path, capsys,
                                                                             broken) -> None:
    install(fresh, tmp_path, **{broken: BODIES[broken]})
    assert main(["estimate", config(tmp_path, broken)]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert line.startswith("error: ") and f'"{broken} = plugin_exit_{broken}_' in line
    assert "everything finished so far" not in line


def test_the_failure_says_what_the_plugin_did(fresh, tmp_path: Path, capsys) -> None:
    install(fresh, tmp_path, **{name: BODIES[name] for name in ("exits", "interrupts", "raises")})
    said = {}
    for name in ("exits", "interrupts", "raises"):
        assert main(["estimate", config(tmp_path, name)]) == 2
        (said[name],) = error_lines(capsys.readouterr().err)
    assert "sys.exit(3)" in said["exits"]
    assert "KeyboardInterrupt" in said["interrupts"]
    assert "ImportError: no module named torch_extra" in said["raises"]


def test_an_unknown_kind_lists_the_plugins_that_did_not_load(fresh, tmp_path: Path, capsys) -> None:
    install(fresh, tmp_path, exits=BODIES["exits"], raises=BODIES["raises"])
    assert main(["estimate", config(tmp_path, "nosuch")]) == 2
    (line,) = [line for line in error_lines(capsys.readouterr().err) if "[dataset].kind" in line]
    assert '"sample"' in line and '"exits"' in line and '"raises"' in line


def test_good_plugins_beside_a_broken_one_still_load(fresh, tmp_path: Path) -> None:
    good = PLUGIN.format(name="good")
    install(fresh, tmp_path, exits=BODIES["exits"], good=good)
    assert registry.suite("good").name == "good"
    assert list(registry.DATASET_KINDS)[-1] == "good" and "exits" not in registry.DATASET_KINDS


def test_a_plugin_claiming_a_built_in_name_leaves_the_built_in_and_is_refused_by_its_own(fresh, tmp_path: Path,
                                                                                       capsys, caplog) -> None:
    body = "from benchmarker.suites.sample import SUITE\n"
    install(fresh, tmp_path, sample_again=body)
    assert main(["estimate", config(tmp_path, "sample")]) == 0
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert '"sample_again = ' in warning and 'the built-in "sample" is used' in warning
    assert main(["estimate", config(tmp_path, "sample_again")]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert '"sample_again = plugin_exit_sample_again_' in line and 'clashes with the built-in suite "sample"' in line


def test_two_plugins_claiming_one_name_refuse_that_name_naming_both(fresh, tmp_path: Path, capsys) -> None:
    body = PLUGIN.format(name="twin")
    install(fresh, tmp_path, twin_a=body, twin_b=body)
    assert main(["estimate", config(tmp_path, "twin")]) == 2
    (line,) = error_lines(capsys.readouterr().err)
    assert '"twin_a = ' in line and '"twin_b = ' in line
    assert main(["estimate", config(tmp_path, "sample")]) == 0


def test_a_real_ctrl_c_while_a_plugin_loads_still_interrupts(fresh, tmp_path: Path, capsys) -> None:
    body = "import signal, time\nsignal.raise_signal(signal.SIGINT)\nfor _ in range(100):\n    time.sleep(0.01)\n"
    install(fresh, tmp_path, slow=body)
    with sigint_as_a_terminal():
        assert main(["estimate", config(tmp_path, "sample")]) == 130
    assert INTERRUPTED.strip() in capsys.readouterr().err


def test_a_plugins_keyboard_interrupt_off_the_main_thread_is_its_own_failure(fresh, tmp_path: Path) -> None:
    install(fresh, tmp_path, interrupts=BODIES["interrupts"])
    got: dict[str, object] = {}
    worker = threading.Thread(target=lambda: got.update(kind=registry.suite("sample").name))   # the run browser's way
    worker.start()
    worker.join()
    assert got == {"kind": "sample"}
    with pytest.raises(UserError, match=r'"interrupts = .*KeyboardInterrupt itself'):
        registry.suite("interrupts")


def test_a_ctrl_c_a_plugin_catches_still_interrupts(fresh, tmp_path: Path, capsys) -> None:
    body = ("import signal, time\ntry:\n    signal.raise_signal(signal.SIGINT)\n    time.sleep(0.5)\n"
            "except KeyboardInterrupt:\n    raise ImportError('swallowed')\n")
    install(fresh, tmp_path, swallows=body)
    with sigint_as_a_terminal():
        assert main(["estimate", config(tmp_path, "sample")]) == 130
    assert INTERRUPTED.strip() in capsys.readouterr().err
