"""A small generated dataset in the exact LongMemEval JSON format, so the quickstart needs no files.

Every question type is covered (plus abstention), evidence sessions are mixed with filler
sessions over several weeks, and answers are short and checkable, computed from the generated
facts and dates rather than written by hand. The same seed gives the same bytes. `sample_cases`
parses the generated JSON with the real loader, so the sample also exercises the loader.
"""

from __future__ import annotations

import io
import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.datasets.schema import Case
from benchmarker.log.jsonl import write_bytes_atomic
from benchmarker.suites.longmemeval.data import QUESTION_TYPES, iter_stream

ABSTENTION_TYPES = ("single-session-user", "multi-session", "temporal-reasoning")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_ABS = "The information provided is not enough. "



class Turn(TypedDict):
    """One message of a haystack session, as LongMemEval writes it."""

    role: str
    content: str
    has_answer: bool


class Instance(TypedDict):
    """One LongMemEval instance, in the official files' key order."""

    question_id: str
    question_type: str
    question: str
    answer: str | int
    question_date: str
    haystack_dates: list[str]
    haystack_session_ids: list[str]
    haystack_sessions: list[list[Turn]]
    answer_session_ids: list[str]


def generate_sample(seed: int = 42, questions_per_type: int = 2,
                    sessions_per_question: int = 8) -> list[Instance]:
    """Raw LongMemEval instances: `questions_per_type` per type, plus one abstention question
    for each of ABSTENTION_TYPES (ids ending in `_abs`)."""
    if questions_per_type < 1:
        raise ValueError("questions_per_type must be >= 1")
    if sessions_per_question < 3:
        raise ValueError("sessions_per_question must be >= 3 (multi-session needs 3 evidence sessions)")
    rng = random.Random(seed)
    start = datetime(2023, 1, 2) + timedelta(days=rng.randrange(150))
    out = []
    for qtype in QUESTION_TYPES:
        extra = 1 if qtype in ABSTENTION_TYPES else 0
        for n in range(questions_per_type + extra):
            out.append(_instance(rng, qtype, n == questions_per_type, sessions_per_question, start))
    return out


def sample_bytes(**kw: Any) -> bytes:
    """The generated dataset as JSON bytes (indented like the official files; stable per seed)."""
    return json.dumps(generate_sample(**kw), indent=2, ensure_ascii=False).encode("utf-8") + b"\n"


def write_sample(path: str | Path, **kw: Any) -> Path:
    """Write the generated dataset to `path` (a LongMemEval-format JSON file) and return it."""
    path = Path(path)
    write_bytes_atomic(path, sample_bytes(**kw))   # never through a link below a run directory (log/confined.py)
    return path


def sample_cases(**kw: Any) -> list[Case]:
    """The generated dataset as Cases, parsed by the LongMemEval loader itself."""
    source = f"<generated sample seed={kw.get('seed', 42)}>"
    return list(iter_stream(io.BytesIO(sample_bytes(**kw)), source))


# --- one instance --------------------------------------------------------------------------

_EVIDENCE_COUNT = {"multi-session": lambda rng: rng.choice((2, 3)), "temporal-reasoning": lambda rng: 2,
                   "knowledge-update": lambda rng: 2}


def _instance(rng: random.Random, qtype: str, abstain: bool, n_sessions: int,
              start: datetime) -> Instance:
    n_evidence = _EVIDENCE_COUNT.get(qtype, lambda r: 1)(rng)
    dates = _session_dates(rng, n_sessions, start)
    slots = sorted(rng.sample(range(n_sessions), n_evidence))
    question_date = dates[-1] + timedelta(days=rng.randint(1, 12), hours=rng.randint(0, 10))
    question, answer, evidence = _GENERATORS[qtype](rng, [dates[i] for i in slots],
                                                    question_date, abstain)
    hex_id = f"{rng.getrandbits(32):08x}"
    abs_suffix = "_abs" if abstain else ""
    qid = ("gpt4_" if qtype == "temporal-reasoning" else "") + hex_id + abs_suffix
    ids: list[str] = []
    sessions: list[list[Turn]] = []
    for i in range(n_sessions):
        if i in slots:  # evidence ids look like the official ones: answer_<hex>[_k][_abs]
            k = slots.index(i)
            ids.append(f"answer_{hex_id}" + (f"_{k + 1}" if n_evidence > 1 else "") + abs_suffix)
            sessions.append(evidence[k])
        else:
            ids.append(_filler_id(rng))
            sessions.append(_filler(rng))
    return {
        "question_id": qid, "question_type": qtype, "question": question, "answer": answer,
        "question_date": _fmt(question_date), "haystack_dates": [_fmt(d) for d in dates],
        "haystack_session_ids": ids, "haystack_sessions": sessions,
        "answer_session_ids": [ids[i] for i in slots],
    }


def _session_dates(rng: random.Random, n: int, start: datetime) -> list[datetime]:
    """Distinct days over 3-8 weeks (so day differences are never 0), at daytime hours."""
    first = start + timedelta(days=rng.randrange(60))
    days = sorted(rng.sample(range(max(n + 7, rng.randint(21, 56))), n))
    return [first + timedelta(days=d, hours=rng.randint(7, 22), minutes=rng.randrange(60))
            for d in days]


def _fmt(when: datetime) -> str:
    return when.strftime("%Y/%m/%d ") + f"({_WEEKDAYS[when.weekday()]}) " + when.strftime("%H:%M")


def _msg(role: str, content: str, has_answer: bool = False) -> Turn:
    return {"role": role, "content": content, "has_answer": has_answer}


def _session(rng: random.Random, opening: list[Turn], follow_ups: int | None = None) -> list[Turn]:
    """An opening exchange plus 1-2 generic follow-up exchanges, like a real chat session."""
    msgs = list(opening)
    for user, assistant in rng.sample(FOLLOW_UPS, rng.randint(1, 2) if follow_ups is None
                                      else follow_ups):
        msgs += [_msg("user", user), _msg("assistant", assistant)]
    return msgs


def _filler(rng: random.Random) -> list[Turn]:
    user, assistant = rng.choice(FILLERS)
    slots = {"city": rng.choice(CITIES), "name": rng.choice(NAMES), "n": rng.randint(3, 9)}
    opening = [_msg("user", user.format(**slots)), _msg("assistant", assistant.format(**slots))]
    return _session(rng, opening, rng.randint(0, 2))


def _filler_id(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return f"sharegpt_{''.join(rng.choices('abcdefghijkmnpqrstuvwxyzABCDEFGH23456789', k=7))}_0"
    if kind == 1:
        return f"ultrachat_{rng.randrange(10000, 600000)}"
    return f"{rng.getrandbits(32):08x}_{rng.randint(1, 4)}"


# --- one generator per question type: (rng, evidence dates, question date, abstain) ----------

def _single_user(rng, dates, qdate, abstain):
    fact = rng.choice(USER_FACTS)
    slots = _slots(rng)
    opening = [_msg("user", fact["say"].format(**slots), True),
               _msg("assistant", fact["reply"].format(**slots))]
    if abstain:
        return (fact["abs_q"].format(**slots), _ABS + fact["abs_a"].format(**slots),
                [_session(rng, [{**opening[0], "has_answer": False}, opening[1]])])
    return fact["q"].format(**slots), fact["a"].format(**slots), [_session(rng, opening)]


def _single_assistant(rng, dates, qdate, abstain):
    rec = rng.choice(ASSISTANT_RECS)
    items = rng.sample(rec["pool"], 3)
    pick = rng.randrange(3)
    city = rng.choice(CITIES)
    reply = rec["reply"].format(city=city, a=items[0], b=items[1], c=items[2])
    opening = [_msg("user", rec["ask"].format(city=city)), _msg("assistant", reply, True)]
    question = rec["q"].format(city=city, nth=("first", "second", "third")[pick])
    return question, items[pick], [_session(rng, opening)]


def _preference(rng, dates, qdate, abstain):
    pref = rng.choice(PREFERENCES)
    slots = {k: rng.choice(v) for k, v in pref["slots"].items()}
    opening = [_msg("user", pref["say"].format(**slots), True),
               _msg("assistant", pref["reply"].format(**slots))]
    return pref["q"], pref["a"].format(**slots), [_session(rng, opening)]


def _multi_session(rng, dates, qdate, abstain):
    agg = rng.choice(AGGREGATES)
    values = [rng.randint(*agg["range"]) for _ in dates]
    sessions = []
    for k, value in enumerate(values):
        say = agg["say"][k].format(n=value, place=rng.choice(agg["places"]))
        sessions.append(_session(rng, [_msg("user", say, not abstain),
                                       _msg("assistant", agg["reply"])]))
    if abstain:
        return agg["abs_q"], _ABS + agg["abs_a"], sessions
    total = sum(values) if agg["kind"] == "sum" else len(values)
    answer = agg["answer"].format(total=total) if "answer" in agg else total
    return agg["q"], answer, sessions


def _temporal(rng, dates, qdate, abstain):
    events = [dict(e, place=rng.choice(CITIES)) for e in rng.sample(EVENTS, 3)]
    sessions = [_session(rng, [_msg("user", e["say"].format(**e), not abstain),
                               _msg("assistant", e["reply"])]) for e in events[:2]]
    first, second = (e["noun"].format(**e) for e in events[:2])
    if abstain:
        third = events[2]["noun"].format(**events[2])
        yours = [re.sub(r"\bmy\b", "your", x) for x in (first, second, third)]
        return (f"How many days passed between {first} and {third}?",
                _ABS + f"You mentioned {yours[0]} and {yours[1]}, but not {yours[2]}.", sessions)
    days = (dates[1].date() - dates[0].date()).days
    style = rng.randrange(3)
    if style == 0:
        return (f"How many days passed between {first} and {second}?",
                f"{days} days. {days + 1} days (including the last day) is also acceptable.", sessions)
    if style == 1:
        order = [first, second] if rng.random() < 0.5 else [second, first]
        return f"Which happened first, {order[0]} or {order[1]}?", first, sessions
    ago = (qdate.date() - dates[1].date()).days
    return (f"How many days ago was {second}?",
            f"{ago} days ago. {ago + 1} days (including the last day) is also acceptable.", sessions)


def _knowledge_update(rng, dates, qdate, abstain):
    upd = rng.choice(UPDATES)
    old, new = _UPDATE_VALUES[upd["values"]](rng)
    sessions = [
        _session(rng, [_msg("user", upd["say"].format(v=old), True), _msg("assistant", upd["reply"])]),
        _session(rng, [_msg("user", upd["update"].format(v=new, old=old), True),
                       _msg("assistant", upd["reply2"].format(v=new))]),
    ]
    return upd["q"], upd["answer"].format(v=new) if "answer" in upd else new, sessions


def _slots(rng: random.Random) -> dict[str, str | int]:
    pet, other_pet = rng.sample(PETS, 2)
    item, other_item = rng.sample(ITEMS, 2)
    return {"name": rng.choice(NAMES), "pet_name": rng.choice(PET_NAMES), "city": rng.choice(CITIES),
            "pet": pet, "other_pet": other_pet, "field": rng.choice(FIELDS), "item": item,
            "other_item": other_item, "store": rng.choice(STORES),
            "n": rng.choice((15, 20, 25, 35, 40, 45, 50)), "mode": rng.choice(("train", "bus", "bike"))}


def _mmss(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _pb_values(rng: random.Random) -> tuple[str, str]:
    old = rng.randint(1500, 1800)
    return _mmss(old), _mmss(old - rng.randint(20, 120))


_UPDATE_VALUES = {
    "pb": _pb_values,
    "job": lambda rng: tuple(rng.sample(COMPANIES, 2)),
    "books": lambda rng: (lambda old: (old, old + rng.randint(2, 6)))(rng.randint(3, 9)),
    "savings": lambda rng: (lambda old: (old, old + 50 * rng.randint(3, 18)))(50 * rng.randint(8, 24)),
}


_GENERATORS = {
    "single-session-user": _single_user, "single-session-assistant": _single_assistant,
    "single-session-preference": _preference, "multi-session": _multi_session,
    "temporal-reasoning": _temporal, "knowledge-update": _knowledge_update,
}


# --- text ----------------------------------------------------------------------------------
# All text is written for this project. Slots are filled with seeded choices; answers are
# computed from the same slots, so a question can never disagree with its evidence.

NAMES = ("Maya", "Jonah", "Priya", "Luis", "Hana", "Tomasz", "Aisha", "Felix", "Noor", "Diego",
         "Ingrid", "Kenji", "Zara", "Owen", "Leila", "Marco")
PET_NAMES = ("Biscuit", "Luna", "Pepper", "Milo", "Olive", "Mochi", "Rocket", "Juniper")
CITIES = ("Lisbon", "Denver", "Osaka", "Toronto", "Austin", "Edinburgh", "Melbourne", "Seville",
          "Portland", "Krakow", "Vancouver", "Dublin")
PETS = ("dog", "cat", "rabbit", "parrot", "hamster")
ITEMS = ("air fryer", "espresso machine", "robot vacuum", "sewing machine", "bread maker",
         "stand mixer")
STORES = ("Target", "Costco", "Best Buy", "Walmart", "Home Depot", "Crate & Barrel")
FIELDS = ("Business Administration", "Mechanical Engineering", "Marine Biology", "Art History",
          "Computer Science", "Nursing", "Economics", "Architecture")
COMPANIES: tuple[str, ...] = ("Northwind Analytics", "Bluepeak Labs", "Harbor Health", "Greenline Logistics",
             "Orchid Software", "Stonebridge Bank")

USER_FACTS = (
    {"say": "I graduated with a degree in {field}, so numbers don't scare me, but I've never made "
            "a personal budget. Could you help me set one up for my first month at the new job?",
     "reply": "Congratulations on the new job! With a background in {field} you'll pick this up "
              "quickly. List your fixed costs first (rent, utilities, transport), then set targets "
              "for groceries and savings, and review everything at the end of the month.",
     "q": "What degree did I graduate with?", "a": "{field}",
     "abs_q": "What did I study for my master's degree?",
     "abs_a": "You mentioned graduating with a degree in {field}, but not a master's degree."},
    {"say": "My {pet} {pet_name} has started waking me up at 5 a.m. every single day. Any ideas for "
            "getting a bit more sleep?",
     "reply": "Early wake-ups often happen when a pet learns that noise gets attention. Try moving "
              "{pet_name}'s breakfast a little later each day, keep the bedroom door closed, and "
              "plan more play in the evening so {pet_name} sleeps longer.",
     "q": "What is the name of my {pet}?", "a": "{pet_name}",
     "abs_q": "What is the name of my {other_pet}?",
     "abs_a": "You mentioned your {pet} {pet_name}, but not a {other_pet}."},
    {"say": "My commute is {n} minutes each way by {mode}, and I'd like to use that time better. "
            "Can you suggest some podcast genres that fit?",
     "reply": "A {n}-minute ride is a good length for a single episode. News briefings, history "
              "storytelling shows and language-learning podcasts tend to fit well, and queueing a "
              "few means one is always ready.",
     "q": "How long is my commute to work, one way?", "a": "{n} minutes",
     "abs_q": "How long is the drive to my parents' house?",
     "abs_a": "You mentioned your {n}-minute commute by {mode}, but not a drive to your parents' house."},
    {"say": "I bought a new {item} at {store} last weekend and I'm not sure I'm using it right. "
            "Any general tips for getting started?",
     "reply": "Nice purchase! Read the quick-start guide first, try it once on a simple setting, and "
              "keep the receipt in case something feels off in the first couple of weeks. {store} "
              "usually has a reasonable return window.",
     "q": "Where did I buy my {item}?", "a": "{store}",
     "abs_q": "Where did I buy my {other_item}?",
     "abs_a": "You mentioned buying a {item} at {store}, but not a {other_item}."},
    {"say": "My sister {name} is flying in from {city} next month and staying with me for a week. "
            "What are some easy things we could do together?",
     "reply": "That sounds like a lovely visit. Mix a few outings, like a museum or a day trip, with "
              "slow days: a long brunch, a walk in the park, a cooking night at home. Cooking a dish "
              "{name} misses from {city} could be a nice touch.",
     "q": "Where is my sister flying in from?", "a": "{city}",
     "abs_q": "Where does my brother live?",
     "abs_a": "You mentioned your sister {name} flying in from {city}, but not your brother."},
)

ASSISTANT_RECS = (
    {"ask": "I'm visiting {city} next month and want to do a few day hikes. Which trails would you "
            "suggest?",
     "reply": "Here are three good options near {city}: 1. {a}, an easy loop with lake views, about "
              "two hours. 2. {b}, a steeper climb that pays off with a view from the ridge. 3. {c}, "
              "a shaded forest walk that stays cool in summer. Start early on weekends; parking "
              "fills up fast.",
     "q": "Going back to our chat about hiking near {city}: what was the {nth} trail you suggested?",
     "pool": ("Cedar Ridge Loop", "Falcon Point Trail", "Miller Creek Path", "Bluebell Canyon Trail",
              "Hawk Hollow Trail", "Silver Lake Circuit", "Old Quarry Walk", "Juniper Saddle Trail")},
    {"ask": "I want to read more novels this year. Could you recommend a few for a long train ride "
            "to {city}?",
     "reply": "Happy to! For a long trip I'd suggest: 1. \"{a}\", a slow-burning family saga with a "
              "great twist. 2. \"{b}\", a short, funny novel you can finish in a day. 3. \"{c}\", a "
              "mystery set on a night train, which feels fitting.",
     "q": "In our conversation about books for my train ride, what was the {nth} novel you "
          "recommended?",
     "pool": ("The Quiet Orchard", "Salt and Signal", "A Map of Small Hours", "Nine Bridges",
              "The Glass Cartographer", "Winter at Halden Farm", "The Copper Meridian")},
    {"ask": "I'll be in {city} for a conference next week. Can you suggest a few places for dinner?",
     "reply": "Sure! Three places to try in {city}: 1. {a}, a small bistro known for its seasonal "
              "menu. 2. {b}, a lively spot for sharing plates. 3. {c}, good if you want somewhere "
              "quiet to talk. Book a day ahead for all of them.",
     "q": "What was the {nth} restaurant you recommended for my trip to {city}?",
     "pool": ("Casa Lumen", "The Copper Pot", "Olive & Ash", "Little Saffron", "Bistro Verano",
              "The Tin Lantern", "Harbor & Vine", "Maple Room")},
)

PREFERENCES = (
    {"slots": {"diet": ("vegetarian", "pescatarian", "dairy-free"),
               "cuisine": ("Thai", "Mexican", "Indian", "Korean")},
     "say": "I've been cooking {diet} meals for about a year now, and lately I'm obsessed with "
            "{cuisine} flavours, the spicier the better. Any tips for stocking my pantry?",
     "reply": "For {diet} {cuisine}-style cooking, keep chili paste or dried chilies, fresh garlic "
              "and ginger, an acid such as lime or vinegar, and a protein you enjoy. With those you "
              "can make a bold dinner in twenty minutes.",
     "q": "Can you suggest something I could cook for dinner this weekend?",
     "a": "The user would prefer {diet} recipes with bold, spicy {cuisine}-inspired flavours, "
          "building on their year of {diet} cooking. They might not prefer recipes that break "
          "their {diet} diet, or mild dishes without much heat."},
    {"slots": {"camera": ("Fujifilm X-T30", "Sony a6400", "Canon R50"),
               "genre": ("street", "landscape", "bird")},
     "say": "I shoot with a {camera} and mostly do {genre} photography on weekends. I want to get "
            "better at editing, where should I start?",
     "reply": "Editing is a great next step. Straighten and crop, set exposure and white balance, "
              "then adjust contrast. For {genre} photography a preset you like keeps a set "
              "consistent, and {camera} files have plenty of room to practise on.",
     "q": "Can you recommend some accessories for my photography?",
     "a": "The user would prefer accessories compatible with their {camera} that suit {genre} "
          "photography, such as lenses, filters or bags chosen for that kind of shooting. They "
          "might not prefer generic suggestions or gear for a different camera system."},
    {"slots": {"style": ("quiet hiking trips", "food-focused city breaks", "slow train journeys"),
               "avoid": ("crowded beach resorts", "big theme parks", "tightly scheduled tours")},
     "say": "I just got back from a trip and realised I really love {style}, and I can't stand "
            "{avoid}. I'm already dreaming about the next one!",
     "reply": "It's great to know what kind of travel recharges you. A short list of places that "
              "match that style makes planning easier, and travelling slightly off-season usually "
              "means fewer crowds.",
     "q": "Where should I go for my next vacation?",
     "a": "The user would prefer destinations suited to {style}, in line with what they said they "
          "love about travel. They might not prefer places known for {avoid}."},
    {"slots": {"activity": ("swimming", "cycling", "yoga"),
               "limit": ("a bad knee", "a sore lower back", "a recovering ankle")},
     "say": "Because of {limit} I mostly stick to {activity} these days, which I actually enjoy. "
            "How can I stay motivated to exercise through the winter?",
     "reply": "Motivation is easier with a plan: fixed days, small wins you can track, and an indoor "
              "fallback for bad weather. Since you enjoy {activity}, a class or club could add "
              "some social accountability too.",
     "q": "Can you recommend a workout routine for me?",
     "a": "The user would prefer a routine built around {activity}, which they enjoy, and gentle "
          "on {limit}. They might not prefer high-impact exercises that could aggravate {limit}."},
)

AGGREGATES = (
    {"kind": "sum", "range": (2, 5), "places": ("the garden centre", "the farmers' market",
                                                "a plant swap"),
     "say": ("I picked up {n} new houseplants at {place} today and my windowsill is getting "
             "crowded. How often should I water them?",
             "I couldn't resist and bought {n} more houseplants at {place} this afternoon. Any "
             "repotting tips?",
             "Another {n} houseplants came home with me from {place} today. Any advice for keeping "
             "them all alive?"),
     "reply": "Most houseplants like to dry out a little between waterings, so check the top few "
              "centimetres of soil before watering. Light matters most: group the sun-lovers by "
              "the brightest window.",
     "q": "How many houseplants did I buy in total?",
     "abs_q": "How many bookshelves did I buy in total?",
     "abs_a": "You mentioned buying houseplants, but not bookshelves."},
    {"kind": "sum", "range": (40, 180), "places": ("the outlet mall", "a sports shop downtown",
                                                  "the running store near work"),
     "say": ("I spent ${n} on new running shoes at {place} today. How should I break them in?",
             "I picked up a running jacket for ${n} at {place}, since the mornings are getting "
             "cold. Is a jacket enough for winter runs?",
             "I also grabbed a ${n} running watch at {place} today. Which features should I use "
             "first?"),
     "reply": "Good gear makes a difference. Ease into anything new with a few shorter runs first, "
              "and keep the receipt in case something doesn't feel right after a week.",
     "q": "How much have I spent on running gear in total?", "answer": "${total}",
     "abs_q": "How much have I spent on swimming gear in total?",
     "abs_a": "You mentioned buying running gear, but not swimming gear."},
    {"kind": "count", "range": (1, 1), "places": ("the Blue Room", "the old town hall",
                                                  "Riverside Park"),
     "say": ("I went to a jazz concert at {place} last night and the saxophonist was incredible.",
             "Just got back from a folk concert at {place}, such a cosy atmosphere.",
             "I saw a string quartet play at {place} this evening, what a performance."),
     "reply": "That sounds like a wonderful evening! If you enjoyed it, check whether the venue has "
              "a mailing list; smaller venues often announce shows there first.",
     "q": "How many concerts did I attend?",
     "abs_q": "How many theatre plays did I attend?",
     "abs_a": "You mentioned attending concerts, but not theatre plays."},
)

EVENTS = (
    {"say": "I just got back from a guided tour of the maritime museum in {place} this morning. "
            "What else is worth seeing there?",
     "noun": "my visit to the maritime museum in {place}",
     "reply": "Glad you enjoyed the tour! Old harbour districts usually have more to explore: a "
              "market hall, a lighthouse walk or a boat trip along the coast."},
    {"say": "I had my first pottery class today and my bowl came out lopsided, but I loved it. How "
            "long does it take to get decent at the wheel?",
     "noun": "my first pottery class",
     "reply": "Lopsided first bowls are a rite of passage! Most people feel comfortable centring "
              "clay after six to ten sessions; practising regularly matters more than long sessions."},
    {"say": "I got my car's brakes replaced at the garage this morning and it cost more than I "
            "expected. Anything I should check over the next few days?",
     "noun": "getting my car's brakes replaced",
     "reply": "New brakes need a short bedding-in period: avoid hard stops for the first hundred "
              "miles or so and listen for squeaks or a soft pedal. The garage should check any "
              "problem for free."},
    {"say": "I ran the {place} 10K this morning! My legs are wrecked. What should I eat to recover?",
     "noun": "the {place} 10K",
     "reply": "Congratulations on finishing! Aim for carbohydrates plus protein within a couple of "
              "hours, like eggs on toast or a rice bowl, and keep drinking water through the day."},
    {"say": "We adopted a kitten from the shelter today! Any advice for the first week?",
     "noun": "adopting my kitten",
     "reply": "How exciting! Start the kitten in one quiet room with food, water, litter and a "
              "hiding spot, let it explore the rest of the home gradually, and book a vet check."},
    {"say": "My new standing desk was finally delivered today. How long should I stand each day at "
            "first?",
     "noun": "the delivery of my standing desk",
     "reply": "Start with short stretches, at most 20 to 30 minutes of standing per hour, and build "
              "up over a couple of weeks. A mat and comfortable shoes help a lot."},
    {"say": "I had my dentist appointment this afternoon and, good news, no cavities. How do I keep "
            "it that way?",
     "noun": "my dentist appointment",
     "reply": "Great news! Brush twice a day, floss once a day and cut back on sugary drinks between "
              "meals. Check-ups every six months catch small problems early."},
)

UPDATES = (
    {"values": "pb", "q": "What is my current personal best time for the 5K?",
     "say": "I ran a charity 5K last weekend and set a personal best of {v}. I'd love to get "
            "faster, any training tips?",
     "reply": "Nice time! One interval session a week plus easy runs is the classic way to get "
              "faster; add a few strides at the end of an easy run too.",
     "update": "Big news: I beat my 5K personal best today, the new record is {v}! The intervals "
               "are paying off.",
     "reply2": "Congratulations on {v}! Take an easy day or two, then keep the same routine; it's "
               "clearly working."},
    {"values": "job", "q": "Where do I work now?",
     "say": "I work as a data analyst at {v} and I'm trying to learn SQL window functions. Can you "
            "explain them simply?",
     "reply": "Sure! A window function computes a value over rows related to the current row "
              "without collapsing them like GROUP BY does; a running total is SUM() OVER (ORDER BY "
              "date).",
     "update": "Quick update: I left {old} and started a new job at {v} this week! I'm nervous "
               "about the first month.",
     "reply2": "Congratulations on the new role at {v}! In the first month, focus on how the team "
               "works and who to ask for what; nobody expects you to know everything yet."},
    {"values": "books", "q": "How many books have I read this year?",
     "say": "I've read {v} books so far this year, more than all of last year! Any tips for keeping "
            "the habit going?",
     "reply": "That's a great pace! Keeping a book with you and reading a few pages before bed are "
              "the two simplest habits that help.",
     "update": "I just finished another novel, which brings me to {v} books this year.",
     "reply2": "{v} books, well done! Try a genre you don't usually read next to keep it fresh."},
    {"values": "savings", "q": "How much have I saved for my trip to Japan?", "answer": "${v}",
     "say": "I've saved ${v} so far for my trip to Japan next spring. How much should I budget for "
            "two weeks there?",
     "reply": "Two weeks in Japan works on a mid-range budget if you use a rail pass and mix hotels "
              "with guesthouses. Keep some money for food; eating out is one of the highlights.",
     "update": "Good news, my Japan fund is now at ${v}!",
     "reply2": "Nice progress, ${v} is a solid start for the trip!"},
)

FILLERS = (
    ("Can you help me write a short, polite email to my landlord about a leaky kitchen faucet?",
     "Of course. Here's a draft: \"Hi, the kitchen faucet has started leaking steadily. Could "
     "someone take a look this week? I'm flexible about the time. Thanks!\" Adjust the tone as you "
     "like."),
    ("What's the difference between baking soda and baking powder?",
     "Baking soda is pure sodium bicarbonate and needs an acid in the recipe, like buttermilk or "
     "lemon. Baking powder already contains an acid, so it only needs moisture and heat."),
    ("Plan a relaxed three-day itinerary for {city}, please.",
     "Here's a relaxed plan for {city}: day one, walk the old town and have a long lunch; day two, "
     "a museum in the morning and a park in the afternoon; day three, a market and a free evening."),
    ("Explain compound interest like I'm twelve.",
     "Imagine a money tree that grows a few new coins each year, and next year those coins grow "
     "coins too. That's compound interest: interest on your interest, so waiting longer helps."),
    ("How do I write a list comprehension in Python that keeps only even numbers?",
     "Use `[x for x in numbers if x % 2 == 0]`. It loops over `numbers`, keeps the items where the "
     "condition is true and builds a new list in one line."),
    ("It's been raining all week here. Any ideas for a cosy indoor weekend?",
     "Rainy weekends suit slow projects: a jigsaw puzzle, a film marathon, baking bread or sorting "
     "old photos. A warm drink and a good playlist make all of them better."),
    ("Suggest a fun name for a book club that meets once a month.",
     "A few ideas: \"Chapter & Verse\", \"The Monthly Margin\", \"Spine Tinglers\", or \"Read "
     "Between the Wines\" if drinks are involved. Pick one that matches the group's humour."),
    ("Can you scale a recipe that serves 4 up to {n} people?",
     "Multiply every ingredient by {n}/4, except spices and salt: scale those a little less and "
     "taste as you go. Larger pots can take longer to come to a boil."),
    ("My friend {name} has a birthday coming up. What's a thoughtful gift that isn't expensive?",
     "A nice notebook with a handwritten note, a small plant, a cookbook from a cuisine {name} "
     "loves, or tickets to a local event you can attend together. Personal touches matter most."),
    ("Any tips for falling asleep faster?",
     "Keep a consistent bedtime, dim the lights an hour before bed and put your phone away. If you "
     "can't sleep after twenty minutes, get up and read something calm until you feel sleepy."),
    ("What's a good way to learn touch typing?",
     "Practise ten to fifteen minutes a day with a typing tutor, keep your eyes on the screen, and "
     "focus on accuracy before speed. Most people improve within three or four weeks."),
    ("Can you compare electric kettles and stovetop kettles?",
     "Electric kettles are faster and switch off automatically but take counter space and wear "
     "out eventually. Stovetop kettles last for years but are slower and need watching."),
)

FOLLOW_UPS = (
    ("Thanks, that's really helpful.",
     "You're welcome! Let me know if you'd like more detail on any part of it."),
    ("Could you keep it a bit shorter next time?",
     "Absolutely, I'll keep my answers more concise. Just ask if you ever want the longer version."),
    ("Is there anything I should avoid?",
     "The main thing is not to change everything at once. Start small, see what works for you and "
     "adjust over a couple of weeks."),
    ("Great, I'll give that a try this week.",
     "Sounds like a plan. I hope it goes well; feel free to come back and tell me how it went."),
    ("Can you put that into a short checklist?",
     "Sure: 1) decide what matters most, 2) pick one small first step, 3) set a reminder, 4) review "
     "how it went after a week."),
    ("Interesting, I didn't know that.",
     "It's one of those things that isn't obvious until someone points it out. There's more to it "
     "if you ever want to dig deeper."),
)
