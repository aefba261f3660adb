"""Token and cost ledger: tokens per role (agent, qa, eval) and per model, priced from the config.

Counts come from `AIMessage.usage_metadata` (input_tokens, output_tokens), which every provider
integration fills. Prices are USD per million tokens (`[prices]` in the config). Offline models
cost nothing and are labelled `offline` in the snapshot; a model without a price is listed in
`unpriced_models` instead of silently costing zero.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage

ROLES = ("agent", "qa", "eval")


@dataclass
class _Tally:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


def is_offline_model(model_id: str) -> bool:
    return model_id.startswith("offline")


class TokenLedger:
    """Thread- and task-safe counters; `snapshot()` is a JSON-ready dict."""

    def __init__(self, prices: Mapping[str, Mapping[str, float]] | None = None):
        self.prices = {k: dict(v) for k, v in (prices or {}).items()}
        self._lock = threading.Lock()
        self._tallies: dict[tuple[str, str], _Tally] = {}

    def record(self, role: str, model_id: str, input_tokens: int, output_tokens: int) -> None:
        """Count one successful model call."""
        with self._lock:
            tally = self._tallies.setdefault((role, model_id), _Tally())
            tally.calls += 1
            tally.input_tokens += int(input_tokens or 0)
            tally.output_tokens += int(output_tokens or 0)

    def record_message(self, role: str, model_id: str, message: BaseMessage) -> None:
        """Count a reply from its usage_metadata (a call without usage counts with 0 tokens)."""
        usage = getattr(message, "usage_metadata", None) or {}
        self.record(role, model_id, usage.get("input_tokens", 0), usage.get("output_tokens", 0))

    def cost_usd(self, model_id: str, input_tokens: int, output_tokens: int) -> float | None:
        """Cost from the price table; 0 for offline models, None when the model has no price."""
        if is_offline_model(model_id):
            return 0.0
        price = self.prices.get(model_id)
        if price is None:
            return None
        return (input_tokens * float(price.get("input", 0.0)) + output_tokens * float(price.get("output", 0.0))) / 1e6

    def snapshot(self) -> dict[str, Any]:
        """{"roles": {role: totals + "models": {model_id: totals}}, "total": totals, "unpriced_models": [...]}"""
        with self._lock:
            items = [(role, model, _Tally(t.calls, t.input_tokens, t.output_tokens))
                     for (role, model), t in self._tallies.items()]
        roles: dict[str, dict[str, Any]] = {}
        total = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
        unpriced: set[str] = set()
        for role, model, t in sorted(items):
            cost = self.cost_usd(model, t.input_tokens, t.output_tokens)
            if cost is None:
                unpriced.add(model)
            entry = {"calls": t.calls, "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
                     "cost_usd": cost, "offline": is_offline_model(model)}
            bucket = roles.setdefault(role, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0,
                                             "models": {}})
            bucket["models"][model] = entry
            for key in ("calls", "input_tokens", "output_tokens"):
                bucket[key] += entry[key]
                total[key] += entry[key]
            bucket["cost_usd"] += cost or 0.0
            total["cost_usd"] += cost or 0.0
        return {"roles": roles, "total": total, "unpriced_models": sorted(unpriced)}

    def middleware(self, role: str = "agent", model_id: str | None = None) -> "LedgerMiddleware":
        return LedgerMiddleware(self, role=role, model_id=model_id)


class LedgerMiddleware(AgentMiddleware):
    """Counts every successful agent model call (place it outside the retry middleware)."""

    def __init__(self, ledger: TokenLedger, *, role: str = "agent", model_id: str | None = None):
        super().__init__()
        self.ledger = ledger
        self.role = role
        self.model_id = model_id

    def _count(self, request: Any, response: Any) -> None:
        from benchmarker.agent.retry import model_name_of

        messages = getattr(response, "result", None)
        if messages is None and isinstance(response, AIMessage):
            messages = [response]
        if messages is None:  # ExtendedModelResponse
            messages = getattr(getattr(response, "model_response", None), "result", None) or []
        model_id = self.model_id or model_name_of(request.model)
        for message in messages:
            if isinstance(message, AIMessage):
                self.ledger.record_message(self.role, model_id, message)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        response = handler(request)
        self._count(request, response)
        return response

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        response = await handler(request)
        self._count(request, response)
        return response
