"""make_chat_model: every provider builds without a network call; bad input is a UserError."""

from __future__ import annotations

import pytest

from benchmarker.agent.offline import OfflineMemoryAgentModel, OfflineReaderModel
from benchmarker.agent.providers import make_chat_model
from benchmarker.errors import UserError


def test_offline_roles():
    assert isinstance(make_chat_model("offline", "offline-memory-agent", role="agent"), OfflineMemoryAgentModel)
    reader = make_chat_model("offline", "offline-reader", role="qa")
    assert isinstance(reader, OfflineReaderModel) and reader.model_name == "offline-reader"
    with pytest.raises(UserError, match="deterministic grader"):
        make_chat_model("offline", "offline-judge", role="eval")


def test_openai_settings(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-x")
    model = make_chat_model("openai", "gpt-4o-mini", role="qa", base_url="http://127.0.0.1:1/v1", api_key_env="MY_KEY",
                            temperature=0.0, max_tokens=256)
    assert type(model).__name__ == "ChatOpenAI"
    assert model.openai_api_base == "http://127.0.0.1:1/v1" and model.max_retries == 0
    assert model.use_responses_api is False and model.stream_usage is True and model.max_tokens == 256
    assert model.openai_api_key.get_secret_value() == "sk-x"
    assert model.request_timeout == 300.0  # [retry] request_timeout_s's default: a hung call fails, then is retried


def test_anthropic_settings(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    model = make_chat_model("anthropic", "claude-3-5-haiku-latest", role="qa")
    assert type(model).__name__ == "ChatAnthropic" and model.max_retries == 0
    timed = make_chat_model("anthropic", "claude-3-5-haiku-latest", role="qa", request_timeout_s=12.5)
    assert timed.default_request_timeout == 12.5


def test_bedrock_builds_offline_with_region_and_no_sdk_retries(monkeypatch):
    for var, value in {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
                       "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(var, value)
    model = make_chat_model("bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0", role="agent", region="eu-west-1")
    assert type(model).__name__ == "ChatBedrockConverse"
    assert model.region_name == "eu-west-1" and model.client.meta.region_name == "eu-west-1"
    assert model.client.meta.config.retries["total_max_attempts"] == 1
    assert model.client.meta.config.read_timeout == 300.0
    with pytest.raises(UserError, match="region"):
        make_chat_model("bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0", role="agent")


def test_unknown_provider_role_and_empty_model_are_user_errors():
    with pytest.raises(UserError, match="unknown provider"):
        make_chat_model("cohere", "x", role="qa")
    with pytest.raises(UserError, match="unknown model role"):
        make_chat_model("offline", "x", role="judge")
    with pytest.raises(UserError, match=r"\[models\].qa is empty"):
        make_chat_model("openai", "", role="qa")
