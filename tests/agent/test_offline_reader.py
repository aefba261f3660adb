"""The offline extractive reader: right sentence on hand-built contexts, abstains when nothing matches."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from benchmarker.agent.offline import ABSTAIN_ANSWER, OfflineReaderModel, extract_answer
from benchmarker.agent.prompts import render_qa_prompt

CONTEXT = """# Memory context
## facts
- 2023-05-20: I just adopted 2 cats named Luna and Milo.
## timeline
- 2023-05-20 user: I adopted 2 cats.

Entries:
- [2023/05/20 (Sat) 02:21] user: I just adopted 2 cats named Luna and Milo from the Oakland shelter.
- [2023/05/22 (Mon) 09:10] user: My sister Maria lives in Lisbon. She works as an architect.
- [2023/06/01 (Thu) 18:00] user: I ran the Bay to Breakers race in 1 hour and 52 minutes.
- [2023/06/03 (Sat) 12:00] assistant: Wet food helps cats stay hydrated."""


def ask(question: str, context: str = CONTEXT) -> str:
    prompt = render_qa_prompt(question, "2023/06/30 (Fri) 10:00", context)
    return OfflineReaderModel().invoke([HumanMessage(prompt)]).text


# The exact answer each question gets: the reader is deterministic, so a test names the sentence it
# picks (a substring check would pass a reader that returned every entry sharing a word).
# Derived once on main c5d6748 by asking the reader; re-derive only for a deliberate change.
PICKED = {
    # a short entry is answered whole: the second sentence carries "architect"
    "Where does my sister Maria live?": "My sister Maria lives in Lisbon. She works as an architect.",
    "What does my sister work as?": "My sister Maria lives in Lisbon. She works as an architect.",
    "How long did it take me to finish the Bay to Breakers race?":
        "I ran the Bay to Breakers race in 1 hour and 52 minutes.",
    # the facts line and the entry tie on the words; the facts line (earlier, the same date) wins
    "What are the names of the cats I adopted?": "2023-05-20: I just adopted 2 cats named Luna and Milo.",
}


def test_picks_the_sentence_that_answers():
    assert {question: ask(question) for question in PICKED} == PICKED


LONG_ENTRY = """Entries:
- [2023/07/02 (Sun) 11:00] user: We spent the whole weekend at the lake house with the family and it rained most \
of the time, which was a shame. My brother Tom brought his new kayak, a bright orange one. The neighbours invited us \
for a barbecue on Saturday night. I finally finished reading the novel my book club picked in May.
- [2023/07/09 (Sun) 09:00] user: Tom sold his kayak last week."""


def test_a_long_entry_is_answered_by_its_one_matching_sentence():
    # over SHORT_ENTRY characters: the sentence, not the entry; and never the other entry that shares "Tom"
    assert ask("What colour is the kayak my brother Tom brought?", LONG_ENTRY) == \
        "My brother Tom brought his new kayak, a bright orange one."
    assert ask("Who invited us for a barbecue?", LONG_ENTRY) == "The neighbours invited us for a barbecue on Saturday night."
    assert ask("What did Tom do with his kayak?", LONG_ENTRY) == "Tom sold his kayak last week."  # the latest wins


def test_count_questions_prefer_sentences_with_numbers():
    assert ask("How many cats did I adopt?") == "2023-05-20: I just adopted 2 cats named Luna and Milo."


def test_when_questions_carry_the_entry_date():
    assert ask("When did I run the Bay to Breakers race?") == \
        "On 2023-06-01: I ran the Bay to Breakers race in 1 hour and 52 minutes."


def test_abstains_when_nothing_matches():
    assert ask("What is the name of my guitar teacher?") == ABSTAIN_ANSWER
    assert ask("Where does my sister live?", context="") == ABSTAIN_ANSWER


def test_reader_is_deterministic_and_costs_nothing():
    prompt = render_qa_prompt("Where does Maria live?", "2023/06/30", CONTEXT)
    first = OfflineReaderModel().invoke(prompt)
    assert first.text == OfflineReaderModel().invoke(prompt).text
    assert first.usage_metadata["input_tokens"] == 0 and first.usage_metadata["output_tokens"] == 0


def test_a_prompt_without_the_sections_is_refused_plainly():
    assert "qa_reader.txt" in OfflineReaderModel().invoke("just a question?").text


def test_extract_answer_threshold():
    assert extract_answer("favourite colour of my car", "My car is red.") == "My car is red."
    assert extract_answer("favourite colour of my bicycle helmet strap", "My car is red.") == ABSTAIN_ANSWER
