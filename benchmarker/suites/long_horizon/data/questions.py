"""Question candidates for the 17 categories, built from a laid-out world (facts carry their turns).

Every candidate belongs to the partition of the units it asks about; the standard set draws from
partition 0 and the holdout set from partition 1, so the sets share no question and no evidence fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from benchmarker.suites.levels.data.spec import rubric
from benchmarker.suites.long_horizon.data.world import World, long_date

CATEGORIES = (
    "detail_recall", "latest_value", "past_value", "counting", "multi_hop", "contradiction", "callback",
    "distractor_resistance", "numerical_reasoning", "temporal_ordering", "never_mentioned", "security_log",
    "incident_root_cause", "infrastructure_config", "problem_solving", "person_role", "project_status",
)
BASE = ("factual_accuracy", "specificity", "confidence_calibration")
TEMPORAL = BASE + ("temporal_awareness",)
SOURCED = BASE + ("source_attribution",)


@dataclass
class Candidate:
    category: str
    template: str
    question: str
    answer: str
    rubric: dict[str, Any]
    facts: list[str]
    part: int


def _md(iso: str) -> str:
    d = date.fromisoformat(iso)
    return f"{d:%B} {d.day}"


def _date_rubric(iso: str, **kw: Any) -> dict[str, Any]:
    return rubric([[iso, _md(iso)]], **kw)


def people_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("people", []):
        d = u.data
        out += [Candidate("person_role", "role", f"What is {d['full']}'s role?", d["role"],
                          rubric([d["role"]], dimensions=BASE), [d["f_role"]], u.part),
                Candidate("person_role", "team", f"Which team is {d['full']} on?", f"The {d['team']} team",
                          rubric([d["team"]], dimensions=BASE), [d["f_team"]], u.part),
                Candidate("detail_recall", "city", f"Where is {d['full']} based?", d["city"],
                          rubric([d["city"]], dimensions=BASE), [d["f_city"]], u.part)]
    for team in w.teams:
        members = [u for u in w.units.get("people", []) if u.data["team"] == team["team"]]
        if members:
            n = len(members)
            out.append(Candidate("counting", "team_size", f"How many people on the {team['team']} team have I told you about?",
                                 f"{n} {'person' if n == 1 else 'people'}", rubric(numbers=[n], dimensions=BASE),
                                 [m.data["f_team"] for m in members], team["part"]))
    return out


def project_questions(w: World) -> list[Candidate]:
    people = {u.uid: u for u in w.units.get("people", [])}
    out = []
    for u in w.units.get("projects", []):
        d, lead = u.data, people[u.data["lead"]].data
        name, versions = d["name"], w.facts[d["f_status"]].versions
        out += [
            Candidate("person_role", "lead", f"Who is leading Project {name}?", lead["full"],
                      rubric([[lead["full"], lead["last"]]], dimensions=BASE), [d["f_lead"]], u.part),
            Candidate("detail_recall", "budget", f"What budget was approved for Project {name}?", f"${d['budget']:,}",
                      rubric(numbers=[d["budget"]], dimensions=BASE), [d["f_budget"]], u.part),
            Candidate("detail_recall", "deadline", f"What is the deadline for Project {name}?",
                      long_date(date.fromisoformat(d["deadline"])), _date_rubric(d["deadline"], dimensions=BASE),
                      [d["f_deadline"]], u.part),
            Candidate("project_status", "current", f"What is the current status of Project {name}?", d["statuses"][-1],
                      rubric([d["statuses"][-1]], stale=[s for s in d["statuses"][:-1] if s != d["statuses"][-1]],
                             dimensions=TEMPORAL), [versions[-1]], u.part),
            Candidate("multi_hop", "lead_city", f"Where is the person leading Project {name} based?", lead["city"],
                      rubric([lead["city"]], dimensions=BASE), [d["f_lead"], lead["f_city"]], u.part),
            Candidate("multi_hop", "lead_role", f"What is the role of the person who leads Project {name}?", lead["role"],
                      rubric([lead["role"]], dimensions=BASE), [d["f_lead"], lead["f_role"]], u.part),
            Candidate("multi_hop", "lead_team", f"Which team is the lead of Project {name} on?", f"The {lead['team']} team",
                      rubric([lead["team"]], dimensions=BASE), [d["f_lead"], lead["f_team"]], u.part),
        ]
        k = _changed_later(w, versions)
        if k is not None:
            when = long_date(date.fromisoformat(w.facts[versions[k]].date))
            out.append(Candidate("past_value", "status_as_of", f"What was the status of Project {name} as of {when}?",
                                 d["statuses"][k], rubric([d["statuses"][k]], dimensions=TEMPORAL),
                                 [versions[k], versions[k + 1]], u.part))
    return out


def _changed_later(w: World, versions: list[str]) -> int | None:
    """The last version index whose successor arrived in a later session (so 'as of' is unambiguous)."""
    for k in range(len(versions) - 2, -1, -1):
        if w.facts[versions[k]].date < w.facts[versions[k + 1]].date:
            return k
    return None


STORY_Q = {  # kind -> (latest question, as-of question, answer format, numeric)
    "price": ("How much does {s} cost per month now?", "How much did {s} cost per month as of {d}?", "${v} per month", True),
    "launch": ("When is the {s} launch planned for now?", "As of {d}, when was the {s} launch planned for?", "{v}", False),
    "mileage": ("How many kilometres a week is {s} running these days?", "How many kilometres a week was {s} running as of {d}?", "{v} km a week", True),
    "apartment": ("Which neighbourhood is {s} looking at for an apartment now?", "Which neighbourhood was {s} looking at as of {d}?", "{v}", False),
    "headcount": ("How many agents does the {s} support desk have now?", "How many agents did the {s} support desk have as of {d}?", "{v} agents", True),
    "vendor": ("Which vendor handles {s} now?", "Which vendor handled {s} as of {d}?", "{v}", False),
}


def _story_rubric(kind: str, value: str, stale: list[str], dims: tuple[str, ...]) -> dict[str, Any]:
    if kind == "launch":
        return _date_rubric(value, stale=stale, dimensions=dims)
    if STORY_Q[kind][3]:
        return rubric(numbers=[value], stale=stale, dimensions=dims)
    return rubric([value], stale=stale, dimensions=dims)


def story_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("evolving", []):
        d = u.data
        kind, s, values, shown = d["kind"], d["subject"], d["values"], d["shown"]
        latest_q, asof_q, fmt, _ = STORY_Q[kind]
        versions = w.facts[d["f"]].versions
        stale = [v for v in values[:-1] if v != values[-1]]
        out.append(Candidate("latest_value", kind, latest_q.format(s=s), fmt.format(v=shown[-1]),
                             _story_rubric(kind, values[-1], stale, TEMPORAL), [versions[-1]], u.part))
        k = _changed_later(w, versions)
        if k is not None:
            when = long_date(date.fromisoformat(w.facts[versions[k]].date))
            out.append(Candidate("past_value", f"{kind}_as_of", asof_q.format(s=s, d=when), fmt.format(v=shown[k]),
                                 _story_rubric(kind, values[k], [], TEMPORAL), [versions[k], versions[k + 1]], u.part))
    return out


TECH_Q = {
    "port": ("Which port does {s} listen on?", "Port {v}"),
    "rate_limit": ("What is the public rate limit on the {s} API?", "{v:,} requests per minute"),
    "database": ("Which database does {s} keep its data in?", "{v}"),
    "language": ("What language is {s} written in?", "{v}"),
    "latency_slo": ("What is the p99 latency target for {s}?", "{v} milliseconds"),
    "timeout": ("After how many seconds do client requests to {s} time out?", "{v} seconds"),
}


def technical_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("technical", []):
        d = u.data
        q, a = TECH_Q[d["attr"]]
        value = d["value"]
        if isinstance(value, int):
            rub = rubric(numbers=[value], dimensions=BASE)
        elif d["attr"] == "database":
            name, version = value.rsplit(" ", 1)
            rub = rubric([name], numbers=[version], dimensions=BASE)
        else:
            rub = rubric([value], dimensions=BASE)
        out.append(Candidate("detail_recall", d["attr"], q.format(s=d["service"]), a.format(v=value), rub, [d["f"]], u.part))
    for u in w.units.get("infrastructure", []):
        d = u.data
        out.append(Candidate("infrastructure_config", d["kind"], d["question"], d["answer"],
                             rubric(numbers=[d["value"]], dimensions=BASE), [d["f"]], u.part))
    return out


def numbers_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("numbers", []):
        d = u.data
        s, r = d["subject"], d["result"]
        if d["kind"] == "bill":
            q = f"By how much did the {s} cluster's cloud bill change from {d['m1']} to {d['m2']}?"
            a = f"It went {'up' if d['b'] > d['a'] else 'down'} by ${r:,}"
        elif d["kind"] == "seats":
            q, a = f"What will all the {s} seats we need cost per year in total?", f"${r:,} per year"
        elif d["kind"] == "orders":
            q, a = f"How many orders did the {s} warehouse ship on Monday and Tuesday combined?", f"{r:,} orders"
        else:
            q, a = f"By how many tickets did the {s} support backlog grow in {d['m1']}?", f"{r} tickets"
        out.append(Candidate("numerical_reasoning", d["kind"], q, a, rubric(numbers=[r], dimensions=BASE),
                             [d["f_a"], d["f_b"]], u.part))
    return out


CONTRA_Q = {
    "iops": ("What IOPS figures have we heard for the {s} array, and from which sources?",
             "The datasheet claims {a:,} IOPS, but our load test reached only {b:,} IOPS."),
    "outage": ("How long did the {s} last, according to each source?",
               "The provider's status page says {a} minutes; our monitoring shows {b} minutes."),
    "rent": ("What monthly rent do we have on record for the {s}, and from which sources?",
             "The broker's listing says ${a:,} a month; finance's budget sheet says ${b:,} a month."),
    "start": ("What start date do we have for {s}, and where does each date come from?",
              "The HR portal says {a}; the offer letter says {b}."),
}


def contradiction_questions(w: World) -> list[Candidate]:
    out = []
    for u in w.units.get("contradictions", []):
        d = u.data
        q, a = CONTRA_Q[d["kind"]]
        sources = [list(s) for s in d["sources"]]
        rub = (rubric([d["a"], d["b"]] + sources, dimensions=SOURCED) if d["kind"] == "start"
               else rubric(sources, numbers=[d["a"], d["b"]], dimensions=SOURCED))
        out.append(Candidate("contradiction", d["kind"], q.format(s=d["subject"]), a.format(a=d["a"], b=d["b"]), rub,
                             [d["f_a"], d["f_b"]], u.part))
    return out


def memory_questions(w: World) -> list[Candidate]:
    """Callbacks to early turns and distractor resistance."""
    out = []
    for u in w.units.get("callbacks", []):
        d = u.data
        if d["kind"] == "plant":
            q, a, req = f"What did I name the {d['subject']} I mentioned near the beginning?", d["value"], [d["value"]]
        elif d["kind"] == "codeword":
            q, a, req = f"What codeword did I pick for the {d['subject']} signal?", f"'{d['value']}'", [d["value"]]
        else:
            q, a = f"Who wrote '{d['subject']}', the book I started reading early on?", d["value"]
            req = [[d["value"], d["value"].split()[-1]]]
        out.append(Candidate("callback", d["kind"], q, a, rubric(req, dimensions=BASE), [d["f"], d["f_late"]], u.part))
    people = {u.uid: u for u in w.units.get("people", [])}
    for u in w.units.get("distractors", []):
        d = u.data
        full = people[d["person"]].data["full"]
        value, other = d["value"], d["other"]
        if d["kind"] == "car":
            q, a = f"What car does {full} drive?", f"A {value}"
            req, bad = [[value, value.split(" ", 1)[1]]], [other.split(" ", 1)[1]]
        else:
            q = {"pet": f"What is {full}'s dog called?", "coffee": f"What is {full}'s usual coffee order?",
                 "commute": f"How does {full} commute to work?"}[d["kind"]]
            a, req, bad = value, [value], [other]
        out.append(Candidate("distractor_resistance", d["kind"], q, a, rubric(req, forbidden=bad, dimensions=BASE),
                             [d["f"]], u.part))
    return out
