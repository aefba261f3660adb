"""How the offline memory agent writes one message: a dated, attributed raw entry and a past-tense
summary that keeps the most salient sentences (numbers, names, preferences, decisions)."""

from __future__ import annotations

import re

from benchmarker.agent.harness_entry import message_raw_entry
from benchmarker.agent.offline_reader import has_number, iso_date, split_sentences
from benchmarker.memory.limits import SUMMARY_CHARS

SUMMARY_MAX = SUMMARY_CHARS
PREFERENCE_RE = re.compile(r"\b(i (really )?(like|love|prefer|enjoy|hate|dislike|adore)|i'm (a big )?fan|"
                           r"my favou?rite|i don't like|i do not like|i'm into|i am into)\b", re.I)
DECISION_RE = re.compile(r"\b(decided|decide|will|going to|plan to|planning to|chose|choose|booked|signed up|"
                         r"settled on|agreed)\b", re.I)
NOT_NAMES = frozenset("I I'm I've I'd I'll The A An And But Or So If It This That These Those My Your Our "
                      "Their We You He She They What When Where Why How Which Who Yes No Ok Okay Sure "
                      "Thanks Thank Hi Hello Hey Also However Here There".split())


# --- what one message becomes -------------------------------------------------------------

def summarize_message(role: str, content: str, session_date: str, max_chars: int = SUMMARY_MAX) -> str:
    """Past-tense summary keeping the ISO date, numbers and names: salient sentences first."""
    speaker = {"user": "the user", "assistant": "the assistant"}.get(role, role)  # LoCoMo: a person's name
    lead = f"On {iso_date(session_date)} {speaker} said: "
    sentences = split_sentences(content)
    if not sentences:
        return f"On {iso_date(session_date)} {speaker} sent an empty message."
    ranked = sorted(range(len(sentences)), key=lambda i: (-_salience(sentences[i], i), i))
    chosen: list[int] = []
    used = len(lead)
    for i in ranked:
        if used + len(sentences[i]) + 1 <= max_chars:
            chosen.append(i)
            used += len(sentences[i]) + 1
    if not chosen:  # one long sentence: cut it at a word boundary
        room = max_chars - len(lead) - 3
        return lead + sentences[0][:room].rsplit(" ", 1)[0] + "..."
    return lead + " ".join(sentences[i] for i in sorted(chosen))


def _salience(sentence: str, index: int) -> int:
    return 2 * has_number(sentence) + bool(names_in(sentence)) + bool(PREFERENCE_RE.search(sentence)) \
        + (index == 0)


def names_in(sentence: str) -> list[str]:
    """Runs of capitalised words that do not open the sentence: names, places, products."""
    names: list[str] = []
    run: list[str] = []
    words = sentence.split()
    for i, token in enumerate(words):
        word = token.strip(".,;:!?\"'()[]")
        starts_sentence = i == 0 or words[i - 1][-1:] in ".!?:"
        if word[:1].isupper() and word[1:].islower() and not starts_sentence and word not in NOT_NAMES:
            run.append(word)
            if token[-1:] in ".,;:!?)\"'":
                names.append(" ".join(run))
                run = []
        elif run:
            names.append(" ".join(run))
            run = []
    if run:
        names.append(" ".join(run))
    return names


def raw_entry(role: str, content: str, session_date: str) -> str:
    """The entry text: the dialogue's own date and the speaker, then the message verbatim (the form the
    prompt asks for, and what the harness stores with `[agent] raw_entry = "harness"`)."""
    return message_raw_entry(role, content, session_date)


# --- the context document ------------------------------------------------------------------
