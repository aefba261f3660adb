"""What the harness needs from any agent under test: learn, answer, reset, close.

The built-in memory agent, an HTTP service and a subprocess all meet this one contract, so a
run (once wired in) can evaluate an outside agent without knowing how it is reached.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict, runtime_checkable

from benchmarker.log.lines import Json

Operation = Literal["learn", "answer", "reset", "start", "close"]

# Capability names an adapter may report. The transports below can carry every optional
# answer field, so they report all of them; what a given agent fills in is up to the agent.
LEARN = "learn"
ANSWER = "answer"
RESET = "reset"
TOOL_CALLS = "tool_calls"
REASONING_TRACE = "reasoning_trace"
CONFIDENCE = "confidence"
ALL_CAPABILITIES = frozenset({LEARN, ANSWER, RESET, TOOL_CALLS, REASONING_TRACE, CONFIDENCE})

# The largest reply either transport accepts: one subprocess reply line, one HTTP response body. An
# answer with a long reasoning trace fits; a runaway agent fails its call instead of filling memory
# and the run directory. The published schemas and their README state the same number.
MAX_REPLY_BYTES = 16 * 1024 * 1024
MAX_REPLY_TEXT = "16 MiB"


class WireToolCall(TypedDict, total=False):
    """A tool call as an agent reports it (schemas/*.schema.json: `name` required)."""

    name: str
    arguments: dict[str, Json]
    output: Json


class AgentReply(TypedDict, total=False):
    """A learn acknowledgement or an answer, as either transport carries it, once checked against the
    published schema (an answer requires `answer`; everything else is optional)."""

    answer: str
    tool_calls: list[WireToolCall]
    reasoning_trace: str
    confidence: float | None
    metadata: dict[str, Json]
    context_tokens: int | None


@dataclass(frozen=True)
class LearnItem:
    """One dataset message for the agent to remember; `content` already names speaker, session and date."""

    content: str
    role: str
    session_id: str
    date: str
    key: str = ""   # case / attempt / session / turn: the same on every retry, so an agent can take a message once

    def fields(self) -> dict[str, str]:
        """The wire form shared by both protocols."""
        return {"content": self.content, "role": self.role, "session_id": self.session_id, "date": self.date}


@dataclass(frozen=True)
class ToolCall:
    """One tool the agent used while learning or answering, kept for trajectory analysis (level L13)."""

    name: str
    arguments: Mapping[str, Json] = field(default_factory=dict)
    output: Json = None

    @classmethod
    def all_from_wire(cls, reply: AgentReply) -> tuple[ToolCall, ...]:
        """The `tool_calls` of a reply already validated against the published schema (absent: none)."""
        return tuple(cls(str(c["name"]), dict(c.get("arguments") or {}), c.get("output"))
                     for c in reply.get("tool_calls") or ())


@dataclass(frozen=True)
class AgentResponse:
    """The answer plus whatever the agent reports about how it got there."""

    answer: str
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning_trace: str = ""
    confidence: float | None = None
    metadata: Mapping[str, Json] = field(default_factory=dict)
    context_tokens: int | None = None   # what the agent says its reader saw (checked against a context budget)

    @classmethod
    def from_wire(cls, reply: AgentReply) -> AgentResponse:
        """From a reply already validated against the published schema (only `answer` is required)."""
        confidence = reply.get("confidence")
        return cls(answer=str(reply["answer"]), tool_calls=ToolCall.all_from_wire(reply),
                   reasoning_trace=str(reply.get("reasoning_trace") or ""),
                   confidence=float(confidence) if confidence is not None else None,
                   metadata=dict(reply.get("metadata") or {}),
                   context_tokens=reply.get("context_tokens"))


class AdapterError(RuntimeError):
    """An agent call failed; the message names the adapter, where it was reached, and the operation."""

    def __init__(self, adapter: str, target: str, operation: str, detail: str):
        super().__init__(f"agent adapter {adapter!r} ({target}) {operation} failed: {detail}")
        self.adapter = adapter
        self.target = target
        self.operation = operation
        self.detail = detail


@runtime_checkable
class AgentAdapter(Protocol):
    """An agent under test. Calls on one adapter are made one at a time, in order."""

    @property
    def name(self) -> str:
        """Human-readable name, used in logs and errors."""
        ...

    @property
    def capabilities(self) -> frozenset[str]:
        """What the agent can do (names from this module, e.g. `tool_calls`)."""
        ...

    async def learn(self, item: LearnItem) -> tuple[ToolCall, ...]:
        """Remember one message; returns the tools the agent reports using for it (often none)."""
        ...

    async def answer(self, question: str, question_date: str = "") -> AgentResponse:
        """Answer from what was learned since the last reset."""
        ...

    async def reset(self) -> None:
        """Forget everything learned (between cases)."""
        ...

    async def close(self) -> None:
        """Release connections or processes; safe to call twice."""
        ...
