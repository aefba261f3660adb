"""Fixtures every test folder shares (defined once here, not per file)."""

from __future__ import annotations

import pytest


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """An OpenAI key in a test-only variable; the configs name it in `[provider.openai] api_key_env`."""
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-test")
    return "TEST_OPENAI_KEY"
