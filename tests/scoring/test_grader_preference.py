"""The deterministic grader's single-session-preference rule against what GPT-4o does with LongMemEval's
preference prompt (issue 27): the rubric's personal details count, the question's own topic does not,
and an answer that says it knows nothing about the user is generic advice."""

from __future__ import annotations

from benchmarker.scoring.grader import grade_deterministic, rubric_keywords

PREF = "single-session-preference"
MIAMI_Q = "Can you suggest a hotel for my upcoming trip to Miami?"
MIAMI_RUBRIC = ("The user would prefer suggestions of hotels in Miami that offer ocean views and have a rooftop pool. "
                "They may not prefer suggestions of basic or budget hotels.")


def grade(rubric: str, hypothesis: str, question: str = "") -> bool:
    return grade_deterministic(PREF, "p1", rubric, hypothesis, question=question).label


def test_the_questions_own_topic_is_not_personal_information():
    """'hotel' and 'Miami' are in every on-topic answer: only the rest of the rubric shows tailoring."""
    generic = "Here are some popular hotels in Miami: the Grand Hotel and the Plaza Hotel. Book early for good rates."
    tailored = "Try the Setai: its rooftop pool looks over the ocean, and every suite has ocean views."
    assert not grade(MIAMI_RUBRIC, generic, MIAMI_Q)
    assert grade(MIAMI_RUBRIC, tailored, MIAMI_Q)


def test_without_the_question_every_rubric_word_counts():
    assert "miami" in rubric_keywords(MIAMI_RUBRIC)
    assert "miami" not in rubric_keywords(MIAMI_RUBRIC, question=MIAMI_Q)


def test_a_named_detail_that_is_the_questions_topic_is_not_required_twice():
    """'Tokyo' is named by the question, so using the Suica card (one of the two personal details) is enough."""
    question = "I'm a bit anxious about getting around Tokyo. Any tips?"
    rubric = ("The user would prefer responses that utilize their existing resources, such as their Suica card and "
              "TripIt app, to give tips for navigating Tokyo's public transportation.")
    hyp = "Top up your Suica card before you go: it works on every train and bus, so public transportation is easy."
    assert grade(rubric, hyp, question)


def test_telling_the_user_what_to_do_when_unsure_is_no_refusal():
    """'If you're unsure about directions, ask staff' is advice, not the answer declining."""
    question = "I'm a bit anxious about getting around Tokyo. Any tips?"
    rubric = ("The user would prefer responses that utilize their existing resources, such as their Suica card and "
              "TripIt app, to give tips for navigating Tokyo's public transportation.")
    hyp = ("1. Use your Suica card on every train and bus of the public transportation network.\n"
           "2. Keep your TripIt app itinerary open for each day's route.\n"
           "3. If you're unsure about directions, ask the station staff.")
    assert grade(rubric, hyp, question)


def test_an_answer_that_knows_nothing_about_the_user_fails_even_on_topic():
    question = "I'm a bit anxious about getting around Tokyo. Any tips?"
    rubric = ("The user would prefer responses that utilize their existing resources, such as their Suica card and "
              "TripIt app, to give tips for navigating Tokyo's public transportation.")
    hyp = ("There is no specific information about your travel plans in our chat history, so here are general tips: "
           "buy a Suica card for public transportation and plan routes with an app.")
    assert not grade(rubric, hyp, question)


async def test_a_runs_scoring_gives_the_grader_the_records_question():
    """The eval phase and `calibrate` grade answer lines through `score`: the line's question reaches the rule."""
    from benchmarker.scoring.judges import DeterministicGrader
    from benchmarker.score import score

    line = {"kind": "longmemeval", "case_id": "p1", "question_id": "p1", "question_type": PREF, "question": MIAMI_Q,
            "answer": MIAMI_RUBRIC, "hypothesis": "Here are some popular hotels in Miami: the Grand Hotel and the Plaza Hotel."}
    assert (await score(line, None, DeterministicGrader())).to_line()["label"] is False
    assert (await score({**line, "question": ""}, None, DeterministicGrader())).to_line()["label"] is True
