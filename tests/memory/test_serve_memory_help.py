"""`serve-memory --help` explains every flag a user can pass (limits included), with its default."""

from __future__ import annotations

import argparse

from benchmarker.cli import _parser


def _serve_parser() -> argparse.ArgumentParser:
    verbs = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return verbs.choices["serve-memory"]


def test_every_serve_memory_flag_has_help() -> None:
    flags = [a for a in _serve_parser()._actions if a.option_strings and a.help != argparse.SUPPRESS]
    missing = [a.option_strings[0] for a in flags if not a.help]
    assert not missing, f"flags without help: {missing}"


def test_limit_flags_state_their_defaults() -> None:
    text = _serve_parser().format_help().split("options:", 1)[1]  # past the usage line
    for flag, default in (("--max-raw-entry-bytes", "65536"), ("--max-tags-bytes", "16384"),
                          ("--embed-batch-size", "32"), ("--await-timeout-s", "600"), ("--vector-cache-mb", "512")):
        after = text.split(flag, 1)[1].split("\n  --", 1)[0]
        assert f"default {default}" in " ".join(after.split()), (flag, after)
