"""Adapters that let the harness evaluate an agent it does not contain: over HTTP or as a subprocess.

Both protocols are published as JSON Schemas in `schemas/` so an agent can be written in any
language; `contract.py` is what the rest of the harness sees.
"""

from benchmarker.agent.adapters.contract import (
    ALL_CAPABILITIES,
    AdapterError,
    AgentAdapter,
    AgentResponse,
    LearnItem,
    ToolCall,
)
from benchmarker.agent.adapters.http_adapter import HttpAgentAdapter, HttpAgentSettings
from benchmarker.agent.adapters.message_text import learn_item, message_text, session_items
from benchmarker.agent.adapters.pool import AgentPool
from benchmarker.agent.adapters.subprocess_adapter import SubprocessAgentAdapter, SubprocessAgentSettings

__all__ = [
    "ALL_CAPABILITIES",
    "AdapterError",
    "AgentAdapter",
    "AgentPool",
    "AgentResponse",
    "HttpAgentAdapter",
    "HttpAgentSettings",
    "LearnItem",
    "SubprocessAgentAdapter",
    "SubprocessAgentSettings",
    "ToolCall",
    "learn_item",
    "message_text",
    "session_items",
]
