"""Mycelian's limits, for the harness: the embedded service owns them (embedded_memory/limits.py,
the numbers it enforces and states in its prompts); this module re-exports them, so the harness and the
service read the same numbers and the service imports nothing of the harness."""

from __future__ import annotations

from embedded_memory.limits import (
    BOOTSTRAP_ENTRIES,
    CONTEXT_CHARS,
    MYCELIAN_CONTEXT_CADENCE,
    PROMPT_LIMITS,
    RAW_ENTRY_CHARS,
    SEARCH_TOP_K,
    SUMMARY_CHARS,
    render_limits,
)

__all__ = ["BOOTSTRAP_ENTRIES", "CONTEXT_CHARS", "MYCELIAN_CONTEXT_CADENCE", "PROMPT_LIMITS", "RAW_ENTRY_CHARS",
           "SEARCH_TOP_K", "SUMMARY_CHARS", "render_limits"]
