"""The memory agent's cost floor (summary.json's cost.floor, the estimate's floor row) and the USD of a usage at
the config's prices: the run and the `estimate`, `oracle` and `baselines` verbs price the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from benchmarker.agent.ledger import Usage, batch_price, price_usage
from benchmarker.config_schema import Price, RunConfig
from benchmarker.registry import plan_dataset
from benchmarker.run.estimate_model import (
    CONTEXT_BASE_CHARS,
    CONTEXT_CHARS_PER_MESSAGE,
    CONTEXT_MAX_CHARS,
    AgentModel,
    agent_model,
    tokens,
)
from benchmarker.subjects.memory_agent import CostFloor
from benchmarker.suites.settings import PlanSettings

FLOOR_SUMMARY_TOKENS = 40   # the floor's summary of one message (issue 28: ~40 output tokens)


@dataclass(frozen=True)
class Pricing:
    """All that puts a USD figure on a usage: `[prices]` and `[batch] price_factor`."""

    prices: Mapping[str, Price]
    batch_factor: float


def usage_usd(usage: Usage, pricing: Pricing, model_id: str, notes: list[str] | None = None, *,
              batch: bool = False) -> float | None:
    """USD of `usage` at `[prices]` for `model_id` (None: no price); `batch` applies `[batch] price_factor`.
    Price notes (cache tokens priced at the input price, say) are added to `notes` once each."""
    if not usage.calls and not usage.input_tokens and not usage.output_tokens:
        return 0.0
    price = pricing.prices.get(model_id)
    plain = None if price is None else price.model_dump()
    usd, price_notes = price_usage(usage, batch_price(plain, pricing.batch_factor) if batch else plain, model_id)
    if notes is not None:
        notes += [n for n in price_notes if n not in notes]
    return usd


def floor_case(case, model: AgentModel) -> Usage:
    """The memory agent's floor for one case: every message read once (its header and text, plain
    input), one FLOOR_SUMMARY_TOKENS summary per message, and the context document written once per
    session at the size estimate_model assumes (it grows with the entries up to its cap)."""
    from benchmarker.agent.prompts import render_turn

    usage, entries = Usage(), 0
    for session in case.sessions:
        n = len(session.messages)
        read = sum(tokens(len(render_turn(session.session_id, session.date, i + 1, n, m.role, m.content,
                                          template=model.turn_template))) for i, m in enumerate(session.messages))
        entries += n
        context = tokens(min(CONTEXT_MAX_CHARS, CONTEXT_BASE_CHARS + CONTEXT_CHARS_PER_MESSAGE * entries))
        usage.add(Usage(1, read, n * FLOOR_SUMMARY_TOKENS + context))
    return usage


def run_floor(config: RunConfig) -> CostFloor | None:
    """The floor of a run's selected cases (summary.json's cost.floor_usd): None without memory-agent calls."""
    import tempfile

    if config.run.mode != "agent" or config.agent.type != "memory_agent" or "ingest" not in config.run.phases:
        return None
    model, usage = agent_model(config.params, config.memory), Usage()
    with tempfile.TemporaryDirectory() as scratch:
        for group in plan_dataset(PlanSettings.of(config), Path(scratch)).groups:
            for case in group.cases():
                usage.add(floor_case(case, model))
    pricing = Pricing(config.prices, config.batch.price_factor)
    return {"usd": usage_usd(usage, pricing, config.models.agent), "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens, "context_updates": usage.calls,
            "summary_tokens": FLOOR_SUMMARY_TOKENS}
