"""Mycelian's limits, stated once: the code enforces them and the prompts quote them.

The numbers are Mycelian's own (mycelian-memory, `client/prompts/system/context_summary_rules.md`
and its REST API): a summary holds at most 512 characters, the context document at most 5000,
searches use top_k 5 unless nothing relevant came back, a session starts with
list_entries(limit=10), the context is saved after about 6 messages, and the REST API rejects an
entry longer than 9000 characters. Prompt files never write these numbers: they say
`{summary_chars}` and the like, and `render_limits` (or `str.format(**PROMPT_LIMITS)`) fills them
in where a prompt is composed, so a prompt and the code cannot disagree.

The embedded service enforces these numbers and states them in its prompts, so they live here, in
the service; the harness reads them through benchmarker.memory.limits (a re-export).
"""

from __future__ import annotations

import re

SUMMARY_CHARS = 512  # longest entry summary
CONTEXT_CHARS = 5000  # longest context document
RAW_ENTRY_CHARS = 9000  # longest raw_entry the REST API accepts
SEARCH_TOP_K = 5  # the search_memories top_k the agent uses by default
BOOTSTRAP_ENTRIES = 10  # list_entries(limit=...) at the start of a session
# Mycelian's prompts save the context "about every 6 messages"; the harness's own cadence is
# `[params].context_cadence`, and compose_memory_system_prompt restates Mycelian's sentences with it.
MYCELIAN_CONTEXT_CADENCE = 6

PROMPT_LIMITS: dict[str, int] = {
    "summary_chars": SUMMARY_CHARS,
    "context_chars": CONTEXT_CHARS,
    "raw_entry_chars": RAW_ENTRY_CHARS,
    "search_top_k": SEARCH_TOP_K,
    "bootstrap_entries": BOOTSTRAP_ENTRIES,
}

_PLACEHOLDER = re.compile(r"\{(" + "|".join(PROMPT_LIMITS) + r")\}")


def render_limits(text: str, **extra: int) -> str:
    """`text` with every `{summary_chars}`-style placeholder filled in; other braces stay as they are."""
    values = {**PROMPT_LIMITS, **extra}
    pattern = _PLACEHOLDER if not extra else re.compile(r"\{(" + "|".join(map(re.escape, values)) + r")\}")
    return pattern.sub(lambda m: str(values[m[1]]), text)
