"""Text out of a chat model's reply, whatever shape the provider gave it."""

from __future__ import annotations

from typing import Any


def message_text(reply: Any) -> str:
    """An AIMessage, its `content` (a string or content blocks: Anthropic, Bedrock), or a plain string."""
    content = getattr(reply, "content", reply)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content
                       if isinstance(b, (str, dict)))
    return "" if content is None else str(content)
