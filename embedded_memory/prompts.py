"""get_default_prompts: the memory agent's rules and templates, read from default_prompts/<type>/*.md.

The files name Mycelian's limits as placeholders (`{summary_chars}`, `{context_cadence}`, ...);
they are filled in from the service's limits.py, so the texts state the numbers the code uses.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from embedded_memory.errors import ServiceError
from embedded_memory.limits import MYCELIAN_CONTEXT_CADENCE, render_limits
from embedded_memory.shapes import DefaultPrompts

PROMPTS_VERSION = "v1"
TEMPLATE_NAMES = ("context_prompt", "entry_capture_prompt", "summary_prompt")


def available_types() -> list[str]:
    root = resources.files("embedded_memory") / "default_prompts"
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


@lru_cache(maxsize=8)
def _load(memory_type: str) -> DefaultPrompts:
    folder = resources.files("embedded_memory") / "default_prompts" / memory_type

    def read(name: str) -> str:
        text = (folder / f"{name}.md").read_text(encoding="utf-8")
        return render_limits(text, context_cadence=MYCELIAN_CONTEXT_CADENCE)

    return {"version": PROMPTS_VERSION, "context_summary_rules": read("context_summary_rules"),
            "templates": {"context_prompt": read("context_prompt"),
                          "entry_capture_prompt": read("entry_capture_prompt"),
                          "summary_prompt": read("summary_prompt")}}


def default_prompts(memory_type: str) -> DefaultPrompts:
    """The prompt set for `memory_type` (case-insensitive); unknown types name the argument."""
    key = memory_type.strip().lower()
    types = available_types()
    if key not in types:
        raise ServiceError("memory_type", f"unknown memory type {memory_type!r}; available: {', '.join(types)}")
    return _load(key)
