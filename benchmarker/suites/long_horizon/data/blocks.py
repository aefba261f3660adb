"""Information blocks 1-6: people, projects, technical, evolving stories, numbers, contradictions.

Each block function adds units, facts and events to the World. Phrasings are varied per message
so the dialogue does not read like one template repeated.
"""

from __future__ import annotations

from datetime import timedelta

from benchmarker.suites.long_horizon.data import pools
from benchmarker.suites.long_horizon.data.world import World, article, long_date

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


def people(w: World, n: int) -> None:
    n_teams = max(2, -(-n // 3))
    teams = [w.draw("team", pools.TEAMS) for _ in range(n_teams)]
    parts = w.alternate_parts(n_teams)
    w.teams = [{"team": t, "part": p} for t, p in zip(teams, parts, strict=True)]
    for i in range(n):
        team_i = i % n_teams
        first, last = w.person_name()
        full, role, city = f"{first} {last}", w.rng.choice(pools.ROLES), w.rng.choice(pools.CITIES)
        u = w.unit("people", parts[team_i], first=first, last=last, full=full, role=role,
                   team=teams[team_i], city=city)
        f_role = w.fact(u, "role", role, full)
        f_team = w.fact(u, "team", teams[team_i], full)
        u.data.update(f_role=f_role, f_team=f_team)
        intro = w.rng.choice([
            f"{full} joined the {teams[team_i]} team as our new {role}.",
            f"Quick intro: {full} is the {role} on the {teams[team_i]} team.",
            f"Heads up, {full} started this week on {teams[team_i]}; {first} is {article(role)} {role}.",
        ])
        w.say("people", None, intro, (f_role, f_team))
        u.data["f_city"] = w.fact(u, "city", city, full)
        where = w.rng.choice([f"{first} works remotely from {city}.", f"{first} is based in our {city} office.",
                              f"By the way, {first} lives in {city}, so mind the time difference."])
        w.say("people", None, where, (u.data["f_city"],))


def projects(w: World, n: int) -> None:
    persons = w.units.get("people", [])
    for part in w.alternate_parts(n):
        name = w.draw("codename", pools.CODENAMES)
        lead = w.rng.choice([p for p in persons if p.part == part] or persons)
        budget = w.money(40_000, 950_000, 1_000)
        deadline = w.future_date(120, 800)
        k = w.rng.choice([3, 4])
        path = [pools.STATUSES[i] for i in sorted(w.rng.sample(range(len(pools.STATUSES)), k))]
        u = w.unit("projects", lead.part, name=name, lead=lead.uid, budget=budget, deadline=deadline.isoformat(),
                   statuses=path)
        subject = f"Project {name}"
        u.data["f_lead"] = w.fact(u, "lead", lead.data["full"], subject)
        u.data["f_budget"] = w.fact(u, "budget", budget, subject)
        u.data["f_deadline"] = w.fact(u, "deadline", deadline.isoformat(), subject)
        f_status = w.changing(u, "status", subject)
        u.data["f_status"] = f_status
        start = w.between(0.0, 0.35)
        w.say("projects", start, w.rng.choice([
            f"We kicked off Project {name} today, and {lead.data['full']} is leading it.",
            f"{lead.data['full']} will lead Project {name}, which we just kicked off.",
        ]), (u.data["f_lead"],))
        w.say("projects", w.between(start, min(0.99, start + 0.3)), w.rng.choice([
            f"Finance approved a budget of ${budget:,} for Project {name}.",
            f"Project {name} has a budget of ${budget:,}, signed off yesterday.",
        ]), (u.data["f_budget"],))
        w.say("projects", w.between(start, 0.95), w.rng.choice([
            f"The deadline for Project {name} is {long_date(deadline)}.",
            f"Project {name} has to be done by {long_date(deadline)}.",
        ]), (u.data["f_deadline"],))
        for j, status in enumerate(path):
            fid = w.fact(u, "status", status, subject, version_of=f_status)
            pos = start + (0.99 - start) * (j + w.rng.random()) / k
            text = (f"Status of Project {name}: {status}." if j == 0 else w.rng.choice([
                f"Status update: Project {name} is now {status}.", f"Project {name} moved to {status} this week.",
                f"Quick note: {name} is {status} as of today."]))
            w.say("projects", pos, text, (fid,))
        w.facts[f_status].value = path[-1]


def technical(w: World, n: int) -> None:
    attrs = ["port", "rate_limit", "database", "language", "latency_slo", "timeout"]
    combos = [(s, a) for s in pools.SERVICES for a in attrs]
    for part in w.alternate_parts(n):
        service, attr = w.draw("tech", combos)
        u = w.unit("technical", part, service=service, attr=attr)
        if attr == "port":
            value: int | str = w.rng.randrange(3000, 9900)
            text = f"{service} listens on port {value}."
        elif attr == "rate_limit":
            value = w.money(100, 6000, 50)
            text = f"The public rate limit on the {service} API is {value:,} requests per minute."
        elif attr == "database":
            value = f"{w.rng.choice(pools.DATABASES)} {w.rng.randrange(5, 17)}"
            text = f"{service} keeps its data in {value}."
        elif attr == "language":
            value = w.rng.choice(pools.LANGUAGES)
            text = f"{service} is written in {value}, in case anyone asks."
        elif attr == "latency_slo":
            value = w.money(80, 900, 10)
            text = f"The p99 latency target for {service} is {value} milliseconds."
        else:
            value = w.rng.randrange(5, 121)
            text = f"Client requests to {service} time out after {value} seconds."
        u.data.update(value=value, f=w.fact(u, attr, value, service))
        w.say("technical", None, text, (u.data["f"],))


STORIES = {  # kind -> (subject pool key, intro, update, value kind)
    "price": ("product", "{s} costs ${v} per month on the team plan.", "The {s} subscription is now ${v} per month."),
    "launch": ("product", "The {s} launch is planned for {v}.", "The {s} launch moved to {v}."),
    "mileage": ("friend", "{S} is running {v} km a week at the moment.", "{S} is up to {v} km a week now."),
    "apartment": ("friend", "{S} is apartment hunting in {v}.", "{S} gave up on the last area and is now looking in {v}."),
    "headcount": ("city", "The {s} support desk has {v} agents.", "The {s} support desk is at {v} agents now."),
    "vendor": ("thing", "We use {v} for {s}.", "We switched {s} over to {v}."),
}
THINGS = ["office snacks", "label printing", "courier pickups", "laptop repairs", "event catering",
          "translation work", "payroll processing", "security badges"]


def _story_values(w: World, kind: str, k: int) -> list:
    if kind == "price":
        return w.rng.sample(range(6, 240), k)
    if kind == "launch":
        days = sorted(w.rng.sample(range(90, 700), k))
        return [(w.epoch + timedelta(days=d)) for d in days]
    if kind == "mileage":
        return w.rng.sample(range(8, 95), k)
    if kind == "apartment":
        return w.rng.sample(pools.NEIGHBOURHOODS, k)
    if kind == "headcount":
        return w.rng.sample(range(4, 160), k)
    return w.rng.sample(pools.VENDORS, k)


def evolving(w: World, n: int) -> None:
    subjects = {"product": pools.PRODUCTS, "friend": pools.FRIEND_NAMES, "city": pools.CITIES, "thing": THINGS}
    combos = [(kind, s) for kind, (key, _, _) in STORIES.items() for s in subjects[key]]
    for part in w.alternate_parts(n):
        kind, subject = w.draw("story", combos)
        _key, intro, update = STORIES[kind]
        k = w.rng.choice([3, 4])
        values = _story_values(w, kind, k)
        shown = [long_date(v) if kind == "launch" else str(v) for v in values]
        stored = [v.isoformat() if kind == "launch" else str(v) for v in values]
        u = w.unit("evolving", part, kind=kind, subject=subject, values=stored, shown=shown)
        base = w.changing(u, kind, subject)
        u.data["f"] = base
        for j, (value, text_value) in enumerate(zip(stored, shown, strict=True)):
            fid = w.fact(u, kind, value, subject, version_of=base)
            template = intro if j == 0 else update
            text = template.format(s=subject, S=subject[0].upper() + subject[1:], v=text_value)
            w.say("evolving", (0.02 + 0.96 * (j + w.rng.random()) / k), text, (fid,))
        w.facts[base].value = stored[-1]


def numbers(w: World, n: int) -> None:
    kinds = ["bill", "seats", "orders", "tickets"]
    subjects = {"bill": [f"{c}-{e}" for c in pools.CLUSTERS for e in pools.ENVS], "seats": pools.PRODUCTS,
                "orders": pools.CITIES, "tickets": pools.PRODUCTS}
    combos = [(k, s) for k in kinds for s in subjects[k]]
    for part in w.alternate_parts(n):
        kind, s = w.draw("numbers", combos)
        m1, m2 = sorted(w.rng.sample(range(12), 2))
        if kind == "bill":
            a = w.money(2_000, 90_000, 10)
            b = a + w.rng.choice([-1, 1]) * w.money(100, 20_000, 10)
            texts = (f"The {MONTHS[m1]} cloud bill for the {s} cluster came to ${a:,}.",
                     f"{MONTHS[m2]}'s cloud bill for {s} was ${b:,}.")
            result = abs(b - a)
        elif kind == "seats":
            a, b = w.rng.randrange(8, 95), w.rng.randrange(12, 400)
            texts = (f"The vendor quoted ${a} per seat per year for {s}.", f"We will need {b} seats of {s}.")
            result = a * b
        elif kind == "orders":
            a, b = w.rng.randrange(150, 4000), w.rng.randrange(150, 4000)
            texts = (f"The {s} warehouse shipped {a:,} orders on Monday.", f"{s} shipped {b:,} orders on Tuesday.")
            result = a + b
        else:
            b = w.rng.randrange(40, 600)
            a = b + w.rng.randrange(5, 300)
            texts = (f"We opened {a} support tickets for {s} in {MONTHS[m1]}.",
                     f"Support closed {b} {s} tickets in {MONTHS[m1]}.")
            result = a - b
        u = w.unit("numbers", part, kind=kind, subject=s, a=a, b=b, result=result, m1=MONTHS[m1], m2=MONTHS[m2])
        u.data["f_a"], u.data["f_b"] = w.fact(u, "first", a, s), w.fact(u, "second", b, s)
        first = w.between(0.0, 0.8)
        w.say("numbers", first, texts[0], (u.data["f_a"],))
        w.say("numbers", w.between(first, 0.99), texts[1], (u.data["f_b"],))


def contradictions(w: World, n: int) -> None:
    kinds = ["iops", "outage", "rent", "start"]
    a: int | str  # a figure, or a date in words ("start")
    b: int | str
    for part in w.alternate_parts(n):
        kind = w.rng.choice(kinds)
        if kind == "iops":
            vendor = w.rng.choice(pools.VENDORS)
            s = w.unique(lambda: f"{vendor.split()[0]} SA-{w.rng.randrange(100, 990)}")  # noqa: B023 (called at once)
            a = w.money(200_000, 900_000, 1_000)
            b = a - w.money(40_000, 180_000, 1_000)
            texts = (f"The {vendor} datasheet says the {s} array sustains {a:,} IOPS.",
                     f"Our load test on the {s} array only reached {b:,} IOPS.")
            sources = (["datasheet", vendor], ["load test", "our test", "benchmark"])
        elif kind == "outage":
            s = w.unique(lambda: f"{w.rng.choice(pools.VENDORS)} outage on {MONTHS[w.rng.randrange(12)]} {w.rng.randrange(1, 29)}")
            a, b = w.rng.randrange(12, 90), w.rng.randrange(95, 300)
            texts = (f"The provider's status page says the {s} lasted {a} minutes.",
                     f"Our own monitoring shows the {s} ran for {b} minutes.")
            sources = (["status page", "provider"], ["monitoring"])
        elif kind == "rent":
            s = w.unique(lambda: f"{w.rng.choice(pools.CITIES)} office")
            a = w.money(4_000, 40_000, 50)
            b = a + w.money(500, 6_000, 50)
            texts = (f"The broker's listing puts the {s} rent at ${a:,} a month.",
                     f"Finance's budget sheet has the {s} rent at ${b:,} a month.")
            sources = (["broker", "listing"], ["finance", "budget sheet"])
        else:
            first, last = w.person_name()
            s = f"{first} {last}"
            d1 = w.future_date(30, 400)
            d2 = d1 + timedelta(days=w.rng.randrange(7, 60))
            a, b = long_date(d1), long_date(d2)
            texts = (f"The HR portal lists {s}'s start date as {a}.", f"{s}'s offer letter says the start date is {b}.")
            sources = (["HR portal", "portal"], ["offer letter"])
        u = w.unit("contradictions", part, kind=kind, subject=s, a=a, b=b, sources=sources)
        u.data["f_a"], u.data["f_b"] = w.fact(u, "source_a", a, s), w.fact(u, "source_b", b, s)
        w.say("contradictions", w.between(0.02, 0.5), texts[0], (u.data["f_a"],))
        w.say("contradictions", w.between(0.5, 0.98), texts[1], (u.data["f_b"],),
              assistant="Noted. That doesn't match what you told me earlier, so I'll keep both figures.")
