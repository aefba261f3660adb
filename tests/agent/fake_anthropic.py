"""ScriptedAnthropicServer: Anthropic's Messages API (`POST /v1/messages`) on 127.0.0.1.

Same script specs as `tests.fakes.openai_server` (reply / tool_call / http_error); errors use
Anthropic's error body, and a 429 spec should carry Anthropic's `retry-after` header.

It is `tests.fakes.anthropic_server.AnthropicServer` with fixed usage by default (100 in / 20 out
unless a spec gives `usage`); pass `simulate_usage=True` (or a `brain=`) for prompt-cache usage.
"""

from __future__ import annotations

from tests.fakes.anthropic_server import AnthropicServer


class ScriptedAnthropicServer(AnthropicServer):
    """`.base_url` is "http://127.0.0.1:PORT" (the SDK appends /v1/messages)."""

    SIMULATE_BY_DEFAULT = False
