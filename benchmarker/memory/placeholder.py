"""Mycelian seeds every new memory with a placeholder context; it must never reach the reader."""

from __future__ import annotations

from embedded_memory.settings import PLACEHOLDER_CONTEXT

PLACEHOLDER_MARKERS = ("this is default context",)


def is_placeholder_context(text: str | None) -> bool:
    """True for an empty context, the embedded service's placeholder, or Mycelian's default text."""
    if not text or not text.strip():
        return True
    stripped = text.strip()
    if stripped in (PLACEHOLDER_CONTEXT.strip(), "{}", "null"):
        return True
    lowered = stripped.lower()
    return any(marker in lowered for marker in PLACEHOLDER_MARKERS)
