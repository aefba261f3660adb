"""The offline memory agent: a deterministic policy that follows Mycelian's capture rules with
real tool calls, through the same prebuilt agent loop a real model drives.

Per agent invocation it reads the system prompt (vault, memory, cadence) and the newest chat
turn's headers (session, date, message i of n). With one message per turn (`ingest_unit =
"message"`) it emits one tool call per model step: on message 1 `get_context` and
`list_entries(limit=BOOTSTRAP_ENTRIES)`; always one `add_entry`; every `cadence` messages and at
the session's last message `await_consistency`, `get_context` (reused from the bootstrap on
message 1) and `put_context`; then "Recorded.". At most 5 calls a message. With several
messages per turn (exchange, session) independent calls go in one reply: the bootstrap pair,
then every `add_entry`, then the context update once.

With `context_update = "session"` (the system prompt says so) the context is written only in a turn
that ends with the context-due line, with no await_consistency and no second get_context (the
bootstrap's is reused; a later turn reads it first): several messages per turn then take the bootstrap
reply and ONE writing reply (every add_entry and the put_context), and the harness ends the turn.
With `raw_entry = "harness"` add_entry names the message instead of re-typing it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarker.agent.offline_mapped import mapped_next_step
from benchmarker.agent.offline_reader import ZERO_USAGE, content_words, has_number, iso_date, split_sentences
from benchmarker.agent.offline_summary import (
    DECISION_RE,
    NOT_NAMES,
    PREFERENCE_RE,
    _salience,
    names_in,
    raw_entry,
    summarize_message,
)
from benchmarker.agent.prompts import (
    MemoryPromptFacts,
    TurnHeader,
    parse_memory_system_prompt,
    parse_unit,
    split_context_due,
)
from benchmarker.log.lines import Json
from benchmarker.memory.limits import BOOTSTRAP_ENTRIES, CONTEXT_CHARS, SUMMARY_CHARS

__all__ = ["NOT_NAMES", "OfflineMemoryAgentModel", "names_in", "raw_entry", "summarize_message"]

SUMMARY_MAX = SUMMARY_CHARS
CONTEXT_MAX = CONTEXT_CHARS
SECTIONS = ("facts", "preferences", "decisions", "topics", "entities", "timeline")
SECTION_CAPS = {"facts": 60, "preferences": 30, "decisions": 30, "topics": 30, "entities": 60, "timeline": 400}
TRIM_ORDER = ("timeline", "facts", "topics", "entities", "decisions", "preferences")
def parse_context(text: str) -> dict[str, list[str]]:
    """Our own sections out of a previous context; anything else (a placeholder) is dropped."""
    sections: dict[str, list[str]] = {s: [] for s in SECTIONS}
    current: str | None = None
    for line in (text or "").splitlines():
        heading = re.match(r"^##\s+(\w+)\s*$", line.strip())
        if heading:
            current = heading.group(1).lower() if heading.group(1).lower() in sections else None
        elif current and line.startswith("- "):
            sections[current].append(line[2:].strip())
    return sections


def session_notes(turns: list[TurnHeader]) -> dict[str, list[str]]:
    """Facts, preferences, decisions, topics, entities and timeline lines from this session's messages."""
    notes: dict[str, list[str]] = {s: [] for s in SECTIONS}
    topic_counts: Counter[str] = Counter()
    for turn in turns:
        date = iso_date(turn.session_date)
        sentences = split_sentences(turn.content)
        key = max(range(len(sentences)), key=lambda i: (_salience(sentences[i], i), -i)) if sentences else -1
        notes["timeline"].append(f"{date} {turn.role}: {_clip(sentences[key] if sentences else '(empty)', 140)}")
        for sentence in sentences:
            notes["entities"].extend(names_in(sentence))
            if turn.role == "assistant":  # a person's facts: the user's, or either speaker's in LoCoMo
                continue
            item = f"{date}: {_clip(sentence, 200)}"
            if PREFERENCE_RE.search(sentence):
                notes["preferences"].append(item)
            elif DECISION_RE.search(sentence):
                notes["decisions"].append(item)
            elif has_number(sentence) or names_in(sentence):
                notes["facts"].append(item)
        if turn.role != "assistant":
            topic_counts.update(w for w in content_words(turn.content) if len(w) > 3 and not w.isdigit())
    notes["topics"] = [w for w, _ in sorted(topic_counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
    return notes


def build_context(previous: str, turns: list[TurnHeader], *, max_chars: int = CONTEXT_MAX) -> str:
    """Previous sections + this session's notes, deduplicated, capped, oldest lines trimmed to fit."""
    merged = parse_context(previous)
    for section, items in session_notes(turns).items():
        seen = set(merged[section])
        for item in items:
            if item not in seen:
                merged[section].append(item)
                seen.add(item)
        merged[section] = merged[section][-SECTION_CAPS[section]:]
    text = render_context(merged, turns[-1] if turns else None)
    for section in TRIM_ORDER:
        while len(text) > max_chars and merged[section]:
            merged[section].pop(0)
            text = render_context(merged, turns[-1] if turns else None)
    return text[:max_chars]


def render_context(sections: dict[str, list[str]], last: TurnHeader | None) -> str:
    where = (f" after message {last.turn_number} of {last.turn_count} of session {last.session_id} "
             f"({iso_date(last.session_date)})") if last else ""
    lines = [f"# Memory context (offline memory agent){where}"]
    for section in SECTIONS:
        lines.append(f"## {section}")
        lines.extend(f"- {item}" for item in sections[section])
    return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


# --- the policy ----------------------------------------------------------------------------

def plan_for(turn: TurnHeader, cadence: int) -> list[str]:
    """The tool calls for one message, in order (message unit: one call per model step)."""
    plan = ["get_context", "list_entries"] if turn.turn_number == 1 else []
    plan.append("add_entry")
    if _context_due(turn, cadence):
        plan += ["await_consistency"] + ([] if turn.turn_number == 1 else ["get_context"]) + ["put_context"]
    return plan


def plan_for_unit(turns: list[TurnHeader], cadence: int) -> list[list[tuple[str, int]]]:
    """Model steps for several messages at once (exchange / session unit): each step is a list of
    (tool, index of the message in the unit) calls made in one reply, so independent calls go together."""
    steps: list[list[tuple[str, int]]] = []
    if turns[0].turn_number == 1:
        steps.append([("get_context", 0), ("list_entries", 0)])
    steps.append([("add_entry", i) for i in range(len(turns))])
    if any(_context_due(t, cadence) for t in turns):
        last = len(turns) - 1
        steps += [[("await_consistency", last)], [("get_context", last)], [("put_context", last)]]
    return steps


def policy_steps(turns: list[TurnHeader], cadence: int, tool_names: tuple[str, ...] | list[str] = (), *,
                 context_update: str = "cadence", context_due: bool = False) -> list[list[tuple[str, int]]]:
    """The model steps for one agent turn, each a list of (tool, message index in the turn) calls.

    One message: one call per step (`plan_for`); several: `plan_for_unit`; `context_update = "session"`:
    `plan_once` (the context only when `context_due`). Steps whose tool the agent was not given
    (`[agent] tools`) are left out; add_entry is always kept (the agent must write).
    """
    if context_update == "session":
        steps = plan_once(turns, context_due)
    elif len(turns) == 1:
        steps = [[(name, 0)] for name in plan_for(turns[0], cadence)]
    else:
        steps = plan_for_unit(turns, cadence)
    return [kept for step in steps if (kept := [c for c in step if not tool_names or c[0] in tool_names
                                                 or c[0] == "add_entry"])]


def plan_once(turns: list[TurnHeader], context_due: bool) -> list[list[tuple[str, int]]]:
    """`context_update = "session"`: the bootstrap (or, when the context is due in a later turn, a
    get_context), then the writes and the put_context in one reply (one message: one call per step)."""
    last = len(turns) - 1
    steps: list[list[tuple[str, int]]] = []
    if turns[0].turn_number == 1:
        steps.append([("get_context", 0), ("list_entries", 0)])
    elif context_due:
        steps.append([("get_context", last)])
    steps.append([("add_entry", i) for i in range(len(turns))] + ([("put_context", last)] if context_due else []))
    if len(turns) == 1:  # one message per turn: one tool call at a time
        return [[call] for step in steps for call in step]
    return steps


def _context_due(turn: TurnHeader, cadence: int) -> bool:
    return turn.turn_number == turn.turn_count or (cadence > 0 and turn.turn_number % cadence == 0)


def _latest_result(after: list[BaseMessage], tool: str) -> str:
    ids = {tc["id"] for m in after if isinstance(m, AIMessage) for tc in m.tool_calls if tc["name"] == tool}
    for message in reversed(after):
        if isinstance(message, ToolMessage) and message.tool_call_id in ids and message.status != "error":
            return message.text
    return ""


def next_step(messages: list[BaseMessage], tool_names: tuple[str, ...] = ()) -> AIMessage:
    """The policy's next message for this conversation state."""
    system = next((m.text for m in messages if isinstance(m, SystemMessage)), "")
    facts = parse_memory_system_prompt(system)
    if facts is None:
        raise ValueError("offline memory agent: the system prompt does not state vault_id / memory_id / cadence "
                         "(compose it with compose_memory_system_prompt)")
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    turns = parse_unit(messages[last_human].text) if last_human >= 0 else []
    due = split_context_due(messages[last_human].text)[1] if last_human >= 0 else False
    if not turns:
        return _reply("Nothing to record: the newest message has no turn header.")
    after = messages[last_human + 1:]
    if any(isinstance(m, ToolMessage) and m.status == "error" and "tool call limit" in m.text.lower()
           for m in after):
        return _reply("Stopped: tool-call limit.")
    steps = policy_steps(turns, facts.context_cadence, tool_names, context_update=facts.context_update,
                         context_due=due)
    if len(turns) == 1:
        done = sum(len(m.tool_calls) for m in after if isinstance(m, AIMessage))
    else:
        done = sum(1 for m in after if isinstance(m, AIMessage) and m.tool_calls)
    if done >= len(steps):
        return _reply("Recorded.")
    calls = []
    for k, (name, index) in enumerate(steps[done]):
        if tool_names and name not in tool_names:
            raise RuntimeError(f"offline memory agent: the memory server offers no {name!r} tool "
                               f"(it has: {', '.join(sorted(tool_names))})")
        turn = turns[index]
        args = _tool_args(name, facts, turn, messages[:last_human + 1], after)
        call_id = re.sub(r"[^A-Za-z0-9_-]", "_", f"call_{turn.session_id}_{turn.turn_number}_{done}_{k}")[:64]
        calls.append({"name": name, "args": args, "id": call_id, "type": "tool_call"})
    return AIMessage(content="", tool_calls=calls, usage_metadata=dict(ZERO_USAGE))


def _tool_args(name: str, facts: MemoryPromptFacts, turn: TurnHeader, transcript: list[BaseMessage],
               after: list[BaseMessage]) -> dict[str, Json]:
    ids: dict[str, Json] = {"vault_id": facts.vault_id, "memory_id": facts.memory_id}
    if name == "get_context":
        return ids
    if name == "list_entries":
        return {**ids, "limit": BOOTSTRAP_ENTRIES}
    if name == "await_consistency":
        return {"memory_id": facts.memory_id}
    if name == "add_entry" and facts.raw_entry == "harness":  # name the message: the harness stores its text
        return {"message": turn.turn_number,
                "summary": summarize_message(turn.role, turn.content, turn.session_date)}
    if name == "add_entry":
        return {**ids, "raw_entry": raw_entry(turn.role, turn.content, turn.session_date),
                "summary": summarize_message(turn.role, turn.content, turn.session_date),
                "tags": {"role": turn.role, "session_date": turn.session_date, "message": turn.turn_number}}
    # put_context: this session's messages so far, merged into the context read back just before
    turns = [t for m in transcript if isinstance(m, HumanMessage) for t in parse_unit(m.text)
             if t.session_id == turn.session_id and t.turn_number <= turn.turn_number]
    return {**ids, "content": build_context(_latest_result(after, "get_context"), turns)}


def _reply(text: str) -> AIMessage:
    return AIMessage(content=text, usage_metadata=dict(ZERO_USAGE))


class OfflineMemoryAgentModel(BaseChatModel):
    """Deterministic memory-agent "model": one real tool call per step, zero tokens."""

    model_name: str = "offline-memory-agent"
    bound_tool_names: tuple[str, ...] = ()
    mapped_write: dict[str, Any] | None = None   # a mapped server's [write] spec: store each message its way

    @property
    def _llm_type(self) -> str:
        return "offline-memory-agent"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> OfflineMemoryAgentModel:
        """No binding needed: remember the tool names to check the policy's tools exist."""
        names = []
        for tool in tools:
            if isinstance(tool, dict):
                names.append(tool.get("name") or (tool.get("function") or {}).get("name", ""))
            else:
                names.append(getattr(tool, "name", ""))
        return self.model_copy(update={"bound_tool_names": tuple(n for n in names if n)})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if self.mapped_write is not None:
            message = mapped_next_step(list(messages), self.mapped_write)
        else:
            message = next_step(list(messages), self.bound_tool_names)
        message.response_metadata = {"model_name": self.model_name, "offline": True}
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, **kwargs)
