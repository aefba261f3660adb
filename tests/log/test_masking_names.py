"""Which values the manifest masks by their key's name, and masking inside every container (issue 42, 8 and
the masking survivor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.log.store import RunLog
from embedded_memory.masking import redact_text as service_redact_text
from benchmarker.redact import redact, redact_text

SECRET = "plain-secret-value-0123456789"


def _manifest(tmp_path: Path, config: dict) -> dict:
    RunLog(tmp_path).write_manifest({"config": config})
    return json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))["config"]


def test_the_langsmith_feedback_name_is_kept_in_the_manifest(tmp_path: Path) -> None:
    config = {"online": {"feedback_key": "memory_extraction", "post_feedback": True}}
    assert _manifest(tmp_path, config)["online"]["feedback_key"] == "memory_extraction"


@pytest.mark.parametrize("name", ["api_key", "secret", "token", "password", "private_key", "x_api_key",
                                  "session_token", "client_secret", "auth"])
def test_credential_named_keys_are_still_masked_in_the_manifest(tmp_path: Path, name: str) -> None:
    assert _manifest(tmp_path, {"provider": {name: SECRET}})["provider"][name] == "***"


def test_a_credential_inside_a_tuple_is_masked() -> None:
    assert SECRET not in json.dumps(redact({"args": ("--token", f"Bearer {SECRET}")}, keys=False))


def test_a_config_may_name_its_feedback_key(tmp_path: Path) -> None:
    path = tmp_path / "online.toml"
    path.write_text('[dataset]\nkind = "sample"\n[online]\nfeedback_key = "my_extraction"\n', encoding="utf-8")
    assert load_config(path).online.feedback_key == "my_extraction"  # not refused as a credential in the file


PROSE = ["Start with basic validation of the form.", "3. **Basic Analytics**", "beyond basic functionality.",
         "a basic e-commerce site", "Basic Tests**: hashing", "the bearer of bad news"]
HEADERS = ["Authorization: Bearer Aaaaaaaaaaaa", "{'Authorization': 'Bearer abcdefghij'}", "Bearer valid_token",
           "curl -H 'Authorization: Basic dXNlcjpwYXNz'", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"]


@pytest.mark.parametrize("text", PROSE)
def test_prose_after_basic_or_bearer_is_kept_as_written(text: str) -> None:
    """The memory database stores dataset text through these rules (issue 42): "basic validation" masked as
    "basic ***" changed what a BEAM run retrieved and answered."""
    assert redact_text(text) == service_redact_text(text) == text


@pytest.mark.parametrize("text", HEADERS)
def test_a_token_after_bearer_or_basic_is_masked(text: str) -> None:
    assert redact_text(text) == service_redact_text(text)
    assert "***" in redact_text(text) and not any(t in redact_text(text) for t in ("Aaaa", "abcdefghij", "valid_",
                                                                                    "dXNl", "eyJh"))
