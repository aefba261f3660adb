"""Token and cost ledger: tokens per role (agent, qa, eval), per model and per case, priced from the config.

Counts come from `AIMessage.usage_metadata`, which every provider integration fills the same way:
`input_tokens` is the WHOLE prompt (cache reads and cache writes included) and
`input_token_details` says how much of it was read from the prompt cache (`cache_read`) and how
much was written to it (`cache_creation`, or Anthropic's `ephemeral_5m_input_tokens` /
`ephemeral_1h_input_tokens`). Plain input is the rest.

Prices are USD per million tokens (`[prices."<model>"]`: `input`, `output`, `cached_input`,
`cache_write`). A missing `cached_input` prices cache reads at `input`, a missing `cache_write`
prices cache writes at `input`; both are listed in `price_notes` so a report never hides the
assumption. Offline models cost nothing; a model without any price is listed in
`unpriced_models` instead of silently costing zero.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, NotRequired, TypedDict

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage

ROLES = ("agent", "qa", "eval")
BATCH_SUFFIX = " (batch)"  # a model's calls through its provider's batch API ([batch]) are counted apart
CACHE_WRITE_KEYS = ("cache_creation", "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")


class Price(TypedDict):
    """`[prices."<model>"]`: USD per million tokens of each class (None: not configured)."""

    input: float | None
    output: float | None
    cached_input: float | None
    cache_write: float | None


class UsageCounts(TypedDict):
    """The raw counts of a `Usage` (`dataclasses.asdict`), as a ledger journal line carries them."""

    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


class JournalLine(UsageCounts):
    """One line of ledger.jsonl: who spent the counts (`carried`: "manifest" on totals carried over once)."""

    role: str
    model: str
    carried: NotRequired[str]


class UsageTotals(TypedDict):
    """`Usage.as_dict()`: the counts, the plain input and the cache-hit share."""

    calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    plain_input_tokens: int
    cache_hit_share: float | None


class PricedTotals(UsageTotals):
    """A model's, a role's or the run's totals in the snapshot, with what they cost (None: unpriced)."""

    cost_usd: float | None


class CaseUsage(UsageTotals):
    """`TokenLedger.case_usage()`: a results line's `agent_usage` (the memory agent's spend on one case)."""

    model: str
    cost_usd: float | None


class EarlierRole(TypedDict):
    models: dict[str, UsageTotals]


class EarlierTotals(TypedDict):
    """`journal_totals()`: the part of a snapshot a ledger needs to start from (role -> model -> usage)."""

    roles: dict[str, EarlierRole]


class ModelTotals(PricedTotals):
    offline: bool


class RoleTotals(PricedTotals):
    """One role of the snapshot: its totals (cost_usd 0.0 where nothing was priced), then per model."""

    models: dict[str, ModelTotals]


class LedgerSnapshot(TypedDict):
    """`TokenLedger.snapshot()`, as the manifest's `tokens` holds it."""

    roles: dict[str, RoleTotals]
    total: PricedTotals
    unpriced_models: list[str]
    price_notes: list[str]


@dataclass
class Usage:
    """Token counts of one or more calls; `input_tokens` includes the cached and cache-written parts."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def plain_input_tokens(self) -> int:
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    @property
    def cache_hit_share(self) -> float | None:
        """Share of input tokens read from the prompt cache (None without input)."""
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else None

    def add(self, other: Usage) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def counts(self) -> UsageCounts:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cache_read_tokens": self.cache_read_tokens, "cache_write_tokens": self.cache_write_tokens}

    def as_dict(self) -> UsageTotals:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cache_read_tokens": self.cache_read_tokens, "cache_write_tokens": self.cache_write_tokens,
                "plain_input_tokens": self.plain_input_tokens, "cache_hit_share": self.cache_hit_share}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        return cls(**{f.name: int(data.get(f.name) or 0) for f in fields(cls)})


def usage_of(message: BaseMessage) -> Usage:
    """One reply's usage from its usage_metadata (a reply without usage counts as one call, 0 tokens)."""
    meta = getattr(message, "usage_metadata", None) or {}
    details = meta.get("input_token_details") or {}
    return Usage(calls=1, input_tokens=int(meta.get("input_tokens") or 0),
                 output_tokens=int(meta.get("output_tokens") or 0),
                 cache_read_tokens=int(details.get("cache_read") or 0),
                 cache_write_tokens=sum(int(details.get(k) or 0) for k in CACHE_WRITE_KEYS))


def batch_model_key(model_id: str) -> str:
    return model_id + BATCH_SUFFIX


def batch_price(price: Mapping[str, Any] | None, factor: float) -> Price | None:
    """A model's price through the batch API: every token class at `factor` (0.5: OpenAI, Anthropic)."""
    if price is None:
        return None

    def scaled(key: str) -> float | None:
        return None if price.get(key) is None else float(price[key]) * factor

    return {"input": scaled("input"), "output": scaled("output"), "cached_input": scaled("cached_input"),
            "cache_write": scaled("cache_write")}


def is_offline_model(model_id: str) -> bool:
    return model_id.startswith("offline")


def price_usage(usage: Usage, price: Mapping[str, Any] | None, model_id: str) -> tuple[float | None, list[str]]:
    """USD for `usage` under `price` (USD per million tokens) and the notes on assumed prices."""
    if is_offline_model(model_id):
        return 0.0, []
    if price is None:
        return None, []
    notes = []
    plain, out = float(price.get("input") or 0.0), float(price.get("output") or 0.0)
    read, write = price.get("cached_input"), price.get("cache_write")
    if read is None and usage.cache_read_tokens:
        notes.append(f"{model_id}: no cached_input price, cache reads priced at the input price (an upper bound)")
    if write is None and usage.cache_write_tokens:
        notes.append(f"{model_id}: no cache_write price, cache writes priced at the input price "
                     "(Anthropic and Bedrock charge 1.25x input for 5-minute cache writes)")
    usd = (usage.plain_input_tokens * plain + usage.output_tokens * out
           + usage.cache_read_tokens * float(plain if read is None else read)
           + usage.cache_write_tokens * float(plain if write is None else write)) / 1e6
    return usd, notes


class TokenLedger:
    """Thread- and task-safe counters; `snapshot()` is a JSON-ready dict.

    `earlier` (a previous snapshot, e.g. from the manifest of an interrupted attempt) seeds the
    totals, so a resumed run reports everything the run has cost, not only the last attempt.
    """

    def __init__(self, prices: Mapping[str, Any] | None = None, *, earlier: Mapping[str, Any] | None = None,
                 batch_factor: float = 0.5):
        self.prices = {k: _price_dict(v) for k, v in (prices or {}).items()}
        self.batch_factor = batch_factor
        self._journal: Callable[[JournalLine], None] | None = None
        self._lock = threading.Lock()
        self._tallies: dict[tuple[str, str], Usage] = {}
        self._cases: dict[str, Usage] = {}
        for role, bucket in ((earlier or {}).get("roles") or {}).items():
            for model, entry in (bucket.get("models") or {}).items():
                self._tallies[(role, model)] = Usage.from_dict(entry)

    def record_usage(self, role: str, model_id: str, usage: Usage, *, case_id: str | None = None) -> None:
        with self._lock:
            self._tallies.setdefault((role, model_id), Usage()).add(usage)
            if case_id is not None and role == "agent":
                self._cases.setdefault(case_id, Usage()).add(usage)
        if self._journal is not None:  # on disk as it is spent: a run killed now still knows what it cost
            self._journal({"role": role, "model": model_id, **usage.counts()})

    def journal_to(self, write: Callable[[JournalLine], None]) -> None:
        """Append every usage recorded from now on through `write` (the run's ledger.jsonl)."""
        self._journal = write

    def tallies(self) -> list[tuple[str, str, UsageCounts]]:
        """(role, model, usage) of everything counted so far, without draining it."""
        with self._lock:
            return [(role, model, usage.counts()) for (role, model), usage in sorted(self._tallies.items())]

    def record(self, role: str, model_id: str, input_tokens: int, output_tokens: int) -> None:
        """Count one successful call without cache details."""
        self.record_usage(role, model_id, Usage(1, int(input_tokens or 0), int(output_tokens or 0)))

    def record_message(self, role: str, model_id: str, message: BaseMessage, *, case_id: str | None = None) -> None:
        """Count a reply from its usage_metadata."""
        self.record_usage(role, model_id, usage_of(message), case_id=case_id)

    def case_usage(self, case_id: str, model_id: str) -> CaseUsage:
        """The memory agent's usage and cost for one case so far (this process)."""
        with self._lock:
            usage = Usage(**asdict(self._cases.get(case_id, Usage())))
        usd, _ = price_usage(usage, self.price_of(model_id), model_id)
        return {**usage.as_dict(), "model": model_id, "cost_usd": usd}

    def price_of(self, model_id: str) -> Price | None:
        """`[prices]` of a model; of `<model> (batch)`, the model's price times the batch factor."""
        if model_id.endswith(BATCH_SUFFIX):
            return batch_price(self.prices.get(model_id.removesuffix(BATCH_SUFFIX)), self.batch_factor)
        return self.prices.get(model_id)

    def drain(self) -> list[tuple[str, str, UsageTotals]]:
        """Hand over the tallies counted since the last drain, as (role, model, usage) rows, and
        start again from zero: a Ray worker sends its drains to the driver's ledger (`merge`)."""
        with self._lock:
            tallies, self._tallies = self._tallies, {}
        return [(role, model, usage.as_dict()) for (role, model), usage in tallies.items()]

    def merge(self, rows: list[tuple[str, str, UsageTotals]]) -> None:
        """Add another ledger's drained tallies (a worker's) to this one."""
        for role, model, usage in rows:
            self.record_usage(role, model, Usage.from_dict(usage))

    def snapshot(self) -> LedgerSnapshot:
        """{"roles": {role: totals + "models": {model_id: totals}}, "total": totals,
        "unpriced_models": [...], "price_notes": [...]}; totals carry calls, input_tokens,
        output_tokens, cache_read_tokens, cache_write_tokens, plain_input_tokens, cache_hit_share, cost_usd."""
        with self._lock:
            items = sorted((role, model, Usage(**asdict(u))) for (role, model), u in self._tallies.items())
        models_of: dict[str, dict[str, ModelTotals]] = {}
        total, total_usd = Usage(), 0.0
        unpriced: set[str] = set()
        notes: list[str] = []
        role_usage: dict[str, Usage] = {}
        role_usd: dict[str, float] = {}
        for role, model, usage in items:
            usd, price_notes = price_usage(usage, self.price_of(model), model)
            notes += [n for n in price_notes if n not in notes]
            if usd is None:
                unpriced.add(model)
            models_of.setdefault(role, {})[model] = {**usage.as_dict(), "cost_usd": usd,
                                                     "offline": is_offline_model(model)}
            role_usage.setdefault(role, Usage()).add(usage)
            role_usd[role] = role_usd.get(role, 0.0) + (usd or 0.0)
            total.add(usage)
            total_usd += usd or 0.0
        roles: dict[str, RoleTotals] = {role: {"models": models, **role_usage[role].as_dict(), "cost_usd": role_usd[role]}
                                        for role, models in models_of.items()}
        return {"roles": roles, "total": {**total.as_dict(), "cost_usd": total_usd},
                "unpriced_models": sorted(unpriced), "price_notes": notes}

    def middleware(self, role: str = "agent", model_id: str | None = None) -> LedgerMiddleware:
        return LedgerMiddleware(self, role=role, model_id=model_id)


def _price_dict(price: Any) -> Price:
    """A `[prices]` entry (a mapping, or the config's price model) as a Price."""
    def value(key: str) -> float | None:
        return price.get(key) if isinstance(price, Mapping) else getattr(price, key, None)

    return {"input": value("input"), "output": value("output"), "cached_input": value("cached_input"),
            "cache_write": value("cache_write")}


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
        case_id = getattr(getattr(request.runtime, "context", None), "case_id", None)
        for message in messages:
            if isinstance(message, AIMessage):
                self.ledger.record_message(self.role, model_id, message, case_id=case_id)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        response = handler(request)
        self._count(request, response)
        return response

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        response = await handler(request)
        self._count(request, response)
        return response


JOURNAL_FILE = "ledger.jsonl"   # one line per model call's usage, appended and fsynced as it is spent


def journal_totals(lines: Iterable[Mapping[str, Any]]) -> EarlierTotals | None:
    """The `earlier` snapshot (role -> model -> usage) a ledger journal's lines add up to; None when
    there are none (a run directory from before the journal: its manifest's tokens stand)."""
    totals: dict[tuple[str, str], Usage] = {}
    for line in lines:
        if isinstance(line.get("role"), str) and isinstance(line.get("model"), str):
            totals.setdefault((line["role"], line["model"]), Usage()).add(Usage.from_dict(line))
    if not totals:
        return None
    roles: dict[str, EarlierRole] = {}
    for (role, model), usage in totals.items():
        roles.setdefault(role, {"models": {}})["models"][model] = usage.as_dict()
    return {"roles": roles}
