"""Sizing the world to the turn budget, and laying its events out as dated sessions of turns.

Events without a fixed position are spread by stratified sampling (one per equal slice of the
timeline), so facts cover the whole dialogue; chit-chat fills the gaps. Sessions hold 26-50
turns, never split an event, and each starts 1-4 days after the previous one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from benchmarker.suites.long_horizon.data import blocks, blocks_ops
from benchmarker.suites.long_horizon.data.blocks_ops import DATE
from benchmarker.suites.long_horizon.data.world import Pair, World

# name, units per 100 user/assistant pairs, pairs per unit (upper bound), builder, capacity
BLOCKS = [
    ("people", 2.0, 2, blocks.people, 60),
    ("projects", 1.0, 7, blocks.projects, 30),
    ("technical", 3.0, 1, blocks.technical, 110),
    ("evolving", 1.5, 4, blocks.evolving, 80),
    ("numbers", 2.0, 2, blocks.numbers, 150),
    ("contradictions", 1.5, 2, blocks.contradictions, 60),
    ("callbacks", 1.0, 2, blocks_ops.callbacks, 22),
    ("distractors", 2.0, 2, blocks_ops.distractors, 120),
    ("security", 4.0, 1, blocks_ops.security, 400),
    ("incidents", 2.0, 2, blocks_ops.incidents, 300),
    ("infrastructure", 3.0, 1, blocks_ops.infrastructure, 400),
    ("problem_solving", 1.2, 3, blocks_ops.problem_solving, 150),
]
BLOCK_NAMES = tuple(b[0] for b in BLOCKS)
FACT_SHARE = 0.85  # at most this share of the pairs carries facts; the rest is chit-chat

USER_FILLER = [
    "Morning! Coffee first, then the backlog.", "The office is freezing today, someone turned the heating off.",
    "I'm heading out for lunch soon, any good soup ideas?", "Long day of meetings ahead, wish me luck.",
    "The standup ran over again.", "Can you remind me to stretch more often?", "It's raining sideways here.",
    "I finally cleaned up my inbox.", "My laptop fan sounds like a jet engine today.",
    "We ordered pizza for the team, the usual chaos.", "Thinking about taking Friday off.",
    "Just got out of a really productive planning session.", "I need a better name for my side project.",
    "The new chairs in the meeting room are surprisingly comfy.", "Weekend plans: absolutely nothing, which is perfect.",
    "Someone left a cake in the kitchen with no note.", "I keep forgetting to water the office plants.",
    "Is it normal to have this many browser tabs open?", "Our team retro was actually fun for once.",
    "Trying out a standing desk this week.", "Traffic was terrible this morning.",
    "I started learning to juggle, badly.", "The wifi keeps dropping in the east wing.",
    "Quiet afternoon so far, which is suspicious.", "Back from a short walk, feeling better.",
    "I just spent twenty minutes looking for my headphones. They were on my head.",
    "Thinking about what to cook tonight.", "The fire alarm test went off mid-demo, classic.",
    "We're doing a book swap at the office next week.", "I need to book the dentist at some point.",
]
ASSISTANT_FILLER = [
    "Ha, sounds like quite a day.", "Good luck, you've got this.", "That sounds nice, enjoy it.",
    "Thanks for sharing. Anything you want me to keep track of?", "Noted. Let me know if you need anything.",
    "Fair enough!", "That's relatable.", "Sounds like a good plan.", "Oh no, hope it gets better.",
    "I'm here whenever you need me.", "Nice, small wins count.", "Understood, I'll stay quiet unless you ask.",
]
FAREWELL = "That's everything for now, talk soon."


@dataclass
class Turn:
    role: str
    text: str
    facts: tuple[str, ...] = ()


@dataclass
class RawSession:
    session_id: str
    date: str  # "2023/05/20 (Sat) 14:05"
    iso: str
    first_turn: int
    turns: list[Turn] = field(default_factory=list)


def unit_counts(turns: int) -> dict[str, int]:
    """Units per block for a dialogue of `turns` messages (at least one each, trimmed to fit)."""
    pairs = turns // 2
    counts = {name: min(cap, max(2, round(rate * pairs / 100))) for name, rate, _, _, cap in BLOCKS}
    size = {name: per for name, _, per, _, _ in BLOCKS}
    while sum(counts[b] * size[b] for b in counts) > FACT_SHARE * pairs:
        shrinkable = [b for b in BLOCK_NAMES if counts[b] > 1]
        if not shrinkable:
            break
        biggest = max(shrinkable, key=lambda b: (counts[b] * size[b], BLOCK_NAMES.index(b)))
        counts[biggest] -= 1
    return counts


def build_world(turns: int, seed: int) -> World:
    w = World(seed, turns)
    counts = unit_counts(turns)
    for name, _, _, builder, _ in BLOCKS:
        if name == "security":
            blocks_ops.hosts(w, counts["security"] + counts["incidents"])
        builder(w, counts[name])
    return w


def _filler(w: World) -> Pair:
    return Pair(w.rng.choice(USER_FILLER), w.rng.choice(ASSISTANT_FILLER))


def _timeline(w: World) -> list[list[Pair]]:
    free = [e for e in w.events if e.pos is None]
    w.rng.shuffle(free)
    for i, event in enumerate(free):
        event.pos = (i + w.rng.random()) / len(free)
    events = sorted(w.events, key=lambda e: (e.pos, e.seq))
    fill = w.turns // 2 - sum(len(e.pairs) for e in events)
    if fill < 0:
        raise ValueError(f"{w.turns} turns cannot hold this world; the sizing table is wrong")
    chunks: list[list[Pair]] = []
    placed = 0
    for event in events:
        assert event.pos is not None  # every event has one now: the free ones were placed above
        while placed < min(fill, int(event.pos * fill)):
            chunks.append([_filler(w)])
            placed += 1
        chunks.append(event.pairs)
    chunks.extend([_filler(w)] for _ in range(fill - placed))
    return chunks


def _split_evenly(chunks: list[list[Pair]]) -> list[list[list[Pair]]]:
    """Two sessions of about equal size from one, cut between chunks (events stay whole)."""
    total, running = sum(len(c) for c in chunks), 0
    for i, chunk in enumerate(chunks):
        running += len(chunk)
        if running * 2 >= total:
            return [chunks[:i + 1], chunks[i + 1:]] if i + 1 < len(chunks) else [chunks]
    return [chunks]


def layout(w: World, seed: int) -> list[RawSession]:
    """Place every event, group pairs into sessions, and stamp each fact with its turn and session."""
    groups: list[list[list[Pair]]] = [[]]
    target, size = w.rng.randint(13, 25), 0
    for chunk in _timeline(w):
        if size >= target:
            groups.append([])
            target, size = w.rng.randint(13, 25), 0
        groups[-1].append(chunk)
        size += len(chunk)
    if len(groups) > 1 and sum(len(c) for c in groups[-1]) < 13:
        merged = groups.pop(-2) + groups.pop()
        groups.extend(_split_evenly(merged) if sum(len(c) for c in merged) > 25 else [merged])
    when = datetime(w.epoch.year, w.epoch.month, w.epoch.day)
    sessions, turn = [], 0
    for n, group in enumerate(groups, start=1):
        when = (when + timedelta(days=w.rng.randint(1, 4))).replace(hour=w.rng.randint(8, 21),
                                                                     minute=w.rng.randrange(60))
        raw = RawSession(f"lh{seed}-s{n}", when.strftime("%Y/%m/%d (%a) %H:%M"), when.date().isoformat(), turn)
        for chunk in group:
            for pair in chunk:
                for role, text, facts in (("user", pair.user, pair.user_facts),
                                          ("assistant", pair.assistant, pair.assistant_facts)):
                    raw.turns.append(Turn(role, text.replace(DATE, raw.iso), facts))
                    for fid in facts:
                        fact = w.facts[fid]
                        if fact.turn < 0:
                            fact.turn, fact.session_id, fact.date = turn, raw.session_id, raw.iso
                    turn += 1
        sessions.append(raw)
    if w.turns % 2:
        sessions[-1].turns.append(Turn("user", FAREWELL))
    for fact in w.facts.values():
        if fact.versions:
            latest = w.facts[fact.versions[-1]]
            fact.turn, fact.session_id, fact.date = latest.turn, latest.session_id, latest.date
    return sessions
