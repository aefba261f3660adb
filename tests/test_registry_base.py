"""One generic registry (benchmarker/registry_base.py) behind the suites, the judges and the verbs: the same
order, the same lookups and the same messages as the three hand-written tables it replaced."""

from __future__ import annotations

import pytest

from benchmarker import registry
from benchmarker.commands import ORDER, command_named, commands
from benchmarker.registry_base import Registry
from benchmarker.scoring.judges import JUDGES, LLMJudge, judge_class


def test_entries_keep_their_order_and_a_name_is_taken_once() -> None:
    table: Registry[int] = Registry("number", [("two", 2), ("one", 1)])
    assert table.register("three", 3) == 3
    assert list(table) == ["two", "one", "three"] and table["one"] == 1 and table.get("four") is None
    with pytest.raises(ValueError, match="two entries are both the number 'one'"):
        table.register("one", 11)
    assert table.lookup("one") == 1


def test_lookup_names_what_is_known_and_the_hint() -> None:
    table: Registry[int] = Registry("colour", [("red", 1), ("blue", 2)], hint=lambda: "; see colours.md")
    with pytest.raises(ValueError) as info:
        table.lookup("green")
    assert str(info.value) == "unknown colour 'green': expected one of red, blue; see colours.md"


def test_discovery_runs_before_the_first_read() -> None:
    calls: list[int] = []
    table: Registry[str] = Registry("thing")

    def discover() -> None:
        if not calls:
            calls.append(1)
            table.data["found"] = "yes"

    table._discover = discover
    assert "found" in table and calls == [1] and list(table) == ["found"]


def test_judges_are_found_by_name_with_todays_message() -> None:
    assert list(JUDGES) == ["deterministic", "llm", "official"]
    assert judge_class("llm") is LLMJudge and JUDGES.get("rubric") is None
    with pytest.raises(ValueError) as info:
        judge_class("gpt")
    assert str(info.value) == "unknown judge 'gpt': expected one of deterministic, llm, official"


def test_suites_and_record_kinds_keep_their_messages() -> None:
    assert list(registry.SUITES)[:3] == ["longmemeval", "sample", "long_horizon"]
    with pytest.raises(ValueError) as info:
        registry.suite("nope")
    assert str(info.value).startswith("unknown dataset kind 'nope': expected one of longmemeval, sample, ")
    with pytest.raises(ValueError) as info:
        registry.suite_of_record("nope")
    assert str(info.value).startswith("unknown record kind 'nope': expected one of longmemeval, ")
    assert registry.suite_of_record(None) is registry.suite("longmemeval")


def test_commands_are_in_help_order_and_an_unknown_verb_is_a_key_error() -> None:
    names = [c.name for c in commands()]
    assert names[: len(ORDER)] == [name for name in ORDER if name in names]
    assert command_named("run").name == "run"
    with pytest.raises(KeyError):
        command_named("nope")
