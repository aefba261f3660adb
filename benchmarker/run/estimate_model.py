"""The per-call model behind `estimate`: what each memory-agent model call sends and gets back,
and how much of it a provider's prompt cache serves.

One agent turn (one message, one exchange or one session: `[agent] ingest_unit`) adds one human
message to the session's transcript. Its calls follow the offline agent's policy
(`offline_agent.policy_steps`: steps for tools outside `[agent] tools` dropped, as the offline agent does)
and one last call for the "Recorded." reply. Every call sends:

    tool schemas + system prompt + the session's human messages so far + this turn's earlier calls and results

The system prompt is composed once per case and the transcript is append-only, so every prompt is
a sequence of messages named by id (`("tools",)`, `("system",)`, `("h", session, turn)`,
`("ai", ...)`, `("tool", ...)`), and each id always follows the same ids. That is enough to model a
prefix cache: a stored prefix is named by its last message.

Token counts are characters / CHARS_PER_TOKEN, rounded up per message (an assumption: tiktoken
cannot load its vocabularies offline, and Claude's tokenizer is not public anyway).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections import deque
from collections.abc import Hashable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache

from benchmarker.agent.ledger import Usage
from benchmarker.agent.offline_agent import policy_steps
from benchmarker.agent.prompts import TurnHeader, render_unit
from benchmarker.config_schema import MemoryConfig, ParamsConfig
from benchmarker.datasets.schema import Case
from benchmarker.graph.ingest import context_due, ingest_units
from benchmarker.memory.limits import BOOTSTRAP_ENTRIES, CONTEXT_CHARS, RAW_ENTRY_CHARS, SUMMARY_CHARS

CHARS_PER_TOKEN = 4.0
ADD_ENTRY_ARGS_TOKENS = 60      # ids, tags and the JSON around raw_entry + summary
HARNESS_ADD_ENTRY_ARGS_TOKENS = 12  # raw_entry = "harness": {"message": i, "summary": ...} around the summary
CALL_TOKENS = 30                # any other tool call: name, ids, JSON (put_context: + the document)
REPLY_TOKENS = 5                # the final "Recorded."
ACK_TOKENS = 5                  # "enqueued" (add_entry, put_context), "consistent" (await_consistency)
LIST_LIMIT = BOOTSTRAP_ENTRIES  # list_entries(limit=10) at a session's bootstrap
LIST_ENTRY_OVERHEAD_CHARS = 150  # entryId, memoryId, vaultId, creationTime, tags of one listed entry
LIST_ENVELOPE_CHARS = 80        # {"entries": [...], "count": .., "applied_limit": .., "next_before": ..}
CONTEXT_BASE_CHARS, CONTEXT_CHARS_PER_MESSAGE, CONTEXT_MAX_CHARS = 300, 60, CONTEXT_CHARS
OPENAI_MIN_TOKENS, OPENAI_BLOCK = 1024, 128
DEFAULT_MIN_CACHE_TOKENS = 1024
# The shortest prefix a provider caches (Anthropic's and Bedrock's documented minimums), first match wins.
MIN_CACHE_TOKENS = ((re.compile(r"claude-3-(5-)?haiku", re.I), 2048),
                    (re.compile(r"claude-(haiku|opus)-4-5", re.I), 4096),
                    (re.compile(r"claude", re.I), 1024),
                    (re.compile(r"nova", re.I), 1024))
ALL_TOOLS_LABEL = "all 13 tools"


def tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


# --- what the run sends on every call: tool schemas, system prompt, turn headers --------------

def _run_sync(coro):
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(1) as pool:  # called from inside an event loop: run it on a fresh one
        return pool.submit(asyncio.run, coro).result()


@lru_cache(maxsize=1)
def tool_schema_chars() -> dict[str, int]:
    """Characters of each of the embedded service's 13 MCP tools as an OpenAI function definition,
    listed from a FastMCP instance (no server is started; the tools are never called)."""
    from mcp.server.fastmcp import FastMCP

    from embedded_memory.tools import EXTENSION_TOOLS, build_tools

    listed = _run_sync(FastMCP("estimate", tools=build_tools(None)).list_tools())  # type: ignore[arg-type]
    return {tool.name: len(json.dumps({"type": "function", "function": {
        "name": tool.name, "description": tool.description or "", "parameters": tool.inputSchema}}))
        for tool in listed if tool.name not in EXTENSION_TOOLS}


@lru_cache(maxsize=1)
def harness_add_entry_chars() -> int:
    """Characters of the add_entry the model sees with `[agent] raw_entry = "harness"` (OpenAI function form)."""
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from benchmarker.agent.harness_entry import harness_add_entry_tool

    server = StructuredTool.from_function(lambda: "", name="add_entry", description="")
    return len(json.dumps(convert_to_openai_tool(harness_add_entry_tool(server))))


@lru_cache(maxsize=64)
def system_prompt_chars(unit: str, cadence: int, raw_entry: str = "model", context_update: str = "cadence") -> int:
    """Characters of the memory agent's system prompt for an ingest unit (ids as 36-character UUIDs)."""
    from typing import cast

    from benchmarker.agent.prompts import compose_memory_system_prompt, load_prompt, unit_instructions
    from benchmarker.log.lines import Json
    from embedded_memory.prompts import default_prompts

    uuid = "00000000-0000-0000-0000-000000000000"
    prompts = cast(dict[str, Json], default_prompts("chat"))   # the service's typed answer, read as the JSON it is
    return len(compose_memory_system_prompt(load_prompt("memory_agent_prefix"), prompts,
                                            vault_id=uuid, memory_id=uuid, context_cadence=cadence,
                                            unit_text=unit_instructions(unit, None, context_update),
                                            raw_entry=raw_entry, context_update=context_update))


@dataclass(frozen=True)
class Setting:
    """One way to run the memory agent: what is compared side by side."""

    prompt_cache: bool
    unit: str
    tools: tuple[str, ...]
    raw_entry: str = "model"          # [agent] raw_entry
    context_update: str = "cadence"   # [agent] context_update
    every: int = 1                    # [agent] context_every_sessions (context_update "session")

    def label(self, all_tools: Sequence[str]) -> str:
        tools = ALL_TOOLS_LABEL if set(self.tools) >= set(all_tools) else f"{len(self.tools)} tools"
        label = f"{self.unit}, cache {'on' if self.prompt_cache else 'off'}, {tools}"
        if self.raw_entry != "model":
            label += f", raw_entry {self.raw_entry}"
        if self.context_update == "session":
            label += ", context every session" if self.every == 1 else f", context every {self.every} sessions"
        return label


@dataclass(frozen=True)
class AgentModel:
    """What is fixed for a run: sizes of the tool schemas and system prompts, cadence, turn header."""

    schema_chars: Mapping[str, int]         # per tool
    system_chars: Mapping[str, int]         # per ingest unit (the default raw_entry and context_update)
    cadence: int
    turn_template: str
    initial_context_chars: int = 0           # what get_context returns before the first put_context
    context_due_line: str = ""               # the line that closes a turn whose context update is due

    def tools_tokens(self, tools: Sequence[str], raw_entry: str = "model") -> int:
        chars = {**self.schema_chars, **({"add_entry": harness_add_entry_chars()} if raw_entry == "harness" else {})}
        return tokens(sum(chars.get(name, 0) for name in tools))

    def system_tokens(self, unit: str, raw_entry: str = "model", context_update: str = "cadence") -> int:
        if raw_entry == "model" and context_update == "cadence":
            return tokens(self.system_chars[unit])
        return tokens(system_prompt_chars(unit, self.cadence, raw_entry, context_update))


def agent_model(params: ParamsConfig, memory: MemoryConfig) -> AgentModel:
    """The offline agent's call shapes under the configured context cadence and placeholder context."""
    from benchmarker.agent.prompts import context_due_line, load_prompt
    from embedded_memory.settings import PLACEHOLDER_CONTEXT

    cadence = params.context_cadence
    return AgentModel(tool_schema_chars(), {u: system_prompt_chars(u, cadence) for u in ("message", "exchange",
                                                                                          "session")},
                      cadence, load_prompt("agent_turn"),
                      len(PLACEHOLDER_CONTEXT) if memory.placeholder_context else 0, context_due_line())


# --- prompt caching per provider ---------------------------------------------------------------

@dataclass(frozen=True)
class CachePolicy:
    kind: str = "none"          # none | breakpoints (anthropic, bedrock) | automatic (openai)
    min_tokens: int = 0         # a shorter prefix is neither read nor written
    penultimate: bool = False   # bedrock: a cachePoint on the penultimate message as well
    note: str = ""


def min_cache_tokens(model_id: str) -> int:
    return next((n for pattern, n in MIN_CACHE_TOKENS if pattern.search(model_id)), DEFAULT_MIN_CACHE_TOKENS)


def cache_policy(provider: str, model_id: str, enabled: bool) -> CachePolicy:
    """What `[agent] prompt_cache` means for this provider and model (as benchmarker.agent.caching does)."""
    from benchmarker.agent.caching import bedrock_supports_cache

    if not enabled:
        return CachePolicy(note="prompt caching off ([agent] prompt_cache = false)")
    if provider == "anthropic" or (provider == "bedrock" and bedrock_supports_cache(model_id)):
        n = min_cache_tokens(model_id)
        where = "tools, system prompt and last message" if provider == "anthropic" else \
            "tools, system prompt and the last two messages"
        return CachePolicy("breakpoints", n, provider == "bedrock",
                           f"{provider}: breakpoints on {where}; prefixes under {n:,} tokens are not cached")
    if provider == "bedrock":
        return CachePolicy(note=f"bedrock: {model_id} has no prompt caching on Bedrock; calls are uncached")
    if provider == "openai":
        return CachePolicy("automatic", OPENAI_MIN_TOKENS,
                           note=f"openai: automatic prefix caching, reads in {OPENAI_BLOCK}-token blocks for "
                                f"prompts of >= {OPENAI_MIN_TOKENS:,} tokens, no write charge")
    return CachePolicy(note=f"{provider}: no prompt cache")


class PromptCache:
    """One case's prompt cache: the stored prefixes, each named by its last message's id."""

    def __init__(self, policy: CachePolicy):
        self.policy = policy
        self.stored: set[Hashable] = set()

    def charge(self, prompt: Sequence[tuple[Hashable, int]]) -> tuple[int, int]:
        """(cache read, cache write) tokens of one call; `prompt` holds (message id, tokens up to its end)."""
        policy = self.policy
        if policy.kind == "none":
            return 0, 0
        total = prompt[-1][1]
        read = next((end for key, end in reversed(prompt) if key in self.stored), 0)
        if policy.kind == "automatic":
            if total < policy.min_tokens:
                return 0, 0
            self.stored.update(key for key, _ in prompt)
            read = read // OPENAI_BLOCK * OPENAI_BLOCK
            return (read if read >= policy.min_tokens else 0), 0
        points = {0, 1, len(prompt) - 1} | ({len(prompt) - 2} if policy.penultimate else set())
        cacheable = [prompt[i] for i in sorted(points) if 0 <= i < len(prompt) and prompt[i][1] >= policy.min_tokens]
        if not cacheable:  # every breakpoint under the minimum: plain input (and nothing stored is shorter)
            return 0, 0
        self.stored.update(key for key, _ in cacheable)
        return read, max(0, cacheable[-1][1] - read)


# --- the calls of one case ---------------------------------------------------------------------

class _Memory:
    """What the memory holds as far as call sizes go: entries written, the newest ones, the context."""

    def __init__(self, context_chars: int, raw_entry: str = "model"):
        self.raw_entry = raw_entry
        self.entries = 0
        self.newest: deque[int] = deque(maxlen=LIST_LIMIT)  # chars of each entry as list_entries shows it
        self.context_chars = context_chars

    def call(self, name: str, turn: TurnHeader) -> tuple[int, int]:
        """(output tokens of the call, tokens of its result)."""
        if name == "add_entry":
            raw = min(RAW_ENTRY_CHARS, len(f"[{turn.session_date}] {turn.role}: ") + len(turn.content))
            summary = min(SUMMARY_CHARS, len(turn.content))
            self.entries += 1
            self.newest.append(raw + summary + LIST_ENTRY_OVERHEAD_CHARS)
            if self.raw_entry == "harness":  # the model names the message; the harness stores its text
                return tokens(summary) + HARNESS_ADD_ENTRY_ARGS_TOKENS, ACK_TOKENS
            return tokens(raw + summary) + ADD_ENTRY_ARGS_TOKENS, ACK_TOKENS
        if name == "put_context":
            self.context_chars = min(CONTEXT_MAX_CHARS,
                                     CONTEXT_BASE_CHARS + CONTEXT_CHARS_PER_MESSAGE * self.entries)
            return tokens(self.context_chars) + CALL_TOKENS, ACK_TOKENS
        if name == "get_context":
            return CALL_TOKENS, tokens(self.context_chars) or ACK_TOKENS
        if name == "list_entries":
            return CALL_TOKENS, tokens(LIST_ENVELOPE_CHARS + sum(self.newest))
        return CALL_TOKENS, ACK_TOKENS


def simulate_case(case: Case, setting: Setting, model: AgentModel, policy: CachePolicy,
                  trace: list[Usage] | None = None) -> Usage:
    """Every memory-agent model call of one case under `setting`, summed (cache reads and writes
    included); `trace`, when given, receives each call's Usage in order."""
    usage = Usage()
    cache = PromptCache(policy)
    memory = _Memory(model.initial_context_chars, setting.raw_entry)
    tools_end = model.tools_tokens(setting.tools, setting.raw_entry)
    head = [(("tools",), tools_end),
            (("system",), tools_end + model.system_tokens(setting.unit, setting.raw_entry, setting.context_update))]
    once = setting.context_update == "session"

    def charge(prompt: list[tuple[Hashable, int]], output: int) -> None:
        read, write = cache.charge(prompt)
        call = Usage(1, prompt[-1][1], output, read, write)
        usage.add(call)
        if trace is not None:
            trace.append(call)

    for s, session in enumerate(case.sessions):
        n = len(session.messages)
        headers = [TurnHeader(session.session_id, session.date, i + 1, n, m.role, m.content)
                   for i, m in enumerate(session.messages)]
        session_due = once and context_due(s + 1, len(case.sessions), setting.every)
        transcript: list[tuple[Hashable, int]] = list(head)  # human messages only: earlier turns' tool calls are not re-sent
        for k, group in enumerate(ingest_units([m.role for m in session.messages], setting.unit)):
            turns = [headers[i] for i in group]
            due = session_due and group[-1] == n - 1
            text = render_unit([(t.session_id, t.session_date, t.turn_number, t.turn_count, t.role, t.content)
                                for t in turns], template=model.turn_template)
            if due:  # as render_unit(context_due=True) closes the turn
                text += "\n\n" + model.context_due_line
            transcript.append((("h", s, k), transcript[-1][1] + tokens(len(text))))
            prompt: list[tuple[Hashable, int]] = list(transcript)
            steps = policy_steps(turns, model.cadence, setting.tools, context_update=setting.context_update,
                                 context_due=due)
            for j, step in enumerate(steps):
                calls = [memory.call(name, turns[i]) for name, i in step]
                output = sum(out for out, _ in calls)
                charge(prompt, output)
                prompt.append((("ai", s, k, j), prompt[-1][1] + output))
                for c, (_, result) in enumerate(calls):
                    prompt.append((("tool", s, k, j, c), prompt[-1][1] + result))
            if not (once and ends_early(steps, due)):  # the harness ends a finished turn (TurnDoneMiddleware)
                charge(prompt, REPLY_TOKENS)
    return usage


def ends_early(steps: list[list[tuple[str, int]]], due: bool) -> bool:
    """Whether the harness ends the turn after these steps: every message recorded, and the context written when due."""
    names = {name for step in steps for name, _ in step}
    return "add_entry" in names and (not due or "put_context" in names)
