"""The memory agent's middleware: system prompt from the run context, tool-call cap, harness tool wrapper.

Retry (`retry.RetryMiddleware`) and token counting (`ledger.LedgerMiddleware`) live with their
subjects; `memory_agent.build_memory_agent` puts them all in order.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired, TypedDict

from langchain.agents.middleware import AgentMiddleware, ToolCallLimitMiddleware, dynamic_prompt
from langchain.agents.middleware.tool_call_limit import ToolCallLimitState
from langchain.agents.middleware.types import OmitFromInput, hook_config
from langchain_core.messages import AIMessage, ToolCall, ToolMessage

from benchmarker.agent.harness_entry import EntryFillError, fill_add_entry, mark_stored, server_tool_of
from benchmarker.agent.retry import strip_trailing_whitespace
from benchmarker.log.lines import Json
from benchmarker.memory.client import tool_result_text
from benchmarker.redact import masked_preview

TRACE_TAG_KEYS = ("run_id", "case_id", "question_id", "session_id", "session_date", "turn_index", "role")
RESULT_PREVIEW_CHARS = 300
EXECUTED_MARK = "harness_executed"  # response_metadata key on ToolMessages of tools that really ran

class ToolDecision(TypedDict):
    """What a decision sink gets for one tool call (a decisions.jsonl line's own keys, log/records.py)."""

    tool: str
    # as the server got them: tags merged, and with [agent] raw_entry = "harness" the message's text filled in
    args: dict[str, Json]
    result_preview: str
    latency_ms: float
    error: str | None          # None on success
    tool_call_id: str | None
    model_args: NotRequired[dict[str, Json]]  # harness-filled add_entry calls: what the model sent


# decision_sink(context, record) -> None, sync or async
DecisionSink = Callable[[Any, ToolDecision], "Awaitable[None] | None"]


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


def trace_tags(context: Any) -> dict[str, str]:
    """The harness's trace tags for this turn (keys that are None are left out)."""
    # Mycelian reads tags as string -> string and silently drops all tags of an entry otherwise.
    return {k: str(getattr(context, k)) for k in TRACE_TAG_KEYS if getattr(context, k, None) is not None}


def _parse_tags(model_tags: Any) -> dict[str, Json]:
    if isinstance(model_tags, str):
        try:
            model_tags = json.loads(model_tags)
        except json.JSONDecodeError:
            model_tags = {"model_tags": model_tags}
    if not isinstance(model_tags, dict):
        model_tags = {} if model_tags is None else {"model_tags": model_tags}
    return model_tags


def merge_tags(model_tags: Any, harness_tags: dict[str, str]) -> dict[str, str]:
    """The model's own tags, with the harness's trace tags on top (they must stay exact for metrics).

    Every value becomes a string: Mycelian silently drops ALL tags of an entry whose tag map has a
    non-string value (a model writing `"message": 3` would otherwise erase the trace tags).
    """
    merged = {**_parse_tags(model_tags), **harness_tags}
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in merged.items()}


def entry_turn_context(context: Any, call: ToolCall, messages: list[Any]) -> Any:
    """The context of the message an add_entry records, when one agent turn holds several messages.

    The model names the message by its number (`message` or `tags.message`, from the header); without a usable
    number the k-th add_entry of the turn records the k-th message (the order the prompt asks for).
    """
    unit = tuple(getattr(context, "unit_turns", ()) or ())
    if len(unit) <= 1:
        return context
    by_number = {turn_index + 1: (turn_index, role) for turn_index, role in unit}
    args = call.get("args") or {}
    number = args.get("message")  # the harness add_entry names it outright
    number = _parse_tags(args.get("tags")).get("message") if number is None else number
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

    def _prepare(self, request: Any) -> tuple[Any, Any, dict[str, Json] | None]:
        """The request with trace tags merged into add_entry (and, for the harness's add_entry, the
        message's text filled in and the server's own tool), the context of the recorded message, and
        what the model sent when the harness filled it. Raises EntryFillError when it cannot fill."""
        call = request.tool_call
        context = getattr(request.runtime, "context", None)
        model_args = None
        if call["name"] == "add_entry" and context is not None:
            messages = (getattr(request, "state", None) or {}).get("messages") or []
            server_tool = server_tool_of(request.tool)
            if server_tool is not None:
                model_args = dict(call.get("args") or {})
                call = {**call, "args": fill_add_entry(model_args, context)}
                request = request.override(tool=server_tool, tool_call=call)
            context = entry_turn_context(context, call, messages)
            args = dict(call.get("args") or {})
            args["tags"] = merge_tags(args.get("tags"), trace_tags(context))
            request = request.override(tool_call={**call, "args": args})
        return request, context, model_args

    def _finish(self, request: Any, result: Any, started: float,
                model_args: dict[str, Json] | None = None) -> tuple[Any, ToolDecision]:
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
        record: ToolDecision = {"tool": call["name"], "args": call.get("args") or {},
                                "result_preview": masked_preview(text, RESULT_PREVIEW_CHARS),  # masked whole, then cut
                                "latency_ms": round((time.perf_counter() - started) * 1000.0, 3), "error": error,
                                "tool_call_id": call.get("id")}
        if model_args is not None:
            record["model_args"] = model_args
        return result, record

    def _sink(self, context: Any) -> DecisionSink | None:
        """The turn's own sink (the run log of whoever invoked the agent), else the agent's."""
        return getattr(context, "decision_sink", None) or self.decision_sink

    @staticmethod
    def _error_message(request: Any, exc: Exception) -> ToolMessage:
        call = request.tool_call
        return ToolMessage(content=f"Error: {type(exc).__name__}: {exc}", tool_call_id=call["id"],
                           name=call["name"], status="error")

    def _start(self, request: Any) -> tuple[Any, Any, dict[str, Json] | None, ToolMessage | None]:
        """_prepare, with a fill error as the tool's error message (the server is not called)."""
        try:
            return (*self._prepare(request), None)
        except EntryFillError as exc:
            call = request.tool_call
            context = getattr(request.runtime, "context", None)
            error = ToolMessage(content=f"Error: {exc}", tool_call_id=call["id"], name=call["name"], status="error")
            return request, context, dict(call.get("args") or {}), error

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        request, context, model_args, refused = self._start(request)
        started = time.perf_counter()
        try:
            result = refused or handler(request)
        except Exception as exc:  # the model gets the error as text and may correct itself
            result = self._error_message(request, exc)
        result, record = self._finish(request, result, started, model_args)
        if refused is not None:  # never reached the server: not an executed call
            result.response_metadata.pop(EXECUTED_MARK, None)
        elif model_args is not None and record["error"] is None:  # the harness's add_entry was stored
            mark_stored(getattr(request.runtime, "context", None), model_args)
        sink = self._sink(context)
        if sink is not None:
            outcome = sink(context, record)
            if inspect.iscoroutine(outcome):
                outcome.close()
                raise TypeError("an async decision_sink needs the async agent API (ainvoke / run_agent_turn)")
        return result

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        request, context, model_args, refused = self._start(request)
        started = time.perf_counter()
        try:
            result = refused or await handler(request)
        except Exception as exc:
            result = self._error_message(request, exc)
        result, record = self._finish(request, result, started, model_args)
        if refused is not None:  # never reached the server: not an executed call
            result.response_metadata.pop(EXECUTED_MARK, None)
        elif model_args is not None and record["error"] is None:  # the harness's add_entry was stored
            mark_stored(getattr(request.runtime, "context", None), model_args)
        sink = self._sink(context)
        if sink is not None:
            outcome = sink(context, record)
            if inspect.isawaitable(outcome):
                await outcome
        return result


class TurnDoneMiddleware(AgentMiddleware):
    """Ends the turn without another model call once every message of it is recorded and, when due,
    the context is written (`MemoryAgentContext.end_when_done`, `[agent] context_update = "session"`)."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        context = getattr(runtime, "context", None)
        if not getattr(context, "end_when_done", False):
            return None
        return {"jump_to": "end"} if turn_done(context, list(state.get("messages") or [])) else None

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_model(state, runtime)


def turn_done(context: Any, messages: list[Any]) -> bool:
    """Every message of this turn has a successful add_entry and, when the context is due, put_context ran."""
    last_human = max((i for i, m in enumerate(messages) if getattr(m, "type", "") == "human"), default=-1)
    after = messages[last_human + 1:]
    ok = {m.tool_call_id for m in after if isinstance(m, ToolMessage) and m.status != "error"}
    calls = [tc for m in after if isinstance(m, AIMessage) for tc in m.tool_calls if tc.get("id") in ok]
    if not calls:
        return False
    unit = tuple(getattr(context, "unit_turns", ()) or ()) or ((context.turn_index, context.role),)
    recorded = {entry_turn_context(context, tc, messages).turn_index for tc in calls if tc["name"] == "add_entry"}
    if len(unit) == 1:  # entry_turn_context keeps a one-message turn's own context
        recorded = {context.turn_index} if recorded else set()
    written = any(tc["name"] == "put_context" for tc in calls)
    return {i for i, _ in unit} <= recorded and (written or not getattr(context, "context_due", False))


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
