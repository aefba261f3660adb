"""`BatchModel`: the reader or the judge's model, answered through the provider's batch API.

It has the interface the QA node, the judges and the graders use (`ainvoke(messages) -> AIMessage`,
`temperature`, `model_name`), so nothing that calls it knows whether the answer came from a batch.
Its tokens go to the ledger under the role and `<model> (batch)`, priced at `[batch] price_factor`
times the model's `[prices]` (agent/ledger.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from benchmarker.agent.batch.hub import BatchFailed, BatchHub, custom_id
from benchmarker.agent.batch.protocol import BatchRequest
from benchmarker.agent.batch.wire import ChatMessage, RequestContent
from benchmarker.agent.ledger import batch_model_key
from benchmarker.agent.messages import message_text


def _role(message: BaseMessage) -> str:
    if isinstance(message, SystemMessage):
        return "system"
    return "assistant" if isinstance(message, AIMessage) else "user"


class BatchModel:
    def __init__(self, hub: BatchHub, *, role: str, model_id: str, temperature: float, max_tokens: int,
                 ledger: Any | None):
        self.hub = hub
        self.role = role
        self.model_id = self.model_name = model_id
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.ledger = ledger

    def request(self, messages: Sequence[BaseMessage] | str) -> BatchRequest:
        msgs = [HumanMessage(messages)] if isinstance(messages, str) else list(messages)
        strip = self.hub.api.name == "bedrock"  # Bedrock's trailing-whitespace rule, as on the synchronous path
        wire = tuple(ChatMessage(role=_role(m), content=message_text(m).rstrip() if strip else message_text(m))
                     for m in msgs)
        content: RequestContent = {"model": self.model_id, "messages": wire, "max_tokens": self.max_tokens,
                   "temperature": self.temperature}
        return BatchRequest(custom_id(content, self.hub.api.id_chars), self.model_id, wire, self.max_tokens,
                            self.temperature)

    async def ainvoke(self, messages: Sequence[BaseMessage] | str, **_: Any) -> AIMessage:
        reply = await self.hub.call(self.request(messages), self.role)
        if reply.error:
            raise BatchFailed(f"{self.role} batch request {reply.custom_id} failed: {reply.error[:500]}")
        u = reply.usage
        message = AIMessage(reply.text, usage_metadata={
            "input_tokens": u.get("input", 0), "output_tokens": u.get("output", 0),
            "total_tokens": u.get("input", 0) + u.get("output", 0),
            "input_token_details": {"cache_read": u.get("cache_read", 0), "cache_creation": u.get("cache_write", 0)}},
            response_metadata={"batch": True, "custom_id": reply.custom_id})
        if self.ledger is not None:
            self.ledger.record_message(self.role, batch_model_key(self.model_id), message)
        return message
