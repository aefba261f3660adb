"""The packaged fact cases: format, coverage, internal consistency; user case files; Case bridge."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from benchmarker.errors import DatasetError
from benchmarker.suites.fact_extraction.data import (
    SCENARIOS,
    FactCase,
    fact_case_of,
    fact_case_to_case,
    fact_cases_schema,
    fact_tokens,
    load_fact_cases,
    seed_context,
    seed_memory_plan,
)

CASES = load_fact_cases()


def _has_run(text: str, term: str) -> bool:
    tokens, run = fact_tokens(text), fact_tokens(term)
    return any(tokens[i : i + len(run)] == run for i in range(len(tokens) - len(run) + 1))


def test_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(fact_cases_schema())


def test_at_least_30_cases_and_3_per_scenario():
    counts = Counter(c.scenario for c in CASES)
    assert len(CASES) >= 30
    assert set(counts) == set(SCENARIOS)
    assert min(counts.values()) >= 3, counts


def test_ids_are_unique():
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("fc", CASES, ids=lambda c: c.id)
def test_expected_facts_are_stated_in_the_conversation(fc: FactCase):
    """Each key term occurs in a user message (explicit agreement: or in the suggestion agreed to)."""
    msgs = fc.conversation
    sources = [m.content for m in msgs if m.role == "user"]
    if fc.scenario == "explicit_agreement":
        sources += [m.content for m, nxt in zip(msgs, msgs[1:]) if m.role == "assistant" and nxt.role == "user"]
    for fact in fc.expected_facts:
        assert fact.terms, f"{fc.id}: {fact.fact!r} has no key terms"
        for term in fact.terms:
            assert any(_has_run(s, term) for s in sources), f"{fc.id}: term {term!r} of {fact.fact!r} never stated"
            assert _has_run(fact.fact, term), f"{fc.id}: term {term!r} not in its own fact {fact.fact!r}"


@pytest.mark.parametrize("fc", CASES, ids=lambda c: c.id)
def test_expected_output_is_existing_memory_updated_plus_new_facts(fc: FactCase):
    superseded = {s.fact for s in fc.superseded_facts}
    assert superseded <= set(fc.existing_memory)
    assert not superseded & set(fc.expected_output)
    assert set(fc.existing_memory) - superseded <= set(fc.expected_output)
    assert {f.fact for f in fc.expected_facts} <= set(fc.expected_output)
    assert len(fc.expected_output) == len(fc.existing_memory) - len(superseded) + len(fc.expected_facts)


def test_scenario_shapes():
    for fc in CASES:
        if fc.scenario == "chit_chat":
            assert not fc.expected_facts and fc.expected_output == fc.existing_memory
        if fc.scenario == "conflict_resolution":
            assert fc.superseded_facts and fc.existing_memory
        if fc.scenario in ("constraint", "non_agreement", "explicit_agreement"):
            assert any(m.role == "assistant" for m in fc.conversation)


def test_fact_case_round_trips_through_case():
    fc = CASES[0]
    case = fact_case_to_case(fc)
    assert (case.kind, case.case_id, case.questions) == ("fact_extraction", fc.id, ())
    assert len(case.sessions) == 1 and case.sessions[0].messages == fc.conversation
    assert case.sessions[0].date == fc.date
    assert case.metadata["scenario"] == fc.scenario
    json.dumps(case.metadata)  # run files stay plain JSON
    assert fact_case_of(case) == fc


def test_seed_memory_plan_writes_each_existing_fact_then_the_context():
    fc = next(c for c in CASES if len(c.existing_memory) >= 2)
    plan = seed_memory_plan(fc)
    adds = [args for tool, args in plan if tool == "add_entry"]
    assert [a["raw_entry"] for a in adds] == list(fc.existing_memory)
    assert all(a["summary"] and "memory_id" not in a and "vault_id" not in a for a in adds)
    (context,) = [args["content"] for tool, args in plan if tool == "put_context"]
    assert context == seed_context(fc.existing_memory)
    assert all(f in context for f in fc.existing_memory)
    tools = [tool for tool, _ in plan]
    assert tools.index("put_context") > max(i for i, t in enumerate(tools) if t == "add_entry")
    assert tools[-1] == "await_consistency"


def test_seed_memory_plan_is_empty_for_an_empty_memory():
    fc = next(c for c in CASES if not c.existing_memory)
    assert seed_memory_plan(fc) == []


# --- a user's own case file -----------------------------------------------------------------

GOOD = {
    "id": "mine-1",
    "scenario": "simple_extraction",
    "existing_memory": [],
    "conversation": [{"role": "user", "content": "I have two cats."}],
    "expected_output": ["User has 2 cats"],
    "expected_facts": ["User has 2 cats"],
}


def _write(tmp_path: Path, cases: list[dict], name: str = "mine.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"version": 1, "cases": cases}))
    return path


def test_user_file_in_the_same_format_loads(tmp_path):
    (fc,) = load_fact_cases(_write(tmp_path, [GOOD]))
    assert fc.expected_facts[0].fact == "User has 2 cats" and fc.expected_facts[0].terms == ()


@pytest.mark.parametrize(
    "change, field",
    [
        ({"conversation": [{"role": "bot", "content": "hi"}]}, "conversation[0].role"),
        ({"scenario": "chitchat"}, "scenario"),
        ({"expected_facts": [{"fact": "x", "terms": "cats"}]}, "expected_facts[0].terms"),
        ({"expected_facts": [{"text": "x"}]}, "expected_facts[0]"),
        ({"scenario": "chit_chat"}, "expected_facts"),
        ({"scenario": "conflict_resolution"}, "superseded_facts"),
        ({"conversation": [{"role": "assistant", "content": "hi"}]}, "conversation"),
        ({"extra_key": 1}, "extra_key"),
    ],
)
def test_bad_user_case_names_file_case_and_field(tmp_path, change, field):
    path = _write(tmp_path, [GOOD, {**GOOD, "id": "broken-7", **change}])
    with pytest.raises(DatasetError) as info:
        load_fact_cases(path)
    message = str(info.value)
    assert str(path) in message
    assert "case #1 (id 'broken-7')" in message
    assert f"field '{field}" in message


def test_missing_required_field_is_named(tmp_path):
    bad = {k: v for k, v in GOOD.items() if k != "conversation"} | {"id": "no-convo"}
    with pytest.raises(DatasetError, match=r"case #0 \(id 'no-convo'\), field 'conversation'"):
        load_fact_cases(_write(tmp_path, [bad]))


def test_duplicate_ids_are_rejected(tmp_path):
    with pytest.raises(DatasetError, match=r"case #1 \(id 'mine-1'\), field 'id': duplicate of case #0"):
        load_fact_cases(_write(tmp_path, [GOOD, GOOD]))


def test_invalid_json_and_missing_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1, "cases": [')
    with pytest.raises(DatasetError, match="broken.json: not valid JSON at line 1"):
        load_fact_cases(path)
    with pytest.raises(DatasetError, match="nope.json: cannot read"):
        load_fact_cases(tmp_path / "nope.json")


def test_wrong_top_level_shape(tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([GOOD]))
    with pytest.raises(DatasetError, match="(?s)list.json: .*field '\\(top level\\)'"):
        load_fact_cases(path)
