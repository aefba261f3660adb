"""L16 decision from memory: requirements and option facts arrive in different sessions; each question
asks for a choice among three options, exactly one of which meets every requirement.

Each wrong option breaks exactly one requirement (a different one each), and the one that breaks a
non-price requirement is the cheapest, so remembering only prices leads to the wrong choice.
Scored by benchmarker.scoring.rubric / level_scoring: decision 0.5, reasoning 0.3, recall 0.2.
"""

from __future__ import annotations

from benchmarker.suites.levels.data.basic import BASE
from benchmarker.suites.levels.data.spec import LevelBuilder, LevelSpec, rubric

DECISION_WEIGHTS = {"decision": 0.5, "reasoning": 0.3, "recall": 0.2}
LABELS = "ABC"


def _vendor(r):
    cap = r.randrange(30, 80) * 1000
    return {
        "thing": "data warehouse vendor", "names": ["Northwind Data", "Corvid Analytics", "Tessellate", "Bramblecloud", "Quarrystone DB"],
        "requirement": f"For the data warehouse vendor: at most ${cap:,} a year, SOC 2 certified, and data kept in the EU.",
        "recall": [[f"${cap:,}", "SOC 2"]],
        "attrs": [
            ("price", lambda: cap - r.randrange(1, 8) * 1000, lambda: cap + r.randrange(2, 15) * 1000,
             lambda n, v: f"{n} costs ${v:,} a year.", lambda v: [f"${v:,}"]),
            ("soc2", lambda: True, lambda: False,
             lambda n, v: f"{n} is SOC 2 certified." if v else f"{n} has no SOC 2 certification yet.", lambda v: ["SOC 2"]),
            ("eu", lambda: True, lambda: False,
             lambda n, v: f"{n} hosts data in the EU, in Frankfurt." if v else f"{n} only hosts data in the US.",
             lambda v: ["EU", "Europe", "Frankfurt"]),
        ]}


def _venue(r):
    head, limit, cap = r.randrange(30, 90), r.choice([60, 90, 120]), r.randrange(8, 20) * 10
    return {
        "thing": "offsite venue", "names": ["Larchwood Lodge", "Harrow Barn", "The Glasshouse", "Pinecrest Inn", "Millpond Hall"],
        "requirement": f"For the offsite venue: room for all {head} of us, within {limit} km of the office, at most ${cap} per person.",
        "recall": [[str(head)]],
        "attrs": [
            ("price", lambda: cap - r.randrange(1, 5) * 5, lambda: cap + r.randrange(2, 9) * 5,
             lambda n, v: f"{n} charges ${v} per person.", lambda v: [f"${v}"]),
            ("capacity", lambda: head + r.randrange(5, 40), lambda: head - r.randrange(3, 15),
             lambda n, v: f"{n} holds {v} people.", lambda v: [f"{v} people", str(v)]),
            ("distance", lambda: limit - r.randrange(10, 40), lambda: limit + r.randrange(20, 80),
             lambda n, v: f"{n} is {v} km from the office.", lambda v: [f"{v} km"]),
        ]}


def _flight(r):
    cap, land_by = r.randrange(25, 60) * 10, r.choice(["11:30", "12:30", "13:00"])
    h = int(land_by[:2])
    return {
        "thing": "flight to the client meeting", "names": ["Skylark Air", "Polar Wings", "Meridian Jet", "Coastline Airways", "Bluebird Air"],
        "requirement": f"For the client-meeting flight: land by {land_by}, a refundable fare, and at most ${cap}.",
        "recall": [[land_by]],
        "attrs": [
            ("price", lambda: cap - r.randrange(2, 10) * 10, lambda: cap + r.randrange(2, 12) * 10,
             lambda n, v: f"{n} costs ${v}.", lambda v: [f"${v}"]),
            ("arrival", lambda: f"{h - r.randrange(1, 3):02d}:{r.choice(['05', '20', '45'])}",
             lambda: f"{h + r.randrange(1, 3):02d}:{r.choice(['10', '35', '50'])}",
             lambda n, v: f"{n} lands at {v}.", lambda v: [v]),
            ("refundable", lambda: True, lambda: False,
             lambda n, v: f"{n}'s fare is refundable." if v else f"{n}'s fare cannot be refunded.", lambda v: ["refundable"]),
        ]}


def _hire(r):
    cap, weeks = r.randrange(90, 160) * 1000, r.choice([4, 6, 8])
    return {
        "thing": "SRE candidate", "names": ["Ada Brennan", "Kofi Mensah", "Lena Varga", "Ravi Iyer", "Sofia Lund"],
        "requirement": f"For the SRE hire: production Kubernetes experience, a salary within ${cap:,}, and able to start within {weeks} weeks.",
        "recall": [[f"${cap:,}", f"{weeks} weeks"]],
        "attrs": [
            ("price", lambda: cap - r.randrange(2, 12) * 1000, lambda: cap + r.randrange(5, 20) * 1000,
             lambda n, v: f"{n} is asking for ${v:,}.", lambda v: [f"${v:,}"]),
            ("kubernetes", lambda: True, lambda: False,
             lambda n, v: f"{n} has run Kubernetes in production for years." if v else f"{n} has never worked with Kubernetes.",
             lambda v: ["Kubernetes"]),
            ("start", lambda: weeks - r.randrange(1, 3), lambda: weeks + r.randrange(3, 8),
             lambda n, v: f"{n} can start in {v} weeks.", lambda v: [f"{v} weeks"]),
        ]}


def _laptop(r):
    cap = r.randrange(14, 30) * 100
    return {
        "thing": "team laptop", "names": ["Fennec 14", "Kestrel Pro", "Orca Air", "Tern X1", "Lumen Book"],
        "requirement": f"For the team laptops: at least 32 GB of RAM, at most 1.4 kg, and at most ${cap:,} each.",
        "recall": [[f"${cap:,}", "32 GB", "1.4 kg"]],
        "attrs": [
            ("price", lambda: cap - r.randrange(1, 6) * 50, lambda: cap + r.randrange(2, 10) * 50,
             lambda n, v: f"The {n} costs ${v:,}.", lambda v: [f"${v:,}"]),
            ("ram", lambda: r.choice([32, 64]), lambda: 16, lambda n, v: f"The {n} has {v} GB of RAM.", lambda v: [f"{v} GB"]),
            ("weight", lambda: r.choice([1.1, 1.2, 1.3]), lambda: r.choice([1.8, 1.9, 2.1]),
             lambda n, v: f"The {n} weighs {v} kg.", lambda v: [f"{v} kg"]),
        ]}


def _options(r, spec) -> tuple[list[dict], int]:
    names = r.sample(spec["names"], 3)
    correct = r.randrange(3)
    wrong = [i for i in range(3) if i != correct]
    broken = {wrong[0]: 0, wrong[1]: r.randrange(1, 3)}  # one breaks price; the other a non-price rule
    options = []
    for i, name in enumerate(names):
        values = {a[0]: (a[2]() if broken.get(i) == k else a[1]()) for k, a in enumerate(spec["attrs"])}
        options.append({"name": name, "values": values})
    cheapest = min(o["values"]["price"] for o in options)
    step = 5 if cheapest < 1_000 else 50 if cheapest < 10_000 else 1_000
    options[wrong[1]]["values"]["price"] = cheapest - step  # the tempting choice: cheapest, but breaks a rule
    return options, correct


def level_16(seed: int) -> LevelSpec:
    b = LevelBuilder("L16", seed)
    r = b.rng
    specs = [make(r) for make in (_vendor, _venue, _flight, _hire, _laptop)]
    built = [(spec, *_options(r, spec)) for spec in specs]
    b.add_session([spec["requirement"] for spec in specs], days=0)
    option_texts = [" ".join(a[3](o["name"], o["values"][a[0]]) for a in spec["attrs"])
                    for spec, options, _ in built for o in options]
    r.shuffle(option_texts)
    half = len(option_texts) // 2
    b.add_session(option_texts[:half], days=3)
    b.add_session(option_texts[half:], days=6)
    expectations = {}
    for spec, options, correct in built:
        labels = {LABELS[i]: o["name"] for i, o in enumerate(options)}
        listing = ", ".join(f"{k}) {v}" for k, v in labels.items())
        best = options[correct]
        facts = [a[3](best["name"], best["values"][a[0]]) for a in spec["attrs"]]
        justify = [a[4](best["values"][a[0]]) for a in spec["attrs"]]
        answer = (f"Decision: {LABELS[correct]} ({best['name']}). It is the only option that meets every requirement. "
                  + " ".join(facts) + " " + spec["requirement"])
        rub = rubric(justify=justify, recall=spec["recall"], dimensions=BASE,
                     choice={"options": labels, "correct": LABELS[correct]}, weights=dict(DECISION_WEIGHTS))
        qid = b.ask("decision", f"Given everything I told you, which {spec['thing']} should we pick: {listing}? "
                    "Start your answer with 'Decision: <letter>' and explain why.", answer, rub)
        expectations[qid] = {"options": labels, "correct": LABELS[correct]}
    return b.spec("Decision from memory", "Pick one of three options using requirements and option facts remembered "
                  "from different sessions.", scoring="decision", weights=dict(DECISION_WEIGHTS),
                  expectations={"decisions": expectations})
