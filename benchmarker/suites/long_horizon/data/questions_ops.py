"""Question candidates from the operational blocks (security logs, incidents, problem solving),
temporal ordering, cross-block counting, and never-mentioned (abstention) questions."""

from __future__ import annotations

from benchmarker.suites.levels.data.spec import rubric
from benchmarker.suites.long_horizon.data import pools
from benchmarker.suites.long_horizon.data.questions import BASE, SOURCED, TEMPORAL, Candidate
from benchmarker.suites.long_horizon.data.world import World


def security_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("security", []):
        d = u.data
        out += [Candidate("security_log", "ip", f"Which IP address was behind alert {d['alert']}?", d["ip"],
                          rubric([d["ip"]], dimensions=SOURCED), [d["f_ip"]], u.part),
                Candidate("security_log", "count", d["count_q"],
                          f"{d['count']:,}", rubric(numbers=[d["count"]], dimensions=SOURCED), [d["f_count"]], u.part),
                Candidate("security_log", "host", f"Which host did alert {d['alert']} fire on?", d["host"],
                          rubric([d["host"]], dimensions=SOURCED), [d["f_host"]], u.part)]
    return out


def incident_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("incidents", []):
        d = u.data
        out += [Candidate("incident_root_cause", "cause", f"What was the root cause of {d['inc']}?", d["cause"][0].upper() + d["cause"][1:],
                          rubric(d["keys"], dimensions=BASE), [d["f_cause"]], u.part),
                Candidate("detail_recall", "incident_duration", f"How long was {d['service']} degraded during {d['inc']}?",
                          f"{d['minutes']} minutes", rubric(numbers=[d["minutes"]], dimensions=BASE), [d["f_report"]], u.part)]
    by_uid = {u.uid: u for block in ("security", "incidents") for u in w.units.get(block, [])}
    for h in w.hosts:
        events = [by_uid[uid] for uid in h["events"]]
        if events:
            n = len(events)
            out.append(Candidate("counting", "host_events",
                                 f"How many incidents and security alerts in total involved host {h['host']}?",
                                 f"{n} in total",
                                 rubric(numbers=[n], dimensions=BASE), [e.data["f_host"] for e in events], h["part"]))
    return out


def problem_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("problem_solving", []):
        d = u.data
        situation = f"{d['service']} had the problem where {d['symptom']}"
        out += [Candidate("problem_solving", "fix", f"What finally fixed it when {situation}?", d["fix"][0].upper() + d["fix"][1:],
                          rubric(d["fix_keys"], dimensions=BASE), [d["f_fix"], d["f_done"]], u.part),
                Candidate("problem_solving", "first_step", f"When {situation}, what did you suggest first?",
                          d["step1"][0].upper() + d["step1"][1:] + " (it did not help)", rubric(d["step_keys"], dimensions=BASE),
                          [d["f_step1"]], u.part)]
    return out


def ordering_questions(w: World) -> list[Candidate]:
    """Triples of incidents and alerts of one partition, asked in shuffled order."""
    out = []
    for part in (0, 1):
        items = [(w.facts[u.data["f_host"]].turn, u.data.get("inc") or u.data["alert"], u.data["f_host"])
                 for block in ("incidents", "security") for u in w.units.get(block, []) if u.part == part]
        w.rng.shuffle(items)
        for i in range(0, len(items) - 2, 3):
            triple = items[i:i + 3]
            ordered = sorted(triple)
            names = [t[1] for t in ordered]
            asked = [t[1] for t in triple]
            if asked == names:
                asked = asked[1:] + asked[:1]
            out.append(Candidate("temporal_ordering", "three_events",
                                 f"In what order did these come up in our conversations: {asked[0]}, {asked[1]} and {asked[2]}?",
                                 f"{names[0]}, then {names[1]}, then {names[2]}",
                                 rubric(names, sequence=names, dimensions=TEMPORAL), [t[2] for t in ordered], part))
    return out


NEVER_PERSON = ["Which university did {x} graduate from?", "What is {x}'s favourite sport?",
                "What is {x}'s phone extension?", "Which language is {x} learning in their spare time?"]
NEVER_PROJECT = ["Which vendor supplies the hardware for Project {x}?", "Who is the executive sponsor of Project {x}?",
                 "How many people sit on Project {x}'s steering committee?"]
NEVER_SERVICE = ["Who is the on-call owner of {x}?", "Which cloud region hosts {x}?"]


def never_questions(w: World) -> list[Candidate]:
    """Plausible questions about things never stated: attributes never given, entities never named."""
    out = []

    def add(template: str, question: str, topic: str, part: int, forbidden: list[str]) -> None:
        out.append(Candidate("never_mentioned", template, question, f"Not mentioned: our conversations never covered {topic}.",
                             rubric(abstain=True, forbidden=forbidden, dimensions=BASE), [], part))

    for i, u in enumerate(w.units.get("people", [])):
        q = NEVER_PERSON[i % len(NEVER_PERSON)]
        add(f"person_{i % len(NEVER_PERSON)}", q.format(x=u.data["full"]), f"that detail about {u.data['full']}", u.part, [])
    projects = w.units.get("projects", [])
    for i, u in enumerate(projects):
        q = NEVER_PROJECT[i % len(NEVER_PROJECT)]
        add(f"project_{i % len(NEVER_PROJECT)}", q.format(x=u.data["name"]), f"that detail of Project {u.data['name']}", u.part, [])
    used_services = {u.data["service"] for b in ("technical", "incidents", "problem_solving") for u in w.units.get(b, [])}
    for i, part in enumerate(w.alternate_parts(max(2, len(projects)))):
        ghost = w.draw("codename", pools.CODENAMES) if w._decks.get("codename") else None
        if ghost:
            budgets = [f"${p.data['budget']:,}" for p in projects if p.part == part][:2]
            add("ghost_project", f"What budget was approved for Project {ghost}?", f"a Project {ghost}", part, budgets)
        inc = w.unique(lambda: f"INC-{w.rng.randrange(1000, 9999)}")
        add("ghost_incident", f"What was the root cause of {inc}?", f"an incident called {inc}", part, [])
        service = sorted(used_services)[i % len(used_services)] if used_services else None
        if service:
            q = NEVER_SERVICE[i % len(NEVER_SERVICE)]
            add(f"service_{i % len(NEVER_SERVICE)}", q.format(x=service), f"that detail of {service}", part, [])
    return out
