"""Prompt files: loading, composing with Mycelian's prompts, and the formats the offline models parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarker.agent import prompts as P
from benchmarker.memory import limits as L
from embedded_memory.prompts import default_prompts
from tests.fakes.mcp_memory import DEFAULT_PROMPTS

REPO = Path(__file__).resolve().parents[2]


def compose(mycelian_prompts=DEFAULT_PROMPTS, **overrides):
    kw = dict(vault_id="v-1", memory_id="m-1", context_cadence=6)
    kw.update(overrides)
    return P.compose_memory_system_prompt(P.load_prompt(P.MEMORY_AGENT_PREFIX), mycelian_prompts, **kw)


def test_prompt_files_exist_in_the_top_level_prompts_dir(monkeypatch):
    monkeypatch.delenv(P.PROMPTS_ENV, raising=False)
    assert P.prompts_dir().resolve() == (REPO / "prompts").resolve()  # the package maps to the checkout
    for name in (P.MEMORY_AGENT_PREFIX, P.AGENT_TURN, P.QA_READER):
        assert P.load_prompt(name).strip()


def test_missing_prompt_names_the_folder_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(P.PROMPTS_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="MYCELIAN_LME_PROMPTS_DIR.*unset"):
        P.load_prompt("qa_reader")
    monkeypatch.delenv(P.PROMPTS_ENV)
    with pytest.raises(FileNotFoundError, match="benchmarker.prompts.*pip install"):
        P.load_prompt("no_such_prompt")


def test_a_candidate_directory_overrides_the_shipped_prompts(tmp_path):
    (tmp_path / "qa_reader.txt").write_text("candidate {question}\n", encoding="utf-8")
    assert P.load_prompt("qa_reader", tmp_path) == "candidate {question}"


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


# --- one place for Mycelian's numbers -------------------------------------------------------

def literal_limits(text: str) -> list[str]:
    """Mycelian's numbers written out in a prompt text instead of a placeholder."""
    sizes = (L.SUMMARY_CHARS, L.CONTEXT_CHARS, L.RAW_ENTRY_CHARS)
    patterns = [rf"(?<![\d.,]){n}(?!\d)" for n in sizes]
    patterns += [rf"(?<![\d.,]){n // 1000}[, \u202f]{n % 1000:03d}(?!\d)" for n in sizes if n >= 1000]  # 5,000
    patterns += [rf"top_k\W{{1,3}}{L.SEARCH_TOP_K}\b", rf"\blimit\W{{1,3}}{L.BOOTSTRAP_ENTRIES}\b",
                 rf"\blast {L.BOOTSTRAP_ENTRIES} entries", rf"\b(?:every|about) {L.MYCELIAN_CONTEXT_CADENCE}\b"]
    return [m.group(0) for p in patterns for m in re.finditer(p, text, re.I)]


PROMPT_FILES = sorted((REPO / "prompts").glob("*.txt")) + sorted(
    (REPO / "embedded_memory/default_prompts").rglob("*.md"))


@pytest.mark.parametrize("path", PROMPT_FILES, ids=lambda p: p.name)
def test_no_prompt_file_writes_a_limit_out(path):
    assert literal_limits(path.read_text(encoding="utf-8")) == [], \
        f"{path.name}: use the placeholders of benchmarker.memory.limits.PROMPT_LIMITS"


def test_the_literal_check_catches_written_numbers():
    found = literal_limits("at most 512 characters, 5,000 chars, 9000 chars, top_k=5, limit 10, about 6 msgs")
    assert found == ["512", "9000", "5,000", "top_k=5", "limit 10", "about 6"]
    assert literal_limits("1512 or 5.512 and top_k 50, limit 100, 2023-05-12") == []


def test_composed_system_prompt_states_the_limits_of_limits_py():
    for prompts in (DEFAULT_PROMPTS, default_prompts("chat")):
        prompt = compose(prompts)
        assert f"summary (at most {L.SUMMARY_CHARS} characters" in prompt
        assert f"context document (at most {L.CONTEXT_CHARS} characters" in prompt
        assert f"top_k {L.SEARCH_TOP_K}." in prompt and f"list_entries with limit {L.BOOTSTRAP_ENTRIES}" in prompt
        assert not re.search(r"\{[a-z_]+\}", prompt), "a placeholder was left unfilled"
    served = compose(default_prompts("chat"))
    assert f"Default `top_k` is {L.SEARCH_TOP_K};" in served and f"limit={L.BOOTSTRAP_ENTRIES})" in served
    assert served.count(f"at most {L.SUMMARY_CHARS} characters") >= 3


def test_the_prefix_follows_limits_py_not_a_copy(monkeypatch):
    monkeypatch.setitem(L.PROMPT_LIMITS, "summary_chars", 300)
    monkeypatch.setitem(L.PROMPT_LIMITS, "search_top_k", 7)
    prompt = compose()
    assert "summary (at most 300 characters" in prompt and "top_k 7." in prompt
    assert P.parse_memory_system_prompt(prompt) == P.MemoryPromptFacts("v-1", "m-1", 6)


def test_render_limits_fills_only_its_own_placeholders():
    text = 'at most {summary_chars}; tags {"role": "user"}; {unknown} and {{summary_chars}}'
    assert L.render_limits(text) == (f'at most {L.SUMMARY_CHARS}; tags {{"role": "user"}}; {{unknown}} '
                                     f'and {{{L.SUMMARY_CHARS}}}')


# --- Mycelian's cadence sentences follow [params].context_cadence ---------------------------

def test_cadence_3_is_the_only_cadence_the_agent_reads():
    served = default_prompts("chat")
    assert "about every 6 messages" in served["templates"]["context_prompt"]  # Mycelian's own words
    prompt = compose(served, context_cadence=3)
    assert P.parse_memory_system_prompt(prompt).context_cadence == 3
    assert "- Context cadence: every 3 messages (message numbers divisible by 3)" in prompt
    assert "About every 3 messages, and always at the end of a session" in prompt
    assert "about every 3 messages and at the end of every session" in prompt
    assert "After about 3 captured messages" in prompt
    assert not re.search(r"\b(?:every|about) 6\b|≈ ?6\b", prompt)


def test_cadence_sentences_of_a_real_mycelian_server_are_restated():
    mycelian = {"context_summary_rules": "Flush cadence: after you've stored ≈ 6 messages (user + assistant), "
                                         "call put_context. Check {≈6 stored?}. Cap: ≈ 4 800 chars (≈80 tokens).",
                "templates": {"context_prompt": "Save it about every 6 messages.",
                              "entry_capture_prompt": "Every 6 months nothing happens; add_entry per message.",
                              "summary_prompt": "At most 512 characters."}}
    prompt = compose(mycelian, context_cadence=4)
    assert "stored ≈ 4 messages" in prompt and "{≈4 stored?}" in prompt and "about every 4 messages" in prompt
    assert "≈ 4 800 chars (≈80 tokens)" in prompt and "Every 6 months" in prompt


def test_cadence_6_leaves_mycelians_texts_untouched():
    served = default_prompts("chat")
    prompt = compose(served, context_cadence=6)
    for text in (served["context_summary_rules"], *served["templates"].values()):
        assert text.strip() in prompt
