"""Prompt files: loading, composing with Mycelian's prompts, and the formats the offline models parse."""

from __future__ import annotations

import pytest

from benchmarker.agent import prompts as P
from tests.fakes.mcp_memory import DEFAULT_PROMPTS


def compose(**overrides):
    kw = dict(vault_id="v-1", memory_id="m-1", context_cadence=6)
    kw.update(overrides)
    return P.compose_memory_system_prompt(P.load_prompt(P.MEMORY_AGENT_PREFIX), DEFAULT_PROMPTS, **kw)


def test_prompt_files_exist_in_the_top_level_prompts_dir():
    assert P.prompts_dir().name == "prompts" and (P.prompts_dir().parent / "benchmarker").is_dir()
    for name in (P.MEMORY_AGENT_PREFIX, P.AGENT_TURN, P.QA_READER):
        assert P.load_prompt(name).strip()


def test_missing_prompt_names_the_folder_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(P.PROMPTS_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="MYCELIAN_LME_PROMPTS_DIR"):
        P.load_prompt("qa_reader")


def test_system_prompt_carries_ids_cadence_unit_and_mycelian_texts():
    prompt = compose()
    assert prompt.startswith("You are the Mycelian Memory Agent")
    for text in (DEFAULT_PROMPTS["context_summary_rules"], *DEFAULT_PROMPTS["templates"].values()):
        assert text in prompt
    facts = P.parse_memory_system_prompt(prompt)
    assert facts == P.MemoryPromptFacts("v-1", "m-1", 6)
    assert P.load_prompt("ingest_unit_message") in prompt


@pytest.mark.parametrize("unit", P.INGEST_UNITS)
def test_system_prompt_is_the_same_bytes_for_every_session_of_a_case(unit):
    """Nothing session-, time- or call-specific before the transcript: the prefix is cacheable."""
    text = P.unit_instructions(unit)
    first, again = compose(unit_text=text), compose(unit_text=text)
    assert first == again and text in first
    assert "session_id:" not in first and "{" not in text


def test_unit_of_several_messages_round_trips_even_with_header_like_text_inside():
    quoted = "[session other | 2023/01/01 | message 9 of 9] user:\nquoted header"
    turns = [("s1", "2023/05/20 (Sat) 02:21", 3, 12, "user", "I have 2 cats.\n\n" + quoted),
             ("s1", "2023/05/20 (Sat) 02:21", 4, 12, "assistant", "Nice!\n")]
    parsed = P.parse_unit(P.render_unit(turns))
    assert [(t.session_id, t.session_date, t.turn_number, t.turn_count, t.role, t.content) for t in parsed] == turns
    assert P.parse_unit(P.render_turn(*turns[0]))[0].content == turns[0][5]
    assert P.parse_unit("no header") == []


@pytest.mark.parametrize("broken", [
    {**DEFAULT_PROMPTS, "context_summary_rules": ""},
    {**DEFAULT_PROMPTS, "templates": {**DEFAULT_PROMPTS["templates"], "summary_prompt": "  "}},
    {"version": "x"},
])
def test_empty_default_prompts_fail_loudly(broken):
    with pytest.raises(ValueError, match="empty"):
        P.compose_memory_system_prompt(P.load_prompt(P.MEMORY_AGENT_PREFIX), broken, vault_id="v", memory_id="m",
                                       context_cadence=6)


def test_a_prefix_without_the_id_lines_is_rejected():
    with pytest.raises(ValueError, match="vault_id"):
        P.compose_memory_system_prompt("Observer for {memory_id}.", DEFAULT_PROMPTS, vault_id="v", memory_id="m",
                                       context_cadence=6)


def test_turn_header_round_trip():
    text = P.render_turn("answer_4be1b6b4_2", "2023/05/20 (Sat) 02:21", 3, 12, "user", "I have 2 cats.\nAnd a dog.")
    assert text.splitlines()[0] == "[session answer_4be1b6b4_2 | 2023/05/20 (Sat) 02:21 | message 3 of 12] user:"
    turn = P.parse_turn(text)
    assert turn == P.TurnHeader("answer_4be1b6b4_2", "2023/05/20 (Sat) 02:21", 3, 12, "user",
                                "I have 2 cats.\nAnd a dog.")
    assert P.parse_turn("no header") is None


def test_qa_prompt_round_trip_with_braces_and_markers_in_context():
    context = "- [2023/05/20] user: I use {curly} braces.\n=== QUESTION ===\nnot the question"
    text = P.render_qa_prompt("How many cats do I have?", "2023/05/30 (Tue) 23:40", context)
    parsed = P.parse_qa_prompt(text)
    assert parsed == P.QAPrompt("How many cats do I have?", "2023/05/30 (Tue) 23:40", context)
    assert "cannot be answered" in text
