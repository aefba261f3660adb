"""The three providers' batch wires behind one protocol; `batch_api` picks the run's.

openai_batches.py, anthropic_batches.py and bedrock_batches.py each say their provider's wire: submit requests,
read a batch's status, fetch its answers. protocol.py is `BatchAPI` and the values it takes and gives;
results_file.py reads a provider's results file line by line. Anthropic and Bedrock batches carry no metadata of
ours to search by (`searchable = False`).
"""

from __future__ import annotations

import os

from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.bedrock_batches import BedrockBatches
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from benchmarker.agent.batch.protocol import BatchAPI
from benchmarker.config_schema import BatchConfig, ProviderConfig
from benchmarker.errors import UserError


def _key(env: str, default: str, provider: str) -> str:
    key = os.environ.get(env or default, "")
    if not key:
        raise UserError(f"[batch] with provider {provider!r} needs an API key in ${env or default}")
    return key


def batch_api(p: ProviderConfig, b: BatchConfig) -> BatchAPI:
    """The batch wire of the run's provider (`[provider]`; Bedrock's job settings from `[batch]`)."""
    if p.type == "openai":
        return OpenAIBatches(p.openai.base_url, _key(p.openai.api_key_env, "OPENAI_API_KEY", "openai"))
    if p.type == "anthropic":
        return AnthropicBatches(p.anthropic.base_url, _key(p.anthropic.api_key_env, "ANTHROPIC_API_KEY", "anthropic"))
    if p.type == "bedrock":
        return BedrockBatches(region=p.bedrock.region, role_arn=b.bedrock_role_arn, s3_uri=b.bedrock_s3_uri,
                              endpoint_url=b.bedrock_endpoint_url, s3_endpoint_url=b.s3_endpoint_url)
    raise UserError(f"[batch] needs a provider with a batch API (openai, anthropic, bedrock), not {p.type!r}")
