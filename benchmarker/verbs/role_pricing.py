"""How the cost verbs (`estimate`, `oracle --estimate`, `baselines --estimate`) price a role's calls: the slice of
the config they read (each role's model, the provider, `[batch]`, `[prices]`), built once at their entry points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from benchmarker.agent.ledger import Usage
from benchmarker.config_schema import BatchConfig, ModelsConfig, ParamsConfig, Price, ProviderConfig, RunSection
from benchmarker.run.cost_floor import Pricing, usage_usd


def llm_judged(models: ModelsConfig, params: ParamsConfig, run: RunSection) -> bool:
    """Whether the judge's model judges the answers (the one condition for every role-eval call)."""
    return bool(models.eval and params.use_llm_judge and "eval" in run.phases)


@dataclass(frozen=True)
class RolePricing:
    """How each role's calls are priced: its model, whether `[batch]` sends them, at `[prices]`."""

    models: ModelsConfig
    provider: str
    batch: BatchConfig
    pricing: Pricing

    @property
    def role_models(self) -> dict[str, str]:
        return {"agent": self.models.agent, "qa": self.models.qa, "eval": self.models.eval}

    def batched(self, role: str) -> bool:
        """Whether `[batch]` sends this role's calls through the provider's batch API (at its batch price)."""
        model = self.role_models[role]
        return (role in ("qa", "eval") and bool(getattr(self.batch, role)) and self.provider != "offline"
                and bool(model) and not model.startswith("offline-"))

    def usd(self, usage: Usage, role: str, notes: list[str] | None = None, *, batch: bool = False) -> float | None:
        return usage_usd(usage, self.pricing, self.role_models[role], notes, batch=batch)


def role_pricing(models: ModelsConfig, provider: ProviderConfig, batch: BatchConfig,
                 prices: Mapping[str, Price]) -> RolePricing:
    """The estimate's pricing slice of a config (the entry points build it once)."""
    return RolePricing(models, provider.type, batch, Pricing(prices, batch.price_factor))


__all__ = ["RolePricing", "llm_judged", "role_pricing"]
