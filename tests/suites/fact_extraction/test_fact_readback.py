"""Reading back what the agent wrote: entries + context -> candidate new facts."""

from __future__ import annotations

from benchmarker.suites.fact_extraction.data import (
    context_facts,
    extracted_facts_from_memory,
    seed_context,
    split_facts,
)

EXISTING = ["User's budget is $3,000", "User is traveling to Portugal"]


def test_seeded_context_alone_yields_nothing_new():
    assert extracted_facts_from_memory([], seed_context(EXISTING), EXISTING) == []


def test_context_lines_not_in_existing_memory_are_new_facts():
    context = """# Context
## Facts
- Budget: $3,000
- **Traveling to Portugal**
- Sister is joining the trip.
## Preferences
- none yet
Constraints: N/A
Last updated: 2024-01-15
---
"""
    assert extracted_facts_from_memory([], context, EXISTING) == ["Sister is joining the trip."]


def test_existing_fact_reformatted_is_not_new():
    assert extracted_facts_from_memory([], "- Traveling to Portugal\n- Budget: 3k", EXISTING) == []


def test_changed_value_is_new():
    assert extracted_facts_from_memory([], "- Budget: $4,500", EXISTING) == ["Budget: $4,500"]


def test_entries_use_summary_else_raw_text_and_skip_assistant_turns():
    entries = [
        {"entryId": "1", "rawEntry": "user: my sister joins", "summary": "User's sister is joining the trip.",
         "tags": {"role": "user"}},
        {"entryId": "2", "rawEntry": "User wants a beach hotel.", "summary": "", "tags": {"role": "user"}},
        {"entryId": "3", "summary": "Assistant suggested Sintra.", "tags": '{"role": "assistant"}'},
    ]
    assert extracted_facts_from_memory(entries, "", EXISTING) == [
        "User's sister is joining the trip.", "User wants a beach hotel.",
    ]
    assert "Assistant suggested Sintra." in extracted_facts_from_memory(
        entries, "", EXISTING, include_assistant_entries=True)


def test_seeding_entries_are_not_output():
    seeded = [{"summary": "User is traveling to Portugal and loves trams", "tags": {"seed": "existing_memory"}}]
    assert extracted_facts_from_memory(seeded, "", []) == []


def test_a_fact_starting_with_updated_is_kept():
    assert split_facts("Updated budget is $4,500\nLast updated: 2024-01-15\nUpdated: 2024-01-15") == [
        "Updated budget is $4,500"]


def test_duplicates_across_entries_and_context_are_dropped():
    entries = [{"summary": "Sister is joining the trip.", "tags": {"role": "user"}}]
    assert extracted_facts_from_memory(entries, "- sister is joining the trip", []) == ["Sister is joining the trip."]


def test_split_into_atomic_sentences_and_bullets():
    text = "User raised the budget to $4,500. Sister is joining; hotel must have a pool.\n1) Flight on May 3"
    assert split_facts(text) == [
        "User raised the budget to $4,500.", "Sister is joining", "hotel must have a pool.", "Flight on May 3",
    ]
    assert split_facts("Price is $3.50 per cup.") == ["Price is $3.50 per cup."]


def test_table_rows_become_key_value_facts():
    table = "| field | value |\n|---|---|\n| Budget | $4,500 |"
    assert split_facts(table) == ["Budget: $4,500"]


def test_placeholder_context_is_not_content():
    mycelian = ("This is default context that's created with the memory. "
                "Instructions for AI Agent: Provide relevant context as soon as it's available.")
    assert context_facts(mycelian) == []
    assert context_facts("This memory has no context yet.") == []
    assert context_facts("(placeholder context)") == []
    assert context_facts("") == []


def test_context_facts_keeps_existing_ones():
    assert context_facts(seed_context(EXISTING)) == EXISTING
