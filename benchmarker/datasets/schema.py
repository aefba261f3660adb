"""The dataset nouns every suite shares: a Case is one memory's worth of material and questions.

LongMemEval gives one question per case; the in-house suites (long-horizon dialogues, levels,
fact-extraction cases) give several questions, or none, per case. The graph only sees Cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# "user" / "assistant" for LongMemEval and the in-house suites; the speaker's name in LoCoMo,
# whose conversations are between two people.
Role = str
CaseKind = str   # a record kind of benchmarker/registry.py: which suite scores the case


@dataclass(frozen=True)
class Message:
    """One dataset utterance, streamed to the memory agent as one turn."""

    role: Role
    content: str
    has_answer: bool = False


@dataclass(frozen=True)
class Session:
    """Messages that happened together on one date; the agent state is reset between sessions."""

    session_id: str
    date: str  # as the dataset writes it, e.g. "2023/05/20 (Sat) 02:21"
    messages: tuple[Message, ...]


@dataclass(frozen=True)
class Question:
    """One question asked after ingestion, with everything needed to grade it.

    `answer` is always a string (LongMemEval sometimes stores ints). `rubric` and `evidence`
    are free-form for the in-house suites (keywords, accepted values, evidence turns).
    """

    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: str = ""
    answer_session_ids: tuple[str, ...] = ()
    category: str = ""
    rubric: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def is_abstention(self) -> bool:
        return self.question_id.endswith("_abs")


@dataclass(frozen=True)
class Case:
    """One memory: the sessions fed to the agent (in date order) and the questions asked after."""

    case_id: str
    kind: CaseKind
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def message_count(self) -> int:
        return sum(len(s.messages) for s in self.sessions)
