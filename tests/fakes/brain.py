"""Model-backed mode for the fake LLM servers: a Python callable answers each request.

A brain is `Callable[[list[BaseMessage], list[str]], AIMessage]`: it gets the conversation
rebuilt from the request as LangChain messages (SystemMessage, HumanMessage, AIMessage with
tool_calls, ToolMessage with tool_call_id and status) and the names of the tools the request
offers, and returns the assistant's next message. The servers turn its text into a text block and
its tool_calls into tool_use / tool_calls / toolUse.

The rebuild undoes what the LangChain clients do on the way out, so a brain sees (nearly) what
the caller passed to the client: consecutive human messages that langchain-anthropic merged into
one user turn come back one HumanMessage per text block; langchain-aws merges them into ONE text
block joined with "\n" (`merge_message_runs`), so a Bedrock user text is also split before every
line that starts a harness turn header (`[session S | DATE | message i of n] role:`) and follows a
single newline (a multi-message unit inside one HumanMessage keeps its blank-line separators and
stays whole); tool results
come back as ToolMessages (status "error" for `is_error` / `"status": "error"`), cache markers
(`cache_control`, `cachePoint`) are dropped.

    with AnthropicServer(brain=offline_brain()) as server: ...

`offline_brain()` routes requests that offer tools to the harness's `OfflineMemoryAgentModel`
(bound to the offered tool names) and the others to `OfflineReaderModel`.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from tests.fakes.cache_model import strip_cache_control

Brain = Callable[[list[BaseMessage], list[str]], AIMessage]
_ID_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# "\n" + a turn header (prompts/agent_turn.txt), after a non-newline: where merge_message_runs joined two turns.
_MERGED_TURN = re.compile(r"(?<=[^\n])\n(?=\[session [^\n]*? \| [^\n]*? \| message \d+ of \d+\] [A-Za-z_]+:\n)")


def split_merged_turns(text: str) -> list[str]:
    """Undo langchain-aws's merge of consecutive human turns ("A\nB") using the turn headers."""
    return _MERGED_TURN.split(text)


# --- request -> LangChain messages ----------------------------------------------------------

def _text_blocks(content: Any) -> Any:
    """Tool-result content as LangChain content: a string stays a string, blocks lose cache markers."""
    if isinstance(content, list):
        return [strip_cache_control(b) for b in content]
    return "" if content is None else content


def anthropic_request_messages(body: dict[str, Any]) -> tuple[list[BaseMessage], list[str]]:
    """A Messages API request body as (LangChain messages, offered tool names)."""
    messages: list[BaseMessage] = []
    system = body.get("system")
    if isinstance(system, str) and system:
        messages.append(SystemMessage(content=system))
    elif isinstance(system, list) and system:
        blocks = [strip_cache_control(b) for b in system]
        texts = [b for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        messages.append(SystemMessage(content=texts[0]["text"] if len(blocks) == 1 and texts else blocks))
    for message in body.get("messages") or []:
        content = message.get("content")
        if message.get("role") == "assistant":
            messages.append(_anthropic_assistant(content))
            continue
        if isinstance(content, str):
            messages.append(HumanMessage(content=content))
            continue
        for block in content or []:
            block = strip_cache_control(block)
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_result":
                messages.append(ToolMessage(content=_text_blocks(block.get("content")),
                                            tool_call_id=block.get("tool_use_id", ""),
                                            status="error" if block.get("is_error") else "success"))
            elif kind == "text":
                messages.append(HumanMessage(content=block.get("text", "")))
            else:
                messages.append(HumanMessage(content=[block]))
    tools = [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
    return messages, [t for t in tools if t]


def _anthropic_assistant(content: Any) -> AIMessage:
    if isinstance(content, str):
        return AIMessage(content=content)
    texts, calls = [], []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(block.get("text", ""))
        elif block.get("type") == "tool_use":
            calls.append({"name": block.get("name", ""), "args": block.get("input") or {},
                          "id": block.get("id", ""), "type": "tool_call"})
    return AIMessage(content="".join(texts), tool_calls=calls)


def openai_request_messages(body: dict[str, Any]) -> tuple[list[BaseMessage], list[str]]:
    """A chat-completions request body as (LangChain messages, offered tool names)."""
    messages: list[BaseMessage] = []
    for message in body.get("messages") or []:
        role, content = message.get("role"), message.get("content")
        if role in ("system", "developer"):
            messages.append(SystemMessage(content=_openai_content(content)))
        elif role == "user":
            messages.append(HumanMessage(content=_openai_content(content)))
        elif role == "assistant":
            calls = []
            for call in message.get("tool_calls") or []:
                fn = call.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except json.JSONDecodeError:
                    args = {}
                calls.append({"name": fn.get("name", ""), "args": args, "id": call.get("id", ""),
                              "type": "tool_call"})
            messages.append(AIMessage(content=_openai_content(content) or "", tool_calls=calls))
        elif role == "tool":
            messages.append(ToolMessage(content=_openai_content(content), tool_call_id=message.get("tool_call_id", "")))
    tools = [(t.get("function") or {}).get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
    return messages, [t for t in tools if t]


def _openai_content(content: Any) -> Any:
    if content is None:
        return ""
    if isinstance(content, list):
        return [{"type": "text", "text": p.get("text", "")} if isinstance(p, dict) and p.get("type") == "text" else p
                for p in content]
    return content


def bedrock_request_messages(body: dict[str, Any]) -> tuple[list[BaseMessage], list[str]]:
    """A Converse request body as (LangChain messages, offered tool names)."""
    messages: list[BaseMessage] = []
    system = [b["text"] for b in body.get("system") or [] if isinstance(b, dict) and "text" in b]
    if system:
        messages.append(SystemMessage(content=system[0] if len(system) == 1
                                      else [{"type": "text", "text": t} for t in system]))
    for message in body.get("messages") or []:
        content = [b for b in message.get("content") or [] if isinstance(b, dict) and "cachePoint" not in b]
        if message.get("role") == "assistant":
            texts = [b["text"] for b in content if "text" in b]
            calls = [{"name": b["toolUse"].get("name", ""), "args": b["toolUse"].get("input") or {},
                      "id": b["toolUse"].get("toolUseId", ""), "type": "tool_call"} for b in content if "toolUse" in b]
            messages.append(AIMessage(content="".join(texts), tool_calls=calls))
            continue
        for block in content:
            if "toolResult" in block:
                result = block["toolResult"]
                parts = []
                for part in result.get("content") or []:
                    if "text" in part:
                        parts.append({"type": "text", "text": part["text"]})
                    elif "json" in part:
                        parts.append({"type": "text", "text": json.dumps(part["json"])})
                messages.append(ToolMessage(content=parts, tool_call_id=result.get("toolUseId", ""),
                                            status="error" if result.get("status") == "error" else "success"))
            elif "text" in block:
                messages.extend(HumanMessage(content=part) for part in split_merged_turns(block["text"]))
            else:
                messages.append(HumanMessage(content=[block]))
    tools = [(t.get("toolSpec") or {}).get("name", "") for t in (body.get("toolConfig") or {}).get("tools") or []
             if isinstance(t, dict)]
    return messages, [t for t in tools if t]


# --- brain -> script spec -------------------------------------------------------------------

def spec_from_message(message: AIMessage) -> dict[str, Any]:
    """The brain's AIMessage as a script spec: `{"text", "tool_calls": [(name, args, id), ...]}`."""
    if not isinstance(message, AIMessage):
        raise TypeError(f"a brain must return an AIMessage, got {type(message).__name__}")
    calls = []
    for call in message.tool_calls:
        ident = call.get("id") or ""
        calls.append((call["name"], dict(call.get("args") or {}), ident if _ID_OK.match(ident) else None))
    spec: dict[str, Any] = {"tool_calls": calls}
    text = message.text
    if text:
        spec["text"] = text
    return spec


async def brain_spec(brain: Brain, parse: Callable[[dict[str, Any]], tuple[list[BaseMessage], list[str]]],
                     body: dict[str, Any], errors: list[str]) -> dict[str, Any]:
    """Ask the brain (in a worker thread) for its answer to `body`; a failure becomes a 500 spec."""
    try:
        messages, tools = parse(body)
        reply = await asyncio.to_thread(brain, messages, tools)
        return spec_from_message(reply)
    except Exception as exc:  # the brain's bug must reach the test, not hang the client
        errors.append(f"{type(exc).__name__}: {exc}")
        return {"error": {"status": 500, "message": f"brain failed: {type(exc).__name__}: {exc}",
                          "headers": {}, "type": ""}}


def offline_brain(*, agent: Any = None, reader: Any = None) -> Brain:
    """Requests offering tools -> OfflineMemoryAgentModel (bound to them); others -> OfflineReaderModel."""
    from benchmarker.agent.offline import OfflineMemoryAgentModel, OfflineReaderModel

    agent = agent if agent is not None else OfflineMemoryAgentModel()
    reader = reader if reader is not None else OfflineReaderModel()
    bound: dict[tuple[str, ...], Any] = {}
    lock = threading.Lock()

    def brain(messages: list[BaseMessage], tool_names: list[str]) -> AIMessage:
        if tool_names:
            key = tuple(tool_names)
            with lock:
                model = bound.get(key)
                if model is None:
                    model = bound[key] = agent.bind_tools([{"name": n} for n in key])
            return model.invoke(messages)
        return reader.invoke(messages)

    return brain
