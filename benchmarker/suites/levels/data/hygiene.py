"""L14 selective forgetting (current vs stale values) and L15 adversarial recall (never-stated questions
mixed with answerable controls)."""

from __future__ import annotations

from benchmarker.suites.levels.data.basic import BASE, PEOPLE, TEMPORAL
from benchmarker.suites.levels.data.spec import LevelBuilder, LevelSpec, rubric

LUNCH = ["Noodle Bar Kiku", "the Green Fork", "Casa Miro", "Dumpling Corner", "Pho Lantern", "the Salt Shed"]
ROOMS = ["the Juniper room", "the Attic", "Room 4B", "the Boathouse", "the Fishbowl", "the Greenhouse"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
SESSION_DAYS = [0, 5, 11, 18, 26]


def _facts(r) -> list[dict]:
    k = lambda: r.choice([3, 4])  # noqa: E731
    managers = [f"{first} {last}" for first, last in r.sample(PEOPLE, 4)]
    return [
        {"name": "desk", "values": [str(v) for v in r.sample(range(2, 60), k())], "numeric": True,
         "first": "My desk is number {v}.", "update": "I moved desks again; I'm at desk {v} now.",
         "q": "What is my desk number now?", "a": "Desk {v}"},
        {"name": "lunch", "values": r.sample(LUNCH, k()), "numeric": False,
         "first": "The team has lunch at {v} on Fridays.", "update": "Friday lunch has moved to {v}.",
         "q": "Where does the team have Friday lunch now?", "a": "{v}"},
        {"name": "sprint", "values": [str(v) for v in r.sample([2, 3, 4, 5, 6], k())], "numeric": True,
         "first": "Our sprints are {v} weeks long.", "update": "We changed the sprint length to {v} weeks.",
         "q": "How long are our sprints now?", "a": "{v} weeks"},
        {"name": "release", "values": r.sample(DAYS, k()), "numeric": False,
         "first": "Releases go out on {v}.", "update": "From now on releases go out on {v}.",
         "q": "On which day do releases go out now?", "a": "{v}"},
        {"name": "manager", "values": managers[:k()], "numeric": False,
         "first": "My manager is {v}.", "update": "Reorg news: my manager is now {v}.",
         "q": "Who is my manager now?", "a": "{v}"},
        {"name": "standup", "values": r.sample(ROOMS, k()), "numeric": False,
         "first": "Standup happens in {v}.", "update": "Standup moved to {v}.",
         "q": "Where does standup happen now?", "a": "{v}"},
    ]


def _strip_the(value: str) -> str:
    return value[4:] if value.startswith("the ") else value


def level_14(seed: int) -> LevelSpec:
    b = LevelBuilder("L14", seed)
    facts = _facts(b.rng)
    per_session: list[list[str]] = [[] for _ in SESSION_DAYS]
    for fact in facts:
        slots = sorted(b.rng.sample(range(1, len(SESSION_DAYS)), len(fact["values"]) - 1))
        for j, value in enumerate(fact["values"]):
            template = fact["first"] if j == 0 else fact["update"]
            per_session[0 if j == 0 else slots[j - 1]].append(template.format(v=value))
    sids = [b.add_session(texts, days=d) for texts, d in zip(per_session, SESSION_DAYS, strict=True)]
    expectations = {}
    for fact in facts:
        current, stale = fact["values"][-1], [v for v in fact["values"][:-1]]
        if fact["numeric"]:
            rub = rubric(numbers=[current], stale=stale, dimensions=TEMPORAL)
        elif fact["name"] == "manager":
            rub = rubric([[current, current.split()[-1]]], stale=stale, dimensions=TEMPORAL)
        else:
            rub = rubric([_strip_the(current)], stale=[_strip_the(s) for s in stale], dimensions=TEMPORAL)
        qid = b.ask("selective_forgetting", fact["q"], fact["a"].format(v=current), rub, tuple(sids))
        expectations[qid] = {"current": current, "stale": stale}
    desk = facts[0]["values"]
    b.ask("selective_forgetting", "What was my desk number before the most recent move?", f"Desk {desk[-2]}",
          rubric(numbers=[desk[-2]], dimensions=TEMPORAL), tuple(sids))
    return b.spec("Selective forgetting", "Facts updated several times; credit for the current value, a penalty for "
                  "presenting a stale value as current.", scoring="forgetting", weights={"stale_penalty": 0.5},
                  expectations={"facts": expectations})


def level_15(seed: int) -> LevelSpec:
    b = LevelBuilder("L15", seed)
    r = b.rng
    venue, town = r.choice([("Larchwood Lodge", "Kessel"), ("the Old Mill Hotel", "Brantmoor"), ("Saltcliff House", "Orrin Bay")])
    people, (sf, sl) = r.randrange(24, 80), r.choice(PEOPLE)
    topic = r.choice(["memory systems that forget on purpose", "shipping small", "why our tests lie to us"])
    dinner = r.choice(["Trattoria Verde", "the Copper Pot", "Smokehouse 19", "Maison Lune"])
    bus = r.choice(["7:30", "8:15", "9:00"])
    b.add_session([
        f"Offsite details: we're going to {venue} in {town}. {people} people are coming.",
        f"The keynote is by {sf} {sl}, about {topic}. Dinner on the first night is at {dinner}.",
        f"The bus leaves the main office at {bus} in the morning.",
    ])
    controls = [
        ("Where is the offsite being held?", f"{_strip_the(venue)} in {town}", rubric([_strip_the(venue)], dimensions=BASE)),
        ("How many people are coming to the offsite?", str(people), rubric(numbers=[people], dimensions=BASE)),
        ("Who gives the keynote?", f"{sf} {sl}", rubric([[f"{sf} {sl}", sl]], dimensions=BASE)),
        ("Where is dinner on the first night?", _strip_the(dinner), rubric([_strip_the(dinner)], dimensions=BASE)),
        ("What time does the bus leave?", bus, rubric([bus], dimensions=BASE)),
    ]
    traps = [
        ("Where is dinner on the second night?", [_strip_the(dinner)]),
        ("Who gives the closing talk?", [sl]),
        ("How much does the venue cost per night?", []),
        ("What time does the bus come back?", [bus]),
        ("What is the Wi-Fi password at the venue?", []),
    ]
    order = list(range(10))
    r.shuffle(order)
    adversarial, control_ids = [], []
    for i in order:
        if i < 5:
            q, a, rub = controls[i]
            control_ids.append(b.ask("adversarial_control", q, a, rub))
        else:
            q, bad = traps[i - 5]
            adversarial.append(b.ask("adversarial", q, "That was never mentioned.",
                                     rubric(abstain=True, forbidden=bad, dimensions=BASE)))
    return b.spec("Adversarial recall", "Plausible questions about things never stated, mixed with answerable controls; "
                  "scored so that refusing everything or answering everything both fail.", scoring="adversarial",
                  weights={"combine": "harmonic mean of control accuracy and abstention rate"},
                  expectations={"adversarial_ids": adversarial, "control_ids": control_ids})
