"""The CLI verbs are the modules of benchmarker/commands/: each declares itself, cli.py builds the parser from them."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from benchmarker import cli
from benchmarker.commands import ORDER, command_named, commands
from benchmarker.commands.base import Command

NAMES = [c.name for c in commands()]


def _verbs(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_every_command_declares_a_name_help_arguments_and_run() -> None:
    assert NAMES, "no command found in benchmarker/commands/"
    for command in commands():
        assert isinstance(command, Command)
        assert command.name and command.help.strip(), command
        assert callable(command.add_arguments) and callable(command.run), command.name
        assert command_named(command.name) is command
        # the module is named for its verb: judge-online lives in judge_online.py
        assert command.run.__module__ == f"benchmarker.commands.{command.name.replace('-', '_')}", command.name


def test_the_display_order_names_each_command_once() -> None:
    assert len(set(ORDER)) == len(ORDER)
    assert sorted(ORDER) == sorted(NAMES)
    assert tuple(NAMES) == ORDER


def test_the_parser_has_the_commands_as_verbs_in_order() -> None:
    verbs = _verbs(cli._parser())
    assert list(verbs.choices) == NAMES
    shown = {a.dest: a.help for a in verbs._choices_actions}
    assert shown == {c.name: c.help for c in commands()}


@pytest.mark.parametrize("name", NAMES)
def test_each_verb_help_exits_0(name: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main([name, "--help"])
    assert exc.value.code == 0
    assert f"usage: mycelian-longmemeval {name}" in capsys.readouterr().out


def test_the_cli_docstring_lists_each_verb_once() -> None:
    doc = cli.__doc__ or ""
    listed = [line.split()[0] for line in doc.splitlines() if line.startswith("    ") and not line.startswith("     ")]
    assert sorted(listed) == sorted(NAMES), listed


def test_help_imports_no_heavy_module() -> None:
    """Every command module is imported to build the parser: what a verb runs stays inside its run()."""
    code = ("import contextlib, io, json, sys\nfrom benchmarker.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main(['--help'])\n"
            "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    heavy = ("langgraph", "langchain", "langchain_core", "rich", "ray", "openai", "anthropic", "numpy",
             "benchmarker.run", "benchmarker.graph", "benchmarker.scoring", "benchmarker.reporting", "benchmarker.config",
             "benchmarker.agent")
    assert [m for m in loaded if any(m == h or m.startswith(f"{h}.") for h in heavy)] == []
