"""The shapes of `estimate --json` (verbs/estimate.estimate_json): what a script reading the estimate relies on.

TypedDicts of the JSON as written, so the writer states its keys and mypy checks the readers (the markdown
tables in verbs/estimate.py); typing them changes no byte printed.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.agent.ledger import UsageTotals


class ComparisonRow(TypedDict):
    """One compared setting of the memory agent (QA and judge are the same in every row)."""

    label: str
    prompt_cache: bool
    ingest_unit: str
    tools: list[str]
    raw_entry: str
    context_update: str
    context_every_sessions: int
    baseline: bool
    matches_config: bool
    agent_calls: int
    agent_input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cache_hit_share: float | None
    agent_output_tokens: int
    agent_usd: float | None
    total_usd: float | None
    times_cheaper: NotRequired[float | None]      # against the first (baseline) row
    usd_per_question: NotRequired[float | None]
    floor_ratio: NotRequired[float | None]        # total_usd / the floor


class Floor(TypedDict):
    """The cost floor: the haystack read once, a summary per message, the context written once per session."""

    input_tokens: int
    output_tokens: int
    usd: float | None
    usd_per_question: float | None
    summary_tokens: int
    context_updates: int


class SchemaTokens(TypedDict):
    """Tool-schema tokens per agent call: every tool against the configured subset."""

    all_tools: int
    configured: int
    saved_per_call: int
    configured_tools: list[str]


class PartCost(UsageTotals):
    """One purpose of the eval role (judge, adversary, graders, analyst) and its cost."""

    cost_usd: float | None


class RoleCost(UsageTotals):
    """One role's usage and cost; `parts` on eval only."""

    model: str | None
    cost_usd: float | None
    batch: bool
    sync_usd: float | None                         # without [batch] (cost_usd when not batched)
    parts: NotRequired[dict[str, PartCost]]


class EstimateDataset(TypedDict):
    questions: int
    cases: int
    sessions: int
    messages: int
    adversary_questions: NotRequired[int]


class EstimateSetting(TypedDict):
    provider: str
    agent_model: str | None
    prompt_cache: bool
    ingest_unit: str
    tools: list[str]
    cache: str


class EstimateJson(TypedDict):
    """`estimate --json`'s object (docs/cost.md describes each key)."""

    schema_version: int
    dataset: EstimateDataset
    setting: EstimateSetting
    roles: dict[str, RoleCost]
    total_usd: float | None
    comparison: list[ComparisonRow]
    floor: Floor | None
    tool_schema_tokens: SchemaTokens
    system_prompt_tokens: dict[str, int]
    assumptions: list[str]
    token_count: str
    price_notes: list[str]
    unpriced_models: list[str]


class ReaderModels(TypedDict):
    """The reader's and the judge's models of an oracle or baseline estimate."""

    qa: str
    eval: str | None


class OracleEstimate(TypedDict):
    """`oracle --estimate`'s object: the oracle reader's and judge's pending calls."""

    questions: int
    pending: int
    qa: UsageTotals
    eval: UsageTotals
    usd: float | None
    models: ReaderModels


class BaselineEstimate(TypedDict):
    """One baseline's pending reader and judge calls (`baselines --estimate`)."""

    pending: int
    cases: int
    qa: UsageTotals
    eval: UsageTotals
    cache: str
    usd: float | None


class BaselinesEstimate(TypedDict):
    """`baselines --estimate`'s object: every named baseline and their total."""

    questions: int
    baselines: dict[str, BaselineEstimate]
    usd: float | None
    models: ReaderModels
    approximation: str
