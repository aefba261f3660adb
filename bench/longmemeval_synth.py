"""A LongMemEval_S-shaped file of any size, seeded and streamed to disk, for the ingestion bench (issue 45).

    python bench/longmemeval_synth.py OUT.json [--questions 500] [--messages 550] [--seed 1]
                                      [--chars N]

Each question has its own haystack of about `--messages` messages in dated sessions of ~11 messages
(user / assistant alternating), with haystack_session_ids, haystack_dates and answer_session_ids like
the real file; the evidence session holds a user turn stating a fact (`has_answer: true`) that the
question asks about. Question types cycle through the six real ones. Message text is filler words
cut to the mean message length of the real S file (measured in ../shared/data/longmemeval/
longmemeval_s_5q.json when present, else FALLBACK_CHARS, its value when measured there), so the
embedder, the index and SQLite see texts of the real size. One instance is built at a time and
written out, so a 500 x 550 file (~300 MB) never sits in memory whole.
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from benchmarker.suites.longmemeval.data import QUESTION_TYPES

SHARED_S_FILE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "longmemeval" / "longmemeval_s_5q.json"
FALLBACK_CHARS = 997  # mean characters per message of longmemeval_s_5q.json (2,454 messages), measured once
SESSION_MESSAGES = 11
TYPE_CYCLE = ("multi-session", "temporal-reasoning", "knowledge-update", "single-session-user",
              "multi-session", "temporal-reasoning", "single-session-assistant", "single-session-preference")
WORDS = ("the", "a", "recipe", "garden", "weekend", "project", "budget", "travel", "camera", "museum", "coffee",
         "running", "meeting", "report", "guitar", "lesson", "neighbor", "apartment", "bicycle", "concert",
         "library", "novel", "painting", "weather", "flight", "hotel", "schedule", "workout", "dinner", "friend",
         "suggest", "consider", "usually", "because", "however", "several", "options", "would", "could", "might",
         "and", "with", "about", "from", "into", "your", "their", "really", "maybe", "also", "when", "which")
FACTS = {
    "degree": ["Business Administration", "Marine Biology", "Civil Engineering", "Art History", "Statistics"],
    "dog's name": ["Biscuit", "Luna", "Pepper", "Mochi", "Scout"],
    "commute": ["45 minutes", "20 minutes", "an hour", "35 minutes"],
    "favorite tea": ["jasmine", "earl grey", "rooibos", "sencha", "chai"],
    "gym": ["Iron Temple", "FitHub", "Peak Studio", "Core Club"],
}
assert set(TYPE_CYCLE) <= set(QUESTION_TYPES)


def mean_message_chars(path: Path = SHARED_S_FILE) -> float | None:
    """Mean characters per message of a LongMemEval file; None when it is absent."""
    if not path.is_file():
        return None
    messages = chars = 0
    for instance in json.loads(path.read_text(encoding="utf-8")):
        for session in instance["haystack_sessions"]:
            for message in session:
                messages += 1
                chars += len(message["content"])
    return chars / messages if messages else None


class Filler:
    """Word soup of about `chars` characters, cut from one seeded buffer: cheap enough for 275,000 texts."""

    def __init__(self, chars: int, rng: random.Random):
        self.chars = max(chars, 20)
        self.rng = rng
        self.buffer = " ".join(rng.choice(WORDS) for _ in range(200_000))

    def text(self) -> str:
        length = max(20, int(self.chars * self.rng.uniform(0.5, 1.5)))
        start = self.rng.randrange(0, len(self.buffer) - length - 1)
        return self.buffer[start:start + length].strip().capitalize() + "."


def lme_date(when: datetime) -> str:
    return when.strftime("%Y/%m/%d (%a) %H:%M")


def instance(index: int, messages: int, filler: Filler, rng: random.Random) -> dict:
    """One question with its haystack; fact stated in the answer session's first user turn."""
    n_sessions = max(1, round(messages / SESSION_MESSAGES))
    start = datetime(2023, 1, 1, 8, 0) + timedelta(days=rng.randrange(0, 120))
    answer_session = rng.randrange(n_sessions)
    attribute = rng.choice(sorted(FACTS))
    value = rng.choice(FACTS[attribute])
    ids, dates, sessions, made = [], [], [], 0
    for s in range(n_sessions):
        length = SESSION_MESSAGES if s < n_sessions - 1 else max(1, messages - made)
        session_id = f"answer_{index:04d}_{s}" if s == answer_session else f"synth_{index:04d}_{s}"
        when = start + timedelta(days=s, hours=rng.randrange(0, 10), minutes=rng.randrange(0, 60))
        turns = []
        for k in range(length):
            role = "user" if k % 2 == 0 else "assistant"
            if s == answer_session and k == 0:
                turns.append({"role": role, "content": f"By the way, my {attribute} is {value}. " + filler.text(),
                              "has_answer": True})
            else:
                turns.append({"role": role, "content": filler.text()})
        ids.append(session_id)
        dates.append(lme_date(when))
        sessions.append(turns)
        made += length
    return {"question_id": f"synth_{index:04d}", "question_type": TYPE_CYCLE[index % len(TYPE_CYCLE)],
            "question": f"What is my {attribute}?", "answer": value,
            "question_date": lme_date(start + timedelta(days=n_sessions + 1)),
            "haystack_session_ids": ids, "haystack_dates": dates, "haystack_sessions": sessions,
            "answer_session_ids": [ids[answer_session]]}


def write(out: Path, questions: int = 500, messages: int = 550, seed: int = 1, chars: int | None = None) -> dict:
    """Stream the file to `out`, one instance at a time; what was written (counts, chars, where it came from)."""
    measured = mean_message_chars() if chars is None else None
    target = chars or round(measured or FALLBACK_CHARS)
    rng = random.Random(seed)
    filler = Filler(target, rng)
    with open(out, "w", encoding="utf-8") as stream:
        stream.write("[\n")
        for index in range(questions):
            if index:
                stream.write(",\n")
            stream.write(json.dumps(instance(index, messages, filler, rng)))
        stream.write("\n]\n")
    source = "given" if chars else ("measured in " + SHARED_S_FILE.name if measured else "FALLBACK_CHARS")
    return {"file": str(out), "questions": questions, "messages_per_question": messages,
            "messages": questions * messages, "mean_chars_target": target, "chars_source": source}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--messages", type=int, default=550)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chars", type=int, help="mean characters per message (default: measured, see above)")
    args = parser.parse_args()
    print(json.dumps(write(args.out, args.questions, args.messages, args.seed, args.chars)))


if __name__ == "__main__":
    main()
