"""LevelSpec and the small builders every level module uses (material sessions, rubric questions)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NotRequired, TypedDict

from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.log.lines import Json

LEVEL = "level"   # the `kind` its cases and lines carry (the suite's record_kinds)
Scoring = str  # "rubric" | "tool_trace" | "forgetting" | "adversarial" | "decision"


class ArgCheck(TypedDict, total=False):
    """One argument check of an expected call (spec.ExpectedCall says what each means)."""

    equals: Json
    contains: str
    contains_any: list[str]
    matches: str
    present: bool


class ExpectedCallDict(TypedDict):
    """An ExpectedCall as JSON (ExpectedCall.to_dict / from_dict)."""

    tool: str
    args: NotRequired[dict[str, ArgCheck]]
    note: NotRequired[str]
    optional: NotRequired[bool]


class FactExpectation(TypedDict):
    """L14: a fact's current value and the values it replaced."""

    current: Json
    stale: list[Json]


class DecisionExpectation(TypedDict):
    """L16: the options by label, and the label of the right one."""

    options: dict[str, str]
    correct: str


class LevelExpectations(TypedDict, total=False):
    """What a level's generator knows the right answers are (tests and gold self-checks read it)."""

    facts: dict[str, FactExpectation]             # L14, by question id
    adversarial_ids: list[str]                    # L15
    control_ids: list[str]                        # L15
    decisions: dict[str, DecisionExpectation]     # L16, by question id
    context_cadence: int                          # L13
    bindings: list[str]                           # L13: the names its expected calls look up


@dataclass(frozen=True)
class ExpectedCall:
    """One memory-tool call a scenario expects, with argument checks.

    `args` maps an argument name to one check: {"equals": value} (a "$name" value is looked up in
    the scorer's bindings, e.g. "$memory_id"; unbound means "present"), {"contains": phrase}
    (word-boundary, number-aware), {"contains_any": [phrases]}, {"matches": regex} or
    {"present": true}. An `optional` call (e.g. reading the context before rewriting it) costs
    nothing when absent and is matched, not counted as extra, when present.
    """

    tool: str
    args: Mapping[str, ArgCheck] = field(default_factory=dict)
    note: str = ""
    optional: bool = False

    def to_dict(self) -> ExpectedCallDict:
        return {"tool": self.tool, "args": {k: v.copy() for k, v in self.args.items()}, "note": self.note,
                "optional": self.optional}

    @classmethod
    def from_dict(cls, data: ExpectedCallDict) -> ExpectedCall:
        return cls(str(data["tool"]), {k: v.copy() for k, v in dict(data.get("args", {})).items()},
                   str(data.get("note", "")), bool(data.get("optional", False)))


@dataclass(frozen=True)
class ToolScenario:
    """L13: one session of the level's case and the tool calls the memory agent should make in it."""

    scenario_id: str
    session_id: str
    description: str
    expected: tuple[ExpectedCall, ...]


@dataclass(frozen=True)
class LevelSpec:
    """One level for one seed: its material and questions as a Case, and how to score it."""

    level_id: str
    title: str
    description: str
    case: Case
    seed: int
    scoring: Scoring = "rubric"
    weights: Mapping[str, float] = field(default_factory=dict)
    tool_scenarios: tuple[ToolScenario, ...] = ()
    expectations: LevelExpectations = field(default_factory=lambda: LevelExpectations())


ACKS = ("Got it, noted.", "Thanks, I have that.", "Understood.", "Noted, thanks for sharing.",
        "Okay, I'll keep that in mind.", "Thanks, that's clear.")


def session_date(start: datetime, days: int, hour: int = 10, minute: int = 0) -> str:
    """LongMemEval-style date string, e.g. '2024/03/05 (Tue) 10:00'."""
    when = start + timedelta(days=days)
    return when.replace(hour=hour, minute=minute).strftime("%Y/%m/%d (%a) %H:%M")


def material_session(session_id: str, date: str, paragraphs: list[str], acks: tuple[str, ...] = ACKS,
                     assistant: dict[int, str] | None = None) -> Session:
    """User paragraphs, each followed by a short assistant reply (or a scripted one by index)."""
    messages: list[Message] = []
    for i, text in enumerate(paragraphs):
        messages.append(Message("user", text, has_answer=True))
        reply = (assistant or {}).get(i, acks[i % len(acks)])
        messages.append(Message("assistant", reply, has_answer=bool(assistant and i in assistant)))
    return Session(session_id, date, tuple(messages))


def rubric(required: Any = (), *, numbers: Any = (), accept: Any = (), forbidden: Any = (), stale: Any = (),
           abstain: bool = False, sequence: Any = (), yes_no: str = "", dimensions: Any = (),
           **extra: Any) -> dict[str, Any]:
    """A rubric dict with only the keys that are set (see benchmarker.scoring.rubric)."""
    out: dict[str, Any] = {"required": [list(r) if isinstance(r, (list, tuple)) else r for r in required]}
    for key, value in (("numbers", numbers), ("accept", accept), ("forbidden", forbidden), ("stale", stale),
                       ("sequence", sequence), ("dimensions", dimensions)):
        if value:
            out[key] = list(value)
    if abstain:
        out["abstain"] = True
    if yes_no:
        out["yes_no"] = yes_no
    out.update(extra)
    return out


class LevelBuilder:
    """Accumulates sessions and questions for one level and seed."""

    def __init__(self, level_id: str, seed: int, start: datetime | None = None):
        self.level_id, self.seed = level_id, seed
        self.rng = random.Random(f"{level_id}:{seed}")
        self.start = start or datetime(2024, 1, 8) + timedelta(days=self.rng.randrange(0, 300))
        self.sessions: list[Session] = []
        self.questions: list[Question] = []

    def sid(self, n: int) -> str:
        return f"{self.level_id.lower()}-{self.seed}-s{n}"

    def add_session(self, paragraphs: list[str], days: int = 0, assistant: dict[int, str] | None = None,
                    hour: int = 10) -> str:
        sid = self.sid(len(self.sessions) + 1)
        self.sessions.append(material_session(sid, session_date(self.start, days, hour), paragraphs,
                                              assistant=assistant))
        return sid

    def ask(self, category: str, question: str, answer: str, rub: dict[str, Any],
            sessions: tuple[str, ...] = ()) -> str:
        qid = f"{self.level_id.lower()}-{self.seed}-q{len(self.questions) + 1}" + ("_abs" if rub.get("abstain") else "")
        last = self.sessions[-1].date if self.sessions else session_date(self.start, 0)
        qdate = (datetime.strptime(last[:10], "%Y/%m/%d") + timedelta(days=1)).strftime("%Y/%m/%d (%a) 18:00")
        self.questions.append(Question(qid, category, question, answer, qdate,
                                       answer_session_ids=tuple(sessions or (s.session_id for s in self.sessions)),
                                       category=category, rubric=rub,
                                       evidence={"sessions": list(sessions), "question_key": f"{self.level_id}:{len(self.questions) + 1}"}))
        return qid

    def case(self, title: str) -> Case:
        return Case(f"level-{self.level_id}-{self.seed}", LEVEL, tuple(self.sessions), tuple(self.questions),
                    metadata={"level_id": self.level_id, "title": title, "seed": self.seed})

    def spec(self, title: str, description: str, **kwargs: Any) -> LevelSpec:
        return LevelSpec(self.level_id, title, description, self.case(title), self.seed, **kwargs)
