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


def _subparser(name: str) -> argparse.ArgumentParser:
    return _verbs(cli._parser()).choices[name]


@pytest.mark.parametrize("name", NAMES)
def test_each_verb_help_has_a_description_an_example_and_help_on_every_option(name: str) -> None:
    """Built in-process: `VERB --help` says what the verb does, shows one command line, explains each option."""
    sub = _subparser(name)
    assert sub.description and len(sub.description.split()) >= 8, name
    assert sub.epilog and f"mycelian-longmemeval {name}" in sub.epilog and "example" in sub.epilog.lower(), name
    assert sub.formatter_class is argparse.RawDescriptionHelpFormatter  # the example keeps its line breaks
    bare = [a.dest for a in sub._actions if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert bare == [], f"{name}: options without help: {bare}"
    text = sub.format_help()
    assert "example" in text.lower() and sub.description.split("\n")[0] in text


def test_run_help_says_resume_output_and_exit_codes() -> None:
    text = _subparser("run").format_help()
    for words in ("resume", "output_dir", "run_id", "exit"):
        assert words in text, words


def test_verbose_is_accepted_before_or_after_the_verb() -> None:
    parser = cli._parser()
    assert parser.parse_args(["-v", "report", "runs/x"]).verbose is True
    assert parser.parse_args(["report", "-v", "runs/x"]).verbose is True
    assert parser.parse_args(["report", "runs/x", "--verbose"]).verbose is True
    assert parser.parse_args(["report", "runs/x"]).verbose is False


def test_the_top_level_help_lists_each_verb_once_in_display_order() -> None:
    text = cli._parser().format_help()
    rows = [line.split()[0] for line in text.splitlines() if line.startswith("    ") and line.split()
            and line.split()[0] in NAMES]
    assert rows == list(ORDER), rows
    assert "{" not in text.splitlines()[0] + text.splitlines()[1]  # the usage line names VERB, not the choice list
