"""`[agent] raw_entry = "harness"`: the model writes only what it decides.

The add_entry the model sees takes the number of the message it records (from the message's header),
its summary and optional tags; `fill_add_entry` turns that into Mycelian's normal add_entry (vault and
memory ids, that message's exact text as raw_entry, the role / date / message tags) before the call
reaches the memory server. An entry that is not one message (a note, a correction) carries the
model's own raw_entry instead. The tool's description is `prompts/tool_add_entry_harness.txt`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from benchmarker.log.lines import Json
from benchmarker.memory.limits import RAW_ENTRY_CHARS
from benchmarker.redact import clean_cut

TOOL_PROMPT = "tool_add_entry_harness"
SERVER_TOOL_KEY = "server_tool"   # metadata key: the memory server's own add_entry behind the harness tool


def message_raw_entry(role: str, content: str, session_date: str) -> str:
    """A message as an entry's raw_entry: the dialogue's own date and the speaker, then the text verbatim,
    cut at RAW_ENTRY_CHARS (the longest entry Mycelian's REST API accepts). The prompt asks a model
    that writes raw_entry itself for the same form."""
    return clean_cut(f"[{session_date}] {role}: {content}", RAW_ENTRY_CHARS)  # never inside a credential


class HarnessAddEntryArgs(BaseModel):
    """What the model sends (the harness adds the rest)."""

    message: int | None = Field(None, description="The number i of the message this entry records, from its header "
                                "'message i of n'. The harness stores that message's exact text as raw_entry.")
    summary: str = Field(description="Short summary of the entry")
    tags: dict[str, str] | None = Field(None, description="Tags of your own (optional; role, session date and message "
                                        "are added by the harness)")
    raw_entry: str | None = Field(None, description="Only for an entry that is not one message (a note, a "
                                  "correction): its text. Leave it out when you give message.")


def _not_called(**_: Any) -> str:
    raise RuntimeError("the harness add_entry runs through HarnessToolMiddleware, which calls the server's tool")


def harness_add_entry_tool(server_tool: BaseTool) -> BaseTool:
    """The add_entry the model sees in harness mode; the server's own tool rides along in its metadata."""
    from benchmarker.agent.prompts import load_prompt

    return StructuredTool(name=server_tool.name, description=load_prompt(TOOL_PROMPT), args_schema=HarnessAddEntryArgs,
                          func=_not_called, metadata={SERVER_TOOL_KEY: server_tool})


def with_harness_entries(tools: list[Any]) -> list[Any]:
    """The agent's tools with add_entry replaced by the harness version."""
    return [harness_add_entry_tool(t) if getattr(t, "name", "") == "add_entry" else t for t in tools]


def server_tool_of(tool: Any) -> BaseTool | None:
    return (getattr(tool, "metadata", None) or {}).get(SERVER_TOOL_KEY)


class EntryFillError(ValueError):
    """The model's add_entry cannot be filled in (shown to the model as the tool's error)."""


class AddEntryArgs(TypedDict):
    """Mycelian's add_entry arguments, as the harness fills them in for the server."""

    vault_id: str
    memory_id: str
    raw_entry: str
    summary: Json          # the model's, passed on as sent (the server checks it)
    tags: dict[str, Json]


def fill_add_entry(args: Mapping[str, Json], context: Any) -> AddEntryArgs:
    """Mycelian's add_entry arguments for what the model sent (`HarnessAddEntryArgs`)."""
    entries = {number: (role, text) for number, role, text in getattr(context, "unit_entries", ()) or ()}
    number = args.get("message")
    sent = args.get("tags")
    tags: dict[str, Json] = dict(sent) if isinstance(sent, dict) else {}
    if number is not None and str(number).strip():
        try:
            key = int(str(number))
        except ValueError:
            key = -1
        if key not in entries:
            held = ", ".join(str(n) for n in sorted(entries)) or "none"
            raise EntryFillError(f"message {number} is not in this chat turn (it holds message {held}); name one of "
                                 "them, or leave message out and write raw_entry yourself")
        if key in _taken(context):  # naming one message twice would store it twice
            raise EntryFillError(f"message {key} is already stored in this turn; record each message once")
        role, raw = entries[key]
        tags |= {"role": role, "session_date": getattr(context, "session_date", ""), "message": key}
    else:
        raw = args.get("raw_entry")
        if not isinstance(raw, str) or not raw.strip():
            raise EntryFillError("add_entry needs message (the number of the message it records) or, for an entry "
                                 "that is not one message, raw_entry")
    return {"vault_id": getattr(context, "vault_id", ""), "memory_id": getattr(context, "memory_id", ""),
            "raw_entry": raw, "summary": args.get("summary") or "", "tags": tags}


def _taken(context: Any) -> set[int]:
    """The message numbers this turn's entries recorded so far (`MemoryAgentContext.stored_messages`); a
    context without that set (no harness turn) compares against nothing."""
    taken = getattr(context, "stored_messages", None)
    return taken if isinstance(taken, set) else set()


def mark_stored(context: Any, model_args: Mapping[str, Json]) -> None:
    """After the server stored an entry the model named by `message`: a second one for it is refused."""
    number = model_args.get("message")
    try:
        key = int(str(number)) if number is not None and str(number).strip() else None
    except ValueError:
        key = None
    if key is not None:
        _taken(context).add(key)
