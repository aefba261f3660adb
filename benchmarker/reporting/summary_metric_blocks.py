"""summary.json's measured blocks as models: `qa`, `retrieval`, `cost`, `speed`, `counts` and `budget` (what a run
computed from its answers, searches and model calls; reporting/summary_model.py's `RunSummary` holds them)."""

from __future__ import annotations

from benchmarker.reporting.summary_block import Block, Cell, Num


class TaskAveraged(Block):
    accuracy: Num | None = None
    types: list[str] | None = None
    n_types: int | None = None


class QaBlock(Block):
    """summary.json's `qa` (scoring/qa_metrics.py)."""

    overall: Cell | None = None
    task_averaged: TaskAveraged | None = None
    abstention: Cell | None = None
    by_type: dict[str, Cell] | None = None
    abstention_type: str | None = None   # the type that is exactly the abstention questions (LoCoMo's adversarial)
    judged: int | None = None
    unjudged: int | None = None
    not_graded: int | None = None


class RetrievalByType(Block):
    """retrieval.by_type[t]: the same metrics and counts over one question type."""

    metrics: dict[str, Num | None] | None = None
    n: dict[str, int] | None = None


class RetrievalBlock(Block):
    """summary.json's `retrieval` (scoring/retrieval_metrics.py); metrics are null where not available."""

    available: bool | None = None
    k_values: list[int] | None = None
    top_k: list[int] | None = None
    metrics: dict[str, Num | None] | None = None
    n: dict[str, int] | None = None
    excluded_abstention: int | None = None
    questions: dict[str, int] | None = None
    by_type: dict[str, RetrievalByType] | None = None
    notes: list[str] | None = None


class CostBlock(Block):
    """summary.json's `cost` (reporting/usage_blocks.py cost_block)."""

    tokens: dict[str, dict[str, int]] | None = None
    tokens_total: dict[str, int] | None = None
    cache_hit_share: dict[str, Num | None] | None = None
    usd: dict[str, Num | None] | None = None
    usd_per_question: Num | None = None
    floor_usd: Num | None = None
    floor_ratio: Num | None = None
    source: dict[str, str] | None = None
    unpriced_models: list[str] | None = None
    price_notes: list[str] | None = None


class Latency(Block):
    n: int | None = None
    p50: Num | None = None
    p95: Num | None = None
    mean: Num | None = None
    max: Num | None = None


class SpeedBlock(Block):
    """summary.json's `speed` (reporting/usage_blocks.py speed_block)."""

    phases: dict[str, dict[str, Num | None]] | None = None
    tool_latency_ms: Latency | None = None
    tool_latency_by_tool_ms: dict[str, Latency] | None = None


class NotSearchable(Block):
    """counts.not_searchable (scoring/searchable.py): questions and cases left out on an index not searchable yet."""

    questions: int | None = None
    question_ids: list[str] | None = None
    cases_failed: int | None = None
    case_ids: list[str] | None = None


class CountsBlock(Block):
    """summary.json's `counts` (reporting/usage_blocks.py counts_block, scoring/searchable.py)."""

    questions: int | None = None
    judged: int | None = None
    unjudged: int | None = None
    not_graded: int | None = None
    abstention: int | None = None
    by_type: dict[str, int] | None = None
    by_kind: dict[str, int] | None = None
    judges: dict[str, int] | None = None
    judge_models: list[str] | None = None
    not_searchable: NotSearchable | None = None


class ContextTokens(Block):
    """budget.context_tokens: cl100k_base tokens of what each reader saw, over the lines that carry them."""

    n: int | None = None
    mean: Num | None = None
    p50: Num | None = None
    p95: Num | None = None
    max: int | None = None


class ListedQuestions(Block):
    """budget.over_budget: how many questions, and the first ids."""

    questions: int | None = None
    question_ids: list[str] | None = None


class HitsTrimmed(ListedQuestions):
    """budget.hits_trimmed: searches that returned more than top_k hits, and how many hits were cut."""

    hits: int | None = None


class BudgetCut(ListedQuestions):
    """budget.cut: questions whose context the budget cut, hits dropped and texts shortened."""

    hits_dropped: int | None = None
    text_cut: int | None = None


class BudgetBlock(Block):
    """summary.json's `budget` (reporting/budget.py): context tokens, top_k, hits trimmed, budget cuts."""

    tokenizer: str | None = None
    top_k: int | None = None
    context_budget_tokens: int | None = None
    questions: int | None = None
    context_tokens: ContextTokens | None = None
    source: dict[str, int] | None = None
    hits_trimmed: HitsTrimmed | None = None
    cut: BudgetCut | None = None
    over_budget: ListedQuestions | None = None
    notes: list[str] | None = None
