"""L5-L8: contradiction handling, incremental learning, teaching, metacognition."""

from __future__ import annotations

from datetime import timedelta

from benchmarker.suites.levels.data.basic import BASE, PEOPLE, SOURCED, TEMPORAL, _long
from benchmarker.suites.levels.data.spec import LevelBuilder, LevelSpec, rubric


def level_5(seed: int) -> LevelSpec:
    b = LevelBuilder("L5", seed)
    r = b.rng
    bridge = r.choice(["Harbour Street", "Millrace", "Kingsferry", "Old Tannery"])
    cost_a = r.randrange(20, 60) * 100_000
    cost_b = cost_a + r.randrange(4, 25) * 100_000
    done_a = b.start + timedelta(days=r.randrange(90, 200))
    done_b = done_a + timedelta(days=r.randrange(30, 120))
    lanes_a, lanes_b = r.choice([(1, 2), (2, 3), (1, 3)])
    s1 = b.add_session([f"From the city council newsletter: repairs on the {bridge} bridge will cost ${cost_a:,} and "
                        f"finish by {_long(done_a)}. {lanes_a} lane(s) will be closed. Work happens at night only."], days=0)
    s2 = b.add_session([f"From the contractor's report on the {bridge} bridge: the repair budget is ${cost_b:,}, "
                        f"completion is expected on {_long(done_b)}, and {lanes_b} lanes will be closed. They also "
                        f"confirm all work happens at night."], days=4)
    both = (s1, s2)
    b.ask("contradiction", "What did the sources say the bridge repair would cost?",
          f"The council newsletter says ${cost_a:,}; the contractor's report says ${cost_b:,}.",
          rubric([["council", "newsletter"], ["contractor"]], numbers=[cost_a, cost_b], dimensions=SOURCED), both)
    b.ask("contradiction", "When will the bridge repair be finished, according to each source?",
          f"The council says {_long(done_a)}; the contractor says {_long(done_b)}.",
          rubric([f"{done_a:%Y-%m-%d}", f"{done_b:%Y-%m-%d}", ["council", "newsletter"], ["contractor"]], dimensions=SOURCED), both)
    b.ask("contradiction", "How many lanes will be closed, and do the sources agree?",
          f"No: the council says {lanes_a}, the contractor says {lanes_b}.",
          rubric([["council", "newsletter"], ["contractor"]], numbers=[lanes_a, lanes_b], dimensions=SOURCED), both)
    b.ask("contradiction", "On which point do the council and the contractor agree?", "The work happens at night only.",
          rubric([["night"]], dimensions=SOURCED), both)
    b.ask("contradiction", "Which source gives the higher cost estimate?", f"The contractor's report (${cost_b:,})",
          rubric([["contractor"]], dimensions=SOURCED), both)
    return b.spec("Contradiction handling", "Two sources disagree; good answers report both values with their sources.")


def level_6(seed: int) -> LevelSpec:
    b = LevelBuilder("L6", seed)
    r = b.rng
    hotel1 = r.randrange(12, 20) * 10
    hotel2 = hotel1 + r.randrange(2, 8) * 10
    flight, per_diem, hours = r.randrange(5, 12) * 100, r.randrange(35, 70), r.choice([3, 4, 5])
    (f1, l1), (f2, l2) = r.sample(PEOPLE, 2)
    s1 = b.add_session([f"Our travel policy, version one: hotels are capped at ${hotel1} per night. Flights over "
                        f"${flight:,} need approval from {f1} {l1}. The per diem is ${per_diem} a day."], days=0)
    s2 = b.add_session([f"Travel policy update: the hotel cap goes up to ${hotel2} per night."], days=9)
    s3 = b.add_session([f"Another policy update: {f2} {l2} now approves the expensive flights instead of {f1}. New "
                        f"rule: take the train for trips under {hours} hours."], days=20)
    s4 = b.add_session(["Last policy change for now: the per diem is gone; we reimburse actual meal expenses "
                        "with receipts."], days=33)
    b.ask("incremental", "What is the hotel cap per night now?", f"${hotel2} per night",
          rubric(numbers=[hotel2], stale=[str(hotel1)], dimensions=TEMPORAL), (s2,))
    b.ask("incremental", "Who approves expensive flights now?", f"{f2} {l2}",
          rubric([[f"{f2} {l2}", l2]], stale=[f"{f1} {l1}"], dimensions=TEMPORAL), (s3,))
    b.ask("incremental", "What rule about trains was added, and with what threshold?",
          f"Take the train for trips under {hours} hours", rubric([["train"]], numbers=[hours], dimensions=BASE), (s3,))
    b.ask("incremental", "Is there still a per diem?", "No, meals are reimbursed from receipts instead.",
          rubric([["receipt", "actual"]], yes_no="no", dimensions=TEMPORAL), (s4,))
    b.ask("incremental", "What was the hotel cap before it was raised?", f"${hotel1} per night",
          rubric(numbers=[hotel1], dimensions=TEMPORAL), (s1, s2))
    b.ask("incremental", "Above what price do flights need approval?", f"${flight:,}",
          rubric(numbers=[flight], dimensions=BASE), (s1,))
    return b.spec("Incremental learning", "A policy that changes over four sessions; answers need the current state.")


def level_7(seed: int) -> LevelSpec:
    b = LevelBuilder("L7", seed)
    r = b.rng
    crown, lantern, key = r.sample(range(2, 10), 3)
    bonus = r.randrange(3, 9) * 5
    b.add_session([
        "I'm going to teach you a card game called Tallow; please learn the scoring rules.",
        f"Every hand has 5 cards. A Crown is worth {crown} points, a Lantern {lantern} points and a Key {key} points.",
        f"A hand with at least three Keys earns a bonus of {bonus} points. Lanterns count double when the hand has no Crowns.",
    ])
    h1 = 2 * crown + 3 * lantern
    h2 = 3 * key + bonus + 2 * lantern * 2
    h3 = crown + 4 * key + bonus
    h4 = 5 * lantern * 2
    b.ask("teaching", "Under the Tallow rules, what is a hand of 2 Crowns and 3 Lanterns worth?", f"{h1} points",
          rubric(numbers=[h1], dimensions=BASE))
    b.ask("teaching", "What is a Tallow hand of 3 Keys and 2 Lanterns worth?", f"{h2} points",
          rubric(numbers=[h2], dimensions=BASE))
    b.ask("teaching", "How many points is a single Crown worth in Tallow?", f"{crown} points", rubric(numbers=[crown], dimensions=BASE))
    b.ask("teaching", "When do Lanterns count double?", "When the hand has no Crowns",
          rubric([["no crown", "without crown", "without any crown", "zero crown", "no crowns"]], dimensions=BASE))
    b.ask("teaching", "Does a hand of 5 Lanterns beat a hand of 1 Crown and 4 Keys?",
          f"{'Yes' if h4 > h3 else 'No'}: 5 Lanterns score {h4}, 1 Crown and 4 Keys score {h3}.",
          rubric(numbers=[h4, h3], yes_no="yes" if h4 > h3 else "no", dimensions=BASE))
    return b.spec("Teaching", "The user teaches scoring rules; questions ask to apply them to new hands.")


def level_8(seed: int) -> LevelSpec:
    b = LevelBuilder("L8", seed)
    r = b.rng
    city = r.choice(["Ljubljana", "Porto", "Tartu", "Halifax", "Trieste"])
    month = r.choice(["March", "May", "September", "October"])
    fee, (first, last) = r.randrange(30, 90) * 10, r.choice(PEOPLE)
    b.add_session([
        f"Notes on the conference trip: it's in {city} in {month}, but the exact dates are not confirmed yet.",
        f"Registration costs ${fee}. I have not decided whether to bring {first} {last}.",
        "The hotel is booked, though I can't remember its name right now.",
    ])
    b.ask("metacognition", "In which city is the conference?", city, rubric([city], dimensions=BASE))
    b.ask("metacognition", "What are the exact dates of the conference?",
          f"Not confirmed yet: only the month, {month}, was given.", rubric(abstain=True, dimensions=BASE))
    b.ask("metacognition", "How much does registration cost?", f"${fee}", rubric(numbers=[fee], dimensions=BASE))
    b.ask("metacognition", f"Is {first} {last} coming along?", "That has not been decided yet.",
          rubric(abstain=True, forbidden=[], dimensions=BASE))
    b.ask("metacognition", "What is the name of the hotel?", "Not stated: the hotel is booked but its name was never given.",
          rubric(abstain=True, dimensions=BASE))
    b.ask("metacognition", "Is the hotel booked?", "Yes, it is booked.", rubric([["booked"]], yes_no="yes", dimensions=BASE))
    b.ask("metacognition", "In which month is the conference?", month, rubric([month], dimensions=BASE))
    return b.spec("Metacognition", "Some questions are answerable, some are not (yet); the agent must know which.")
