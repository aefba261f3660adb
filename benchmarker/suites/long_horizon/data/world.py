"""The seeded world of a long-horizon dialogue: facts, the units that own them, and timed events.

A *unit* is one thing the dialogue talks about (a person, a project, an incident...). Every unit
belongs to partition 0 (standard questions) or 1 (holdout questions); units that refer to each
other (a project and its lead, an incident and its host) always share a partition, so the two
question sets never share an evidence fact.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, NotRequired, TypedDict

from benchmarker.suites.long_horizon.data import pools


class FactVersion(TypedDict):
    """One value a changing fact took: when and where it was said."""

    value: str
    turn: int
    session_id: str
    date: str


class FactDict(TypedDict):
    """A Fact as the dataset's ground truth writes it (`history`: a changing fact's values, oldest first)."""

    fact_id: str
    block: str
    subject: str
    attribute: str
    value: str
    part: int
    role: str
    turn: int
    session_id: str
    date: str
    versions: list[str]
    history: NotRequired[list[FactVersion]]


class Team(TypedDict):
    """A team the dialogue mentions, and the partition it belongs to."""

    team: str
    part: int


class Host(TypedDict):
    """A host the security and incident blocks happen on, its partition and the units on it."""

    host: str
    part: int
    events: list[str]


@dataclass
class Fact:
    """One piece of information the dialogue delivers; `turn` is the global message index."""

    fact_id: str
    block: str
    subject: str
    attribute: str
    value: str
    part: int
    role: str = "user"
    turn: int = -1
    session_id: str = ""
    date: str = ""
    versions: list[str] = field(default_factory=list)  # a changing fact: its value facts, oldest first

    def to_dict(self) -> FactDict:
        return {"fact_id": self.fact_id, "block": self.block, "subject": self.subject, "attribute": self.attribute,
                "value": self.value, "part": self.part, "role": self.role, "turn": self.turn,
                "session_id": self.session_id, "date": self.date, "versions": list(self.versions)}


@dataclass
class Pair:
    """A user message and the assistant's reply, with the facts each delivers."""

    user: str
    assistant: str
    user_facts: tuple[str, ...] = ()
    assistant_facts: tuple[str, ...] = ()


@dataclass
class Event:
    """Consecutive pairs placed together; `pos` in [0, 1) is where in the dialogue (None: spread evenly)."""

    pos: float | None
    pairs: list[Pair]
    block: str
    seq: int = 0


@dataclass
class Unit:
    block: str
    uid: str
    part: int
    data: dict[str, Any]


ACKS = ("Got it, noted.", "Thanks, I'll remember that.", "Understood.", "Noted - anything else on that?",
        "Okay, logged.", "Thanks for the update.", "Good to know.", "Makes sense, noted.")


class World:
    """Facts, units and events of one seed, plus unique draws from the pools."""

    def __init__(self, seed: int, turns: int):
        self.seed, self.turns = seed, turns
        self.rng = random.Random(f"long-horizon:{seed}")
        self.facts: dict[str, Fact] = {}
        self.units: dict[str, list[Unit]] = {}
        self.events: list[Event] = []
        self._decks: dict[str, list[Any]] = {}
        self._used: set[str] = set()
        self.teams: list[Team] = []
        self.hosts: list[Host] = []
        self._odd_side = self.rng.randrange(2)
        self.epoch = date(2023, 1, 2) + timedelta(days=self.rng.randrange(0, 720))

    # ---- unique draws
    def draw(self, key: str, pool: Sequence[Any]) -> Any:
        deck = self._decks.get(key)
        if deck is None:
            deck = list(pool)
            self.rng.shuffle(deck)
            self._decks[key] = deck
        if not deck:
            raise RuntimeError(f"pool {key!r} exhausted; the world is too large for it")
        return deck.pop()

    def unique(self, make, tries: int = 200) -> str:
        """A value from `make()` not returned before by any unique() call of this world."""
        for _ in range(tries):
            value = make()
            if value not in self._used:
                self._used.add(value)
                return value
        raise RuntimeError("could not draw a unique value")

    def person_name(self) -> tuple[str, str]:
        return self.draw("first", pools.FIRST_NAMES), self.draw("last", pools.LAST_NAMES)

    def money(self, lo: int, hi: int, step: int) -> int:
        return self.rng.randrange(lo // step, hi // step + 1) * step

    def ip(self) -> str:
        net = self.rng.choice(["203.0.113", "198.51.100", "192.0.2"])
        return self.unique(lambda: f"{net}.{self.rng.randrange(2, 254)}")

    def future_date(self, lo_days: int, hi_days: int) -> date:
        return self.epoch + timedelta(days=self.rng.randrange(lo_days, hi_days))

    def alternate_parts(self, n: int) -> list[int]:
        """Half the units to each partition; an odd one out goes to alternating sides across blocks."""
        parts = [i % 2 for i in range(n - n % 2)]
        if n % 2:
            parts.append(self._odd_side)
            self._odd_side = 1 - self._odd_side
        self.rng.shuffle(parts)
        return parts

    # ---- recording
    def unit(self, block: str, part: int, **data: Any) -> Unit:
        units = self.units.setdefault(block, [])
        u = Unit(block, f"{block[:3]}{len(units) + 1}", part, data)
        units.append(u)
        return u

    def fact(self, unit: Unit, attribute: str, value: Any, subject: str, role: str = "user",
             version_of: str = "") -> str:
        fid = f"{unit.uid}.{attribute}" + (f"@{len(self.facts[version_of].versions)}" if version_of else "")
        self.facts[fid] = Fact(fid, unit.block, subject, attribute, str(value), unit.part, role)
        if version_of:
            self.facts[version_of].versions.append(fid)
        return fid

    def changing(self, unit: Unit, attribute: str, subject: str) -> str:
        """A fact whose value changes; its versions are added with fact(..., version_of=id)."""
        fid = f"{unit.uid}.{attribute}"
        self.facts[fid] = Fact(fid, unit.block, subject, attribute, "", unit.part)
        return fid

    def say(self, block: str, pos: float | None, user: str, facts: tuple[str, ...] = (),
            assistant: str | None = None) -> None:
        """One user message delivering `facts`, acknowledged by the assistant."""
        reply = assistant if assistant is not None else self.rng.choice(ACKS)
        self.events.append(Event(pos, [Pair(user, reply, facts)], block, len(self.events)))

    def episode(self, block: str, pos: float | None, pairs: list[Pair]) -> None:
        self.events.append(Event(pos, pairs, block, len(self.events)))

    def between(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self.rng.random()


def long_date(d: date) -> str:
    return f"{d:%B} {d.day}, {d.year}"


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"
