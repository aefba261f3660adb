"""L13 tool selection: each session is a scenario with the memory-tool calls the agent should make.

The expected sequences follow the Mycelian chat prompts: bootstrap a session with get_context then
list_entries; one add_entry per message (user and assistant); await_consistency then put_context
every `context_cadence` messages (the cadence the agent was told: `[params].context_cadence`, or a
self-improve candidate's) and at session end (reading the context first is optional);
search_memories when the user asks about something said earlier (before answering).
`$vault_id` / `$memory_id` are bound by the scorer.
"""

from __future__ import annotations

from functools import partial

from benchmarker.suites.levels.data.basic import BASE, TEMPORAL
from benchmarker.suites.levels.data.spec import ArgCheck, ExpectedCall, LevelBuilder, LevelSpec, ToolScenario, rubric

DEFAULT_CADENCE = 6  # the config's [params].context_cadence default
IDS: dict[str, ArgCheck] = {"vault_id": {"equals": "$vault_id"}, "memory_id": {"equals": "$memory_id"}}


def _add(text_check: ArgCheck | None = None) -> ExpectedCall:
    args: dict[str, ArgCheck] = {**IDS, "raw_entry": text_check or {"present": True}, "summary": {"present": True}}
    return ExpectedCall("add_entry", args)


def _persist(content_check: ArgCheck | None = None) -> list[ExpectedCall]:
    return [ExpectedCall("await_consistency", {"memory_id": {"equals": "$memory_id"}}),
            ExpectedCall("get_context", IDS, note="read before rewriting", optional=True),
            ExpectedCall("put_context", {**IDS, "content": content_check or {"present": True}})]


def expected_session(entry_checks: list[ArgCheck | None], context_check: ArgCheck | None = None,
                     search: ArgCheck | None = None, search_before: int = -1,
                     cadence: int = DEFAULT_CADENCE) -> tuple[ExpectedCall, ...]:
    """Bootstrap, one add_entry per message (with optional checks), persistence on cadence and at the end."""
    calls = [ExpectedCall("get_context", IDS), ExpectedCall("list_entries", IDS)]
    for i, check in enumerate(entry_checks):
        if search is not None and i == search_before:
            calls.append(ExpectedCall("search_memories", {"memory_id": {"equals": "$memory_id"}, "query": search}))
        calls.append(_add(check))
        if (i + 1) % cadence == 0 and i + 1 < len(entry_checks):
            calls += _persist()
    return tuple(calls + _persist(context_check))


def has(word: str) -> ArgCheck:
    """The check that an argument contains `word`."""
    return {"contains": word}


def level_13(seed: int, context_cadence: int = DEFAULT_CADENCE) -> LevelSpec:
    """The same sessions and questions for every cadence; only the expected put_context points move."""
    b = LevelBuilder("L13", seed)
    session = partial(expected_session, cadence=context_cadence)
    r = b.rng
    city = r.choice(["Berlin", "Lisbon", "Montreal", "Osaka", "Valparaíso", "Tallinn"])
    company = r.choice(["Fernhill Robotics", "Quayside Analytics", "Marrow Labs", "Brightpath Energy"])
    month1, month2 = r.sample(["March", "April", "June", "August", "October"], 2)
    gym_days, gym_time = r.choice([("Tuesdays and Thursdays", "7 pm"), ("Mondays and Fridays", "6 am"),
                                   ("Wednesdays and Saturdays", "8 am")])
    scenarios = []
    sid = b.add_session([f"Big news: I'm moving to {city} in {month1}.", f"My new employer there is {company}."],
                        days=0, assistant={0: "Congratulations, that's exciting!", 1: "Nice, noted."})
    scenarios.append(ToolScenario("new_fact", sid, "Session start, then the user states new facts: bootstrap, "
                                  "one add_entry per message, persist context at session end.",
                                  session([has(city), None, has(company), None], has(city))))
    sid = b.add_session([f"I go to the gym on {gym_days}.", f"Class starts at {gym_time}.", "I usually go with my sister."],
                        days=2, assistant={0: "Good routine.", 1: "Early!", 2: "Nice to have company."})
    scenarios.append(ToolScenario("six_messages", sid, "Six messages: await_consistency then put_context each time "
                                  "the cadence is reached and at session end.",
                                  session([None] * 6, {"contains_any": gym_days.split(" and ")})))
    sid = b.add_session(["Remind me, which city am I moving to?"], days=5,
                        assistant={0: f"You're moving to {city}."})
    scenarios.append(ToolScenario("recall_question", sid, "The user asks about an earlier session: search_memories "
                                  "before answering, then capture both messages.",
                                  session([None, has(city)], search={"contains_any": ["city", "moving", "move", city]},
                                                   search_before=0)))
    sid = b.add_session([f"Correction: the move is in {month2}, not {month1}."], days=8,
                        assistant={0: f"Updated: {month2}."})
    scenarios.append(ToolScenario("correction", sid, "A correction: capture it and persist a context that carries "
                                  "the new value.", session([has(month2), None], has(month2))))
    sid = b.add_session([f"Packing list so far: boxes, tape, labels. Flights booked for {month2}.",
                         "Also need to cancel the gym membership.", "And forward my mail.",
                         "Remind me to call the landlord.", "Last thing: sell the old bike.", "That's all for today."],
                        days=11)
    scenarios.append(ToolScenario("twelve_messages", sid, "Twelve messages: context persisted every cadence messages "
                                  "and again at session end.", session([None] * 12, has("bike"))))
    b.ask("recall", "Which city is the user moving to?", city, rubric([city], dimensions=BASE))
    b.ask("recall", "Who is the user's new employer?", company, rubric([company], dimensions=BASE))
    b.ask("recall", "In which month is the move now planned?", month2, rubric([month2], stale=[month1], dimensions=TEMPORAL))
    b.ask("recall", "On which days does the user go to the gym?", gym_days,
          rubric([[d] for d in gym_days.split(" and ")], dimensions=BASE))
    b.ask("recall", "What time does the user's gym class start?", gym_time,
          rubric([[gym_time, gym_time.replace(" ", ""), gym_time.replace(" ", ":00 ")]], dimensions=BASE))
    return b.spec("Tool selection", "Scenarios with the memory-tool calls a well-behaved memory agent makes; scored "
                  "on tools chosen, their order and their arguments, plus recall questions.",
                  scoring="tool_trace", weights={"tool_trace": 0.7, "qa": 0.3}, tool_scenarios=tuple(scenarios),
                  expectations={"context_cadence": context_cadence, "bindings": ["vault_id", "memory_id"]})
