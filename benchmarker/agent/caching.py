"""Prompt caching for the memory agent, per provider (`[agent] prompt_cache`, on by default).

Two thirds of what the memory agent sends is the same prefix (tools + system prompt) and the rest
is a rolling transcript that only grows, so nearly every input token can be a cache read:

- anthropic: langchain-anthropic's `AnthropicPromptCachingMiddleware` puts breakpoints on the last
  tool, the system prompt and (top-level `cache_control`) the last message.
- bedrock (Converse): langchain-aws's `BedrockPromptCachingMiddleware` adds `cachePoint` blocks to
  tools, system, the last and the penultimate message, for the models Bedrock caches for
  (`bedrock_supports_cache`); other models run uncached, and the run notes say so.
- openai: caching is automatic for byte-identical prefixes of >= 1024 tokens; we pass
  `prompt_cache_key` = run + case so every call of one question is routed to the same cache.

The prefix is byte-stable by construction: the system prompt is composed once per case (ids,
cadence, ingest unit; no session, date, time or counter), tools come from the server in a fixed
order, and the transcript is append-only within a session.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Final

from langchain.agents.middleware import AgentMiddleware

# Bedrock caches prompts for these model families only (Claude 3.5 Haiku, 3.7 Sonnet, the Claude 4+
# families, Amazon Nova); sending a cachePoint to another model is a ValidationException.
_BEDROCK_CACHE_MODELS = re.compile(r"claude-(3-5-haiku|3-7-sonnet|(sonnet|opus|haiku)-\d)|amazon\.nova", re.I)
CACHE_TTL: Final = "5m"


def bedrock_supports_cache(model_id: str) -> bool:
    return bool(_BEDROCK_CACHE_MODELS.search(model_id))


def prompt_cache_middleware(provider: str, model_id: str, *, enabled: bool = True) -> tuple[list[Any], str]:
    """The middleware that turns caching on for this provider and model, and a note for the manifest."""
    if not enabled:
        return [], "prompt caching off ([agent] prompt_cache = false)"
    if provider == "anthropic":
        from langchain_anthropic.middleware import AnthropicPromptCachingMiddleware

        return ([AnthropicPromptCachingMiddleware(ttl=CACHE_TTL, unsupported_model_behavior="ignore")],
                "anthropic: cache breakpoints on tools, system prompt and last message (5-minute TTL)")
    if provider == "bedrock":
        if not bedrock_supports_cache(model_id):
            return [], f"bedrock: {model_id} has no prompt caching on Bedrock; calls are sent uncached"
        from langchain_aws.middleware import BedrockPromptCachingMiddleware

        return ([BedrockPromptCachingMiddleware(ttl=CACHE_TTL, unsupported_model_behavior="ignore")],
                "bedrock: cachePoint blocks on tools, system prompt and the last two messages (5-minute TTL)")
    if provider == "openai":
        return ([OpenAIPromptCacheKeyMiddleware()],
                "openai: automatic prefix caching; prompt_cache_key = <run_id>:<case_id>")
    return [], f"{provider}: no prompt cache (offline models cost nothing)"


def prompt_cache_key(context: Any) -> str | None:
    """One key per case: every call of one question shares the tools + system prefix."""
    run_id, case_id = getattr(context, "run_id", None), getattr(context, "case_id", None)
    return f"{run_id}:{case_id}" if run_id and case_id else None


class OpenAIPromptCacheKeyMiddleware(AgentMiddleware):
    """Sends `prompt_cache_key` with every call, so OpenAI routes a case's calls to one cache."""

    def _with_key(self, request: Any) -> Any:
        key = prompt_cache_key(getattr(request.runtime, "context", None))
        if key is None:
            return request
        return request.override(model_settings={**request.model_settings, "prompt_cache_key": key})

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(self._with_key(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(self._with_key(request))
