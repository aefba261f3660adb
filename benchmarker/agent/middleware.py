"""The memory agent's middleware: system prompt from the run context, tool-call cap, harness tool wrapper.

Retry (`retry.RetryMiddleware`) and token counting (`ledger.LedgerMiddleware`) live with their
subjects; `memory_agent.build_memory_agent` puts them all in order.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, ToolCallLimitMiddleware, dynamic_prompt
from langchain.agents.middleware.tool_call_limit import ToolCallLimitState
from langchain.agents.middleware.types import OmitFromInput
from langchain_core.messages import ToolMessage

from benchmarker.agent.retry import strip_trailing_whitespace
from benchmarker.memory.client import tool_result_text

TRACE_TAG_KEYS = ("run_id", "case_id", "question_id", "session_id", "session_date", "turn_index", "role")
RESULT_PREVIEW_CHARS = 300
EXECUTED_MARK = "harness_executed"  # response_metadata key on ToolMessages of tools that really ran

# decision_sink(context, record) -> None, sync or async; record keys:
#   tool, args (as sent, tags merged), result_preview, latency_ms, error (None on success), tool_call_id
DecisionSink = Callable[[Any, dict[str, Any]], "Awaitable[None] | None"]


def system_prompt_middleware() -> AgentMiddleware:
    """The system prompt is `runtime.context.system_prompt` (composed per question and session)."""

    @dynamic_prompt
    def memory_agent_system_prompt(request: Any) -> str:
        prompt = getattr(request.runtime.context, "system_prompt", "")
        if not prompt:
            raise ValueError("MemoryAgentContext.system_prompt is empty: compose it with "
                             "compose_memory_system_prompt before running a turn")
        return prompt

    return memory_agent_system_prompt


class TurnCapState(ToolCallLimitState):
    # Set when the cap stopped the turn; in the agent's output so run_agent_turn can report it.
    turn_failed: NotRequired[Annotated[str | None, OmitFromInput]]


class TurnToolCapMiddleware(ToolCallLimitMiddleware):
    """ToolCallLimitMiddleware(run_limit=N, exit_behavior="end") that also marks the turn failed.

    N is per message: a turn that holds several messages (ingest unit exchange / session) gets
    N x its message count (`MemoryAgentContext.unit_turns`).
    """

    state_schema = TurnCapState

    def __init__(self, max_tool_calls: int):
        super().__init__(run_limit=max_tool_calls, exit_behavior="end")
        self.per_message = max_tool_calls

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = len(getattr(getattr(runtime, "context", None), "unit_turns", ()) or ()) or 1
        # after_model runs synchronously between awaits, so setting the limit for this call is safe
        self.run_limit = self.per_message * messages
        update = super().after_model(state, runtime)
        if update and update.get("jump_to") == "end":
            update["turn_failed"] = (f"tool-call cap reached: the model asked for more than {self.run_limit} "
                                     "tool calls for one message")
        return update

    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.after_model(state, runtime)


def trace_tags(context: Any) -> dict[str, Any]:
    """The harness's trace tags for this turn (keys that are None are left out)."""
    # Mycelian reads tags as string -> string and silently drops all tags of an entry otherwise.
    return {k: str(getattr(context, k)) for k in TRACE_TAG_KEYS if getattr(context, k, None) is not None}


def _parse_tags(model_tags: Any) -> dict[str, Any]:
    if isinstance(model_tags, str):
        try:
            model_tags = json.loads(model_tags)
        except json.JSONDecodeError:
            model_tags = {"model_tags": model_tags}
    if not isinstance(model_tags, dict):
        model_tags = {} if model_tags is None else {"model_tags": model_tags}
    return model_tags


def merge_tags(model_tags: Any, harness_tags: dict[str, Any]) -> dict[str, str]:
    """The model's own tags, with the harness's trace tags on top (they must stay exact for metrics).

    Every value becomes a string: Mycelian silently drops ALL tags of an entry whose tag map has a
    non-string value (a model writing `"message": 3` would otherwise erase the trace tags).
    """
    merged = {**_parse_tags(model_tags), **harness_tags}
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in merged.items()}


def entry_turn_context(context: Any, call: dict[str, Any], messages: list[Any]) -> Any:
    """The context of the message an add_entry records, when one agent turn holds several messages.

    The model names the message by its number (`tags.message`, from the header); without a usable
    number the k-th add_entry of the turn records the k-th message (the order the prompt asks for).
    """
    unit = tuple(getattr(context, "unit_turns", ()) or ())
    if len(unit) <= 1:
        return context
    by_number = {turn_index + 1: (turn_index, role) for turn_index, role in unit}
    number = _parse_tags((call.get("args") or {}).get("tags")).get("message")
    try:
        if int(str(number)) in by_number:
            return context.for_turn(*by_number[int(str(number))])
    except ValueError:
        pass
    last_human = max((i for i, m in enumerate(messages) if getattr(m, "type", "") == "human"), default=-1)
    ids = [tc.get("id") for m in messages[last_human + 1:] for tc in (getattr(m, "tool_calls", None) or [])
           if tc.get("name") == "add_entry"]
    position = ids.index(call.get("id")) if call.get("id") in ids else len(ids)
    return context.for_turn(*unit[min(position, len(unit) - 1)])


class HarnessToolMiddleware(AgentMiddleware):
    """Around every agent tool call: merge trace tags into add_entry, flatten the result to a
    string, turn exceptions into error text for the model, time it and report it to the sink."""

    def __init__(self, decision_sink: DecisionSink | None = None):
        super().__init__()
        self.decision_sink = decision_sink

    def _prepare(self, request: Any) -> tuple[Any, Any]:
        """The request with trace tags merged into add_entry, and the context of the recorded message."""
        call = request.tool_call
        context = getattr(request.runtime, "context", None)
        if call["name"] == "add_entry" and context is not None:
            messages = (getattr(request, "state", None) or {}).get("messages") or []
            context = entry_turn_context(context, call, messages)
            args = dict(call.get("args") or {})
            args["tags"] = merge_tags(args.get("tags"), trace_tags(context))
            request = request.override(tool_call={**call, "args": args})
        return request, context

    def _finish(self, request: Any, result: Any, started: float) -> tuple[Any, dict[str, Any]]:
        call = request.tool_call
        if isinstance(result, ToolMessage):
            text = tool_result_text(result.content)
            if result.status == "error" and not text:
                text = f"Error: {call['name']} failed without a message"
            meta = {**(result.response_metadata or {}), EXECUTED_MARK: True}
            result = result.model_copy(update={"content": text, "response_metadata": meta})
            error = text if result.status == "error" else None
        else:  # a Command: nothing to flatten
            text, error = "", None
        record = {"tool": call["name"], "args": call.get("args") or {}, "result_preview": text[:RESULT_PREVIEW_CHARS],
                  "latency_ms": round((time.perf_counter() - started) * 1000.0, 3), "error": error,
                  "tool_call_id": call.get("id")}
        return result, record

    def _sink(self, context: Any) -> DecisionSink | None:
        """The turn's own sink (the run log of whoever invoked the agent), else the agent's."""
        return getattr(context, "decision_sink", None) or self.decision_sink

    @staticmethod
    def _error_message(request: Any, exc: Exception) -> ToolMessage:
        call = request.tool_call
        return ToolMessage(content=f"Error: {type(exc).__name__}: {exc}", tool_call_id=call["id"],
                           name=call["name"], status="error")

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        request, context = self._prepare(request)
        started = time.perf_counter()
        try:
            result = handler(request)
        except Exception as exc:  # the model gets the error as text and may correct itself
            result = self._error_message(request, exc)
        result, record = self._finish(request, result, started)
        sink = self._sink(context)
        if sink is not None:
            outcome = sink(context, record)
            if inspect.iscoroutine(outcome):
                outcome.close()
                raise TypeError("an async decision_sink needs the async agent API (ainvoke / run_agent_turn)")
        return result

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        request, context = self._prepare(request)
        started = time.perf_counter()
        try:
            result = await handler(request)
        except Exception as exc:
            result = self._error_message(request, exc)
        result, record = self._finish(request, result, started)
        sink = self._sink(context)
        if sink is not None:
            outcome = sink(context, record)
            if inspect.isawaitable(outcome):
                await outcome
        return result


def as_text_blocks(messages: list[Any]) -> list[Any]:
    """Human messages with string content as one text block each.

    langchain-aws merges consecutive human messages; string contents are joined into ONE text block
    that changes with every new message, so no cache point ever matches the transcript again. Block
    contents are merged as separate blocks, so the transcript stays a cacheable, growing prefix.
    """
    from langchain_core.messages import HumanMessage

    return [m.model_copy(update={"content": [{"type": "text", "text": m.content}]})
            if isinstance(m, HumanMessage) and isinstance(m.content, str) else m for m in messages]


class BedrockWhitespaceMiddleware(AgentMiddleware):
    """Bedrock rejects message texts that end in whitespace: strip them before each model call (and keep
    every human message its own content block, see `as_text_blocks`)."""

    def _messages(self, request: Any) -> list[Any]:
        return as_text_blocks(strip_trailing_whitespace(request.messages))

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request.override(messages=self._messages(request)))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(request.override(messages=self._messages(request)))
