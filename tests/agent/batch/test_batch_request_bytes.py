"""The bytes each provider's batch input line carries, pinned (issue 46: typing the wire in wire.py must not
move a key): the same request must hash and serialise as it did, or a resumed run would pay for it twice."""

from __future__ import annotations

import json

from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.bedrock_batches import BedrockBatches
from benchmarker.agent.batch.hub import custom_id
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from benchmarker.agent.batch.protocol import BatchRequest

WITH_SYSTEM = BatchRequest("r1", "m", ({"role": "system", "content": "be brief"}, {"role": "user", "content": "hé"}),
                           16, 0.0)
NO_SYSTEM = BatchRequest("r2", "m", ({"role": "user", "content": "hi"},), 8, 0.5)


def test_openai_input_line_is_the_chat_completions_request_in_its_key_order():
    assert json.dumps(OpenAIBatches.request_line(WITH_SYSTEM)) == (
        '{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m", '
        '"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "h\\u00e9"}], '
        '"max_tokens": 16, "temperature": 0.0}}')


def test_anthropic_params_put_the_system_text_last_and_only_when_there_is_one():
    assert json.dumps(AnthropicBatches.params(WITH_SYSTEM)) == (
        '{"model": "m", "max_tokens": 16, "temperature": 0.0, "messages": [{"role": "user", "content": "h\\u00e9"}], '
        '"system": "be brief"}')
    assert "system" not in AnthropicBatches.params(NO_SYSTEM)


def test_bedrock_record_is_the_messages_body_without_the_model():
    assert json.dumps(BedrockBatches.record(WITH_SYSTEM)) == (
        '{"recordId": "r1", "modelInput": {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 16, '
        '"temperature": 0.0, "messages": [{"role": "user", "content": "h\\u00e9"}], "system": "be brief"}}')
    assert json.dumps(BedrockBatches.record(NO_SYSTEM)) == (
        '{"recordId": "r2", "modelInput": {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 8, '
        '"temperature": 0.5, "messages": [{"role": "user", "content": "hi"}]}}')


def test_custom_id_is_the_hash_of_the_request_content():
    content = {"model": "m", "messages": NO_SYSTEM.messages, "max_tokens": 8, "temperature": 0.5}
    assert custom_id(content, 20) == "rf1a009f5c4acb642a8a"
