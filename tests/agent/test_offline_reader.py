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


def test_picks_the_sentence_that_answers():
    assert "Lisbon" in ask("Where does my sister Maria live?")
    assert "architect" in ask("What does my sister work as?")
    assert "1 hour and 52 minutes" in ask("How long did it take me to finish the Bay to Breakers race?")
    assert "Luna and Milo" in ask("What are the names of the cats I adopted?")


def test_count_questions_prefer_sentences_with_numbers():
    assert "2 cats" in ask("How many cats did I adopt?")


def test_when_questions_carry_the_entry_date():
    answer = ask("When did I run the Bay to Breakers race?")
    assert "2023-06-01" in answer and "Bay to Breakers" in answer


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
    assert extract_answer("favourite colour of my car", "My car is red.") != ABSTAIN_ANSWER
    assert extract_answer("favourite colour of my bicycle helmet strap", "My car is red.") == ABSTAIN_ANSWER
