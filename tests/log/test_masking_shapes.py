"""Masking before encoding, and credentials recognised by their shape wherever they sit (issue 36, 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.agent.batch.anthropic_batches import anthropic_reply
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from benchmarker.log.jsonl import write_json_atomic
from benchmarker.redact import redact_text

SHAPED = ["sk-proj-abcdefghijklmnopqrstuvwxyz0123", "sk-ant-api03-abcdefghijklmnopqrstuv", "AKIAABCDEFGHIJKLMNOP",
          "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "lsv2_pt_abcdefghijklmnopqrstuvwxyz012345"]


@pytest.mark.parametrize("secret", SHAPED)
def test_a_credential_under_a_harmless_name_is_masked_in_the_manifest(tmp_path: Path, secret: str) -> None:
    config = {"agent": {"subprocess": {"env": {"MY_SETTING": secret}, "args": ["-k", secret]},
                        "http": {"headers": {"X-Custom": f"v={secret}"}}}}
    write_json_atomic(tmp_path / "manifest.json", {"config": config})
    text = (tmp_path / "manifest.json").read_text(encoding="utf-8")
    assert secret not in text and text.count("***") == 3


def test_ordinary_text_is_left_alone() -> None:
    for text in ["sk-test", "task-abcdefghijklmnopqrstuvwxyz", "a risk-free plan for the week", "AKIA is a name"]:
        assert redact_text(text) == text


@pytest.mark.parametrize("secret", ['p"ass\\word-été-0123456789', "plain-secret-0123456789"])
def test_a_providers_error_is_masked_before_it_is_encoded(monkeypatch, secret: str) -> None:
    monkeypatch.setenv("PROVIDER_API_KEY", secret)
    row = {"custom_id": "c1", "error": {"message": f"invalid key {secret}"}, "response": None}
    error = OpenAIBatches._reply(row).error
    assert secret not in error and json.dumps(secret)[1:-1] not in error and "***" in error
    error = anthropic_reply("c1", {"type": "errored", "error": {"message": f"bad key {secret}"}}).error
    assert secret not in error and json.dumps(secret)[1:-1] not in error and "***" in error
