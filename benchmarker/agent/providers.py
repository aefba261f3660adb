"""Chat models per role (agent, qa, eval) for each provider: openai, bedrock, anthropic, offline.

Provider packages are imported only when their provider is chosen (they are slow to import).
SDK-level retries are switched off everywhere: `benchmarker.agent.retry` is the one retry layer,
so a throttled call is never retried by two layers at once.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.language_models import BaseChatModel

from benchmarker.errors import UserError

PROVIDERS = ("openai", "bedrock", "anthropic", "offline")
ROLES = ("agent", "qa", "eval")
DEFAULT_TIMEOUT_S = 300.0  # [retry] request_timeout_s


def _api_key(api_key_env: str | None, default_env: str, provider: str) -> str:
    env = api_key_env or default_env
    key = os.environ.get(env, "")
    if not key:
        raise UserError(f"provider {provider!r} needs an API key in the environment variable {env} "
                        f"(set it, or name another variable with [provider.{provider}].api_key_env)")
    return key


def make_chat_model(provider: str, model_id: str, *, role: str, base_url: str | None = None,
                    api_key_env: str | None = None, region: str | None = None, temperature: float = 0.0,
                    max_tokens: int = 1024, request_timeout_s: float = DEFAULT_TIMEOUT_S) -> BaseChatModel:
    """The chat model for one role; raises UserError for an unknown provider/role or a missing key. A call still
    unanswered after `request_timeout_s` raises the SDK's timeout error, which `agent.retry` retries."""
    if role not in ROLES:
        raise UserError(f"unknown model role {role!r}; expected one of {', '.join(ROLES)}")
    if not model_id:
        raise UserError(f"[models].{role} is empty: name a model for provider {provider!r}")
    if provider == "offline" or model_id.startswith("offline-"):  # an offline model keeps a role offline anywhere
        return _offline_model(model_id, role)
    if provider == "openai":
        return _openai(model_id, base_url, api_key_env, temperature, max_tokens, request_timeout_s)
    if provider == "anthropic":
        return _anthropic(model_id, base_url, api_key_env, temperature, max_tokens, request_timeout_s)
    if provider == "bedrock":
        return _bedrock(model_id, region, base_url, temperature, max_tokens, request_timeout_s)
    raise UserError(f"unknown provider {provider!r} in [provider].type; expected one of {', '.join(PROVIDERS)}")


def _offline_model(model_id: str, role: str) -> BaseChatModel:
    from benchmarker.agent.offline import OfflineMemoryAgentModel, OfflineReaderModel

    if role == "agent":
        return OfflineMemoryAgentModel(model_name=model_id)
    if role == "qa":
        return OfflineReaderModel(model_name=model_id)
    raise UserError("the offline provider has no eval model: leave [models].eval empty to use the "
                    "deterministic grader, or choose a real provider for an LLM judge")


def _openai(model_id: str, base_url: str | None, api_key_env: str | None, temperature: float,
            max_tokens: int, timeout_s: float) -> BaseChatModel:
    import openai
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {
        "api_key": _api_key(api_key_env, "OPENAI_API_KEY", "openai"),
        "use_responses_api": False,   # chat completions: what every OpenAI-compatible server speaks
        "stream_usage": True,         # usage also when a caller streams
        "max_retries": 0,
        "timeout": timeout_s,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    if base_url:
        kwargs["base_url"] = base_url
    # A pool of its own: langchain-openai's default async client is cached per base URL for the whole process,
    # and a connection kept alive from an event loop that has closed (an earlier `run` in the same process)
    # fails the next call with "Event loop is closed" (tests/agent/test_openai_client_per_loop.py).
    kwargs["http_async_client"] = openai.DefaultAsyncHttpxClient()
    return init_chat_model(model_id, model_provider="openai", **kwargs)


def _anthropic(model_id: str, base_url: str | None, api_key_env: str | None, temperature: float,
               max_tokens: int, timeout_s: float) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {
        "api_key": _api_key(api_key_env, "ANTHROPIC_API_KEY", "anthropic"),
        "max_retries": 0,
        "timeout": timeout_s,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    if base_url:
        kwargs["base_url"] = base_url
    return init_chat_model(model_id, model_provider="anthropic", **kwargs)


def _bedrock(model_id: str, region: str | None, endpoint_url: str | None, temperature: float,
             max_tokens: int, timeout_s: float) -> BaseChatModel:
    from botocore.config import Config
    from langchain.chat_models import init_chat_model

    if not region:
        raise UserError("provider 'bedrock' needs [provider.bedrock].region (e.g. us-west-2)")
    # Credentials come from the AWS default chain at call time; botocore makes one attempt only.
    kwargs: dict[str, Any] = {
        "region_name": region,
        "config": Config(retries={"total_max_attempts": 1, "mode": "standard"}, read_timeout=timeout_s),
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    if endpoint_url:
        kwargs["base_url"] = endpoint_url
    return init_chat_model(model_id, model_provider="bedrock_converse", **kwargs)
