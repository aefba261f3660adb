"""A LoCoMo-format file of any size, seeded, for benchmarks (the real locomo10.json is the user's).

    python bench/locomo_synth.py OUT.json [--conversations 10] [--turns 600] [--questions 200] [--seed 1]

Each conversation is between two people over sessions of about 20 turns, dated a week apart.
Fact turns state one attribute of a speaker ("my sister's name is Noor"), the rest is chit-chat;
questions ask about stated facts (categories 1-4, evidence = the fact's dia id, one photo turn in
twenty has a caption) and about never-stated attributes (category 5, adversarial). The shape is
LoCoMo's (sample_id, conversation.speaker_a/b, session_<N>, session_<N>_date_time, qa).
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

NAMES = ["Caroline", "Melanie", "Jon", "Gina", "John", "Maria", "Joanna", "Nate", "Tim", "Audrey", "Andrew",
         "James", "Deborah", "Jolene", "Evan", "Sam", "Calvin", "Dave", "Priya", "Omar"]
ATTRIBUTES = {
    "sister's name": ["Noor", "Lena", "Ines", "Maya", "Rosa", "Kira", "Yuki", "Ada"],
    "dog's name": ["Biscuit", "Luna", "Max", "Pepper", "Rocky", "Olive", "Mochi", "Scout"],
    "favorite city": ["Lisbon", "Osaka", "Denver", "Oslo", "Lima", "Tunis", "Hanoi", "Quebec"],
    "new hobby": ["pottery", "climbing", "archery", "salsa", "chess", "kayaking", "baking", "origami"],
    "car": ["a red Civic", "a blue Golf", "a white Prius", "a green Jeep", "a black Tesla"],
    "job": ["nurse", "architect", "baker", "teacher", "pilot", "chemist", "lawyer", "florist"],
    "favorite book": ["Dune", "Emma", "Beloved", "Ulysses", "Matilda", "Solaris", "Rebecca"],
    "home country": ["Sweden", "Kenya", "Chile", "Vietnam", "Canada", "Ghana", "Peru", "Norway"],
    "instrument": ["violin", "cello", "drums", "flute", "piano", "banjo", "harp"],
    "allergy": ["peanuts", "cats", "pollen", "shellfish", "dust", "penicillin"],
}
CHITCHAT = ["How was your week?", "Pretty good, busy at work.", "That sounds nice!", "Haha, totally.",
            "I watched a movie last night.", "The weather has been lovely.", "Any plans for the weekend?",
            "Not really, maybe a walk in the park.", "Same here, I need some rest.", "Talk soon!",
            "I made pasta for dinner.", "Traffic was awful today.", "I love that idea.", "Oh really? Tell me more."]
CATEGORY_CYCLE = [4, 4, 1, 2, 3, 4, 2, 5]  # single-hop heavy, like LoCoMo


def conversation(index: int, turns: int, questions: int, rng: random.Random) -> dict:
    a, b = rng.sample(NAMES, 2)
    start = datetime(2023, 1, 2, 9, 0) + timedelta(days=rng.randrange(0, 200))
    conv: dict = {"speaker_a": a, "speaker_b": b}
    facts: list[tuple[str, str, str, str, str]] = []  # (speaker, attribute, value, dia_id, session date)
    n_sessions = max(1, round(turns / 20))
    made = 0
    for s in range(1, n_sessions + 1):
        date = start + timedelta(days=7 * (s - 1), hours=rng.randrange(0, 9), minutes=rng.randrange(0, 60))
        conv[f"session_{s}_date_time"] = date.strftime("%-I:%M %p on %-d %B, %Y").lower().replace(" pm", " pm")
        session = []
        length = min(20, turns - made) if s < n_sessions else turns - made
        for i in range(1, length + 1):
            speaker = a if i % 2 else b
            turn = {"speaker": speaker, "dia_id": f"D{s}:{i}"}
            if rng.random() < 0.3:
                attribute = rng.choice(sorted(ATTRIBUTES))
                value = rng.choice(ATTRIBUTES[attribute])
                turn["text"] = f"By the way, my {attribute} is {value}."
                facts.append((speaker, attribute, value, turn["dia_id"], date.strftime("%-d %B %Y")))
            else:
                turn["text"] = rng.choice(CHITCHAT)
            if rng.random() < 0.05:
                turn["img_url"] = [f"https://example.invalid/{index}/{s}/{i}.jpg"]
                turn["blip_caption"] = "a photo of " + rng.choice(["a beach", "a cake", "a mountain", "a cat"])
            session.append(turn)
        conv[f"session_{s}"] = session
        made += length
    qa = []
    for q in range(questions):
        category = CATEGORY_CYCLE[q % len(CATEGORY_CYCLE)]
        if category == 5 or not facts:
            who = rng.choice([a, b])
            attribute = rng.choice(sorted(ATTRIBUTES))
            qa.append({"question": f"What is {who}'s {attribute}?", "evidence": [], "category": 5,
                       "adversarial_answer": rng.choice(ATTRIBUTES[attribute])})
            continue
        speaker, attribute, value, dia_id, day = rng.choice(facts)
        if category == 2:
            qa.append({"question": f"When did {speaker} mention their {attribute}?", "answer": day,
                       "evidence": [dia_id], "category": 2})
        elif category == 1:
            other = rng.choice(facts)
            qa.append({"question": f"What are {speaker}'s {attribute} and {other[0]}'s {other[1]}?",
                       "answer": f"{value}; {other[2]}", "evidence": [dia_id, other[3]], "category": 1})
        else:
            qa.append({"question": f"What is {speaker}'s {attribute}?", "answer": value, "evidence": [dia_id],
                       "category": category})
    return {"sample_id": f"conv-{index + 1}", "conversation": conv, "qa": qa}


def generate(conversations: int, turns: int, questions: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [conversation(i, turns, questions, rng) for i in range(conversations)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.write_text(json.dumps(generate(args.conversations, args.turns, args.questions, args.seed)),
                        encoding="utf-8")
    print(args.out)


if __name__ == "__main__":
    main()
