"""The memory agent: LangChain's prebuilt `create_agent` loop over the memory server's MCP tools.

One compiled agent serves a whole run; everything per question / session / turn travels in
`MemoryAgentContext` (the LangGraph runtime context), so agents can run concurrently.

    agent = build_memory_agent(model, client.tools, max_tool_calls_per_turn=5, retry_policy=policy,
                               ledger=ledger, decision_sink=sink, provider="openai")
    transcript.append(turn_message(...))            # the session's rolling transcript
    outcome = await run_agent_turn(agent, transcript, context, recursion_limit=40)

A turn fails (outcome.ok is False, failed_reason says why) when the model asks for more than
`max_tool_calls_per_turn` tool calls or the recursion limit is hit; the caller logs it and goes
on with the next message. A model error that survives the retry policy is raised.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError

from benchmarker.agent.ledger import TokenLedger
from benchmarker.agent.middleware import (
    EXECUTED_MARK,
    BedrockWhitespaceMiddleware,
    DecisionSink,
    HarnessToolMiddleware,
    TurnDoneMiddleware,
    TurnToolCapMiddleware,
    system_prompt_middleware,
)
from benchmarker.agent.prompts import render_turn
from benchmarker.agent.retry import RetryMiddleware, RetryPolicy, model_name_of


@dataclass(frozen=True)
class MemoryAgentContext:
    """Runtime context of one agent turn; `dataclasses.replace(ctx, turn_index=..)` per message."""

    system_prompt: str
    run_id: str
    case_id: str
    question_id: str
    vault_id: str
    memory_id: str
    session_id: str
    session_date: str
    turn_index: int = 0   # index of the message within its session (0-based)
    role: str = "user"    # speaker of the message being recorded
    # (turn_index, role) of every message of this agent turn when it holds several (ingest unit
    # exchange / session); () for one message. Entries are tagged per message from it.
    unit_turns: tuple[tuple[int, str], ...] = ()
    # (message number, role, raw entry text) of every message of this turn: what the harness stores
    # for an add_entry that names the message ([agent] raw_entry = "harness").
    unit_entries: tuple[tuple[int, str, str], ...] = ()
    context_due: bool = False     # this turn must write the context ([agent] context_update = "session")
    end_when_done: bool = False   # end the turn once every message is recorded (and the context written when due)
    # Message numbers of this turn the server stored an entry for ([agent] raw_entry = "harness"): a second
    # add_entry naming one is refused. A fresh set per unit (for_unit); the one mutable part of the context.
    stored_messages: set[int] = dataclasses.field(default_factory=set, compare=False, repr=False)
    # Where this turn's tool calls are recorded (the caller's run log); None: the agent's own sink.
    decision_sink: DecisionSink | None = dataclasses.field(default=None, compare=False, repr=False)

    def for_turn(self, turn_index: int, role: str) -> MemoryAgentContext:
        return dataclasses.replace(self, turn_index=turn_index, role=role)

    def for_unit(self, messages: Sequence[tuple[int, str, str]], *, context_due: bool = False,
                 end_when_done: bool = False) -> MemoryAgentContext:
        """The context of one agent turn holding `messages` ((turn_index, role, content), in order)."""
        from benchmarker.agent.harness_entry import message_raw_entry

        last_index, last_role, _ = messages[-1]
        return dataclasses.replace(
            self, turn_index=last_index, role=last_role,
            unit_turns=tuple((i, role) for i, role, _ in messages) if len(messages) > 1 else (),
            unit_entries=tuple((i + 1, role, message_raw_entry(role, content, self.session_date))
                               for i, role, content in messages),
            context_due=context_due, end_when_done=end_when_done, stored_messages=set())


@dataclass(frozen=True)
class TurnOutcome:
    """What one agent turn did. `ok` is False when the cap or the recursion limit stopped it."""

    ok: bool
    tool_calls: int                   # tool calls that actually ran
    failed_reason: str | None
    messages_added: int               # messages the agent appended to the transcript
    new_messages: tuple[BaseMessage, ...] = ()
    elapsed_ms: float = 0.0


def build_memory_agent(model: Any, tools: Sequence[Any], *, max_tool_calls_per_turn: int,
                       retry_policy: RetryPolicy, ledger: TokenLedger | None = None,
                       decision_sink: DecisionSink | None = None, provider: str = "",
                       model_id: str | None = None, prompt_cache: bool = False, raw_entry: str = "model") -> Any:
    """The compiled agent (LangGraph) with our middleware, outermost first.

    `prompt_cache` adds the provider's prompt-caching middleware (see caching.py) right after the
    system prompt is set, so the breakpoints land on the final request. `raw_entry = "harness"` gives
    the model the harness's add_entry (harness_entry.py): it names the message, the harness stores its text.
    """
    if raw_entry == "harness":
        from benchmarker.agent.harness_entry import with_harness_entries

        tools = with_harness_entries(list(tools))
    middleware: list[Any] = [system_prompt_middleware()]
    if prompt_cache:
        from benchmarker.agent.caching import prompt_cache_middleware

        middleware += prompt_cache_middleware(provider, model_id or model_name_of(model))[0]
    if provider == "bedrock":
        middleware.append(BedrockWhitespaceMiddleware())
    if ledger is not None:
        middleware.append(ledger.middleware(role="agent", model_id=model_id or model_name_of(model)))
    middleware += [RetryMiddleware(retry_policy), TurnToolCapMiddleware(max_tool_calls_per_turn),
                   HarnessToolMiddleware(decision_sink), TurnDoneMiddleware()]
    return create_agent(model, list(tools), system_prompt=None, middleware=middleware,
                        context_schema=MemoryAgentContext, name="memory_agent")


def turn_message(session_id: str, session_date: str, turn_number: int, turn_count: int, role: str,
                 content: str) -> HumanMessage:
    """A dataset message as the HumanMessage the agent receives (`prompts/agent_turn.txt`)."""
    return HumanMessage(render_turn(session_id, session_date, turn_number, turn_count, role, content))


class AgentTurnState(TypedDict, total=False):
    """The agent's graph state as it streams: the transcript so far and, when the tool-call cap stopped
    the turn, why (`TurnCapState.turn_failed`)."""

    messages: list[BaseMessage]
    turn_failed: str | None


async def run_agent_turn(agent: Any, transcript: Sequence[BaseMessage], context: MemoryAgentContext, *,
                         recursion_limit: int = 40) -> TurnOutcome:
    """Let the agent record the newest message of `transcript`; never raises for cap / recursion."""
    started = time.perf_counter()
    state: AgentTurnState = {"messages": list(transcript)}
    failed: str | None = None
    try:
        async for state in agent.astream({"messages": list(transcript)}, context=context,  # noqa: B007 (last one read below)
                                         config={"recursion_limit": recursion_limit}, stream_mode="values"):
            pass
    except GraphRecursionError:
        failed = f"recursion limit {recursion_limit} reached before the agent finished the message"
    new = tuple(state.get("messages", [])[len(transcript):])
    failed = failed or state.get("turn_failed")
    executed = sum(1 for m in new if isinstance(m, ToolMessage) and m.response_metadata.get(EXECUTED_MARK))
    return TurnOutcome(ok=failed is None, tool_calls=executed, failed_reason=failed, messages_added=len(new),
                       new_messages=new, elapsed_ms=(time.perf_counter() - started) * 1000.0)


def final_text(outcome: TurnOutcome) -> str:
    """The agent's closing text for the turn ("" when it ended on a tool call)."""
    for message in reversed(outcome.new_messages):
        if isinstance(message, AIMessage):
            return message.text if not message.tool_calls else ""
    return ""
