"""`RunSummary`: summary.json as a typed object, for the code that writes it (`build_summary`, `write_outputs`) and
the code that reads it (`report`, `compare`, `oracle`, the run browser).

summary.json is written from a `RunSummary` (reporting/summary_file.py builds one from the computed blocks, validated,
and writes its dump), so writer and reader share one model and cannot disagree; summary.py's docstring documents
every key. This model describes the top-level blocks with their real types:

- every field is optional: a summary from an older version, a sweep point's or a hand-written one may lack a block,
  and a reader treats a missing block as "not available" as it always did; a block that *is* there must have
  its documented type (a `qa` that is a string is an error naming the file and `qa`, not a KeyError later);
- every model allows extra keys (`extra="allow"`), so rounds, graders, analyst, judge_calibration, a suite's block
  without a registered model and any later key pass through unchanged; a suite that names its blocks' models
  (`Suite.summary_models`, {key: Block subclass}) gets them typed on the summary it builds (`summary.block(key)`);
- numbers are `int | float` where a block may hold either, and every block remembers the order its keys came in,
  so a validated summary dumps exactly as read, key order included:
  `RunSummary.model_validate(s).as_dict() == s`, and json.dumps of both gives the same bytes.

`load_summary(path)` reads and validates one summary.json; `summary_error` turns a pydantic error into the
one-line message a user sees.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json

SCHEMA_VERSION = 1  # summary.json's `schema_version`: what build_summary writes (reporting/summary.py documents it)
Num = int | float  # a smart union: an int stays an int and a float a float, so a dump writes the numbers as read


class Block(BaseModel):
    """A summary block: its documented keys typed, every other key kept as it is."""

    model_config = ConfigDict(extra="allow")
    _key_order: tuple[str, ...] = PrivateAttr(default=())  # the keys as they came in: a dump writes them so

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        block = handler(data)
        if isinstance(data, dict) and isinstance(block, Block):
            block._key_order = tuple(data)
        return block

    @model_serializer(mode="wrap")
    def _dump_in_key_order(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Declared fields, then extra keys, is pydantic's order; the order they were given is the file's."""
        dumped = handler(self)
        if not isinstance(self, Block) or not self._key_order or not isinstance(dumped, dict):
            return dumped
        return ({k: dumped[k] for k in self._key_order if k in dumped}
                | {k: v for k, v in dumped.items() if k not in self._key_order})

    def as_dict(self) -> dict[str, Any]:
        """The block as written: the keys it had, with their values (extra keys included)."""
        return self.model_dump(exclude_unset=True, by_alias=True)

    def is_empty(self) -> bool:
        """No key at all (a block written as {}): what a reader of the dict tested as falsy."""
        return not self.model_fields_set and not self.__pydantic_extra__


class Cell(Block):
    """An accuracy cell (qa.overall, qa.by_type[t], oracle.overall, ...): 95% Wilson interval."""

    n: int | None = None
    correct: int | None = None
    accuracy: Num | None = None
    ci95: list[Num] | None = None
    unjudged: int | None = None


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
    """summary.json's `cost` (reporting/summary.py cost_block)."""

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
    """summary.json's `speed` (reporting/summary.py speed_block)."""

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
    """summary.json's `counts` (reporting/summary.py counts_block, scoring/searchable.py)."""

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


class MemoryInfo(Block):
    """run.memory: what memory the run searched (MemoryDriver.describe, without where it ran)."""

    backend: str | None = None
    embedder: str | None = None
    alpha: Num | str | None = None   # "service default" on a Mycelian stack, whose alpha the harness does not set
    lacks: list[str] | None = None


class MemoryAgentInfo(Block):
    """run.memory_agent: how our memory agent wrote (ingest unit, who typed raw_entry, the context cadence)."""

    ingest_unit: str | None = None
    raw_entry: str | None = None
    context_update: str | None = None
    context_every_sessions: int | None = None


class Rescored(Block):
    """run.rescored, on a `score` re-judging: whose answers, which judge, where the run's own report is."""

    of_run: str | None = None
    judge: str | None = None
    model: str | None = None
    label: str | None = None
    original_report: str | None = None
    thresholds: str | None = None


class TracingInfo(Block):
    """run.tracing, on a `[tracing] langsmith = true` run: where its traces are (agent/tracing.py describe)."""

    langsmith: bool | None = None
    project: str | None = None
    endpoint: str | None = None
    tags: list[str] | None = None
    sample_rate: Num | None = None
    cases_traced: int | None = None
    url: str | None = None


class RunBlock(Block):
    """summary.json's `run`: the run metadata as given; the search settings `compare` and `report` read."""

    run_id: str | None = None
    mode: str | None = None
    point: str | None = None
    top_k: int | None = None
    alpha: Num | None = None
    memory: MemoryInfo | None = None
    replay: dict[str, Any] | None = None
    started_at: str | None = None
    config: str | None = None
    wall_s: Num | None = None
    memory_agent: MemoryAgentInfo | None = None
    rescored: Rescored | None = None
    tracing: TracingInfo | None = None


class StageCell(Block):
    """attribution.by_type[t] (scoring/attribution.py StageCell): counts and shares by stage."""

    n: int | None = None
    counts: dict[str, int] | None = None
    shares: dict[str, Num] | None = None


class AttributionBlock(Block):
    """summary.json's `attribution` (scoring/attribution.py): which stage lost each judged answer."""

    stages: list[str] | None = None
    n: int | None = None
    counts: dict[str, int] | None = None
    shares: dict[str, Num] | None = None
    lost_by_memory: int | None = None
    by_type: dict[str, StageCell] | None = None
    write_match: str | None = None
    seen_match: str | None = None
    notes: list[str] | None = None


class OracleBlock(Block):
    """summary.json's `oracle`, after `oracle RUN_DIR`: accuracy with the gold evidence only."""

    questions: int | None = None
    overall: Cell | None = None
    by_type: dict[str, Cell] | None = None
    no_evidence: dict[str, int] | None = None        # judged questions it had no gold evidence for, per type
    with_evidence: dict[str, Cell] | None = None     # {"memory", "oracle"} over the questions that had some


class JudgeSpread(Block):
    """max - min of the judges' accuracies, with its paired bootstrap 95% interval."""

    value: Num | None = None
    ci95: list[Num] | None = None
    highest: str | None = None
    lowest: str | None = None


class JudgeGroup(Block):
    """One row of judge_sensitivity (overall, or one question type): each judge's accuracy cell and the spread."""

    n: int | None = None
    judges: dict[str, Cell] | None = None
    spread: JudgeSpread | None = None


class JudgePair(Block):
    a: str | None = None
    b: str | None = None
    n: int | None = None
    agree: int | None = None
    agreement: Num | None = None
    kappa: Num | None = None   # null where undefined (a judge gave one label everywhere)
    only_a_correct: int | None = None
    only_b_correct: int | None = None


class JudgeEntry(Block):
    """One judge of judge_sensitivity: where its labels are and how many it left unjudged."""

    name: str | None = None
    source: str | None = None
    own: bool | None = None
    judge: str | None = None
    model: str | None = None
    lines: int | None = None
    unjudged: int | None = None


class Disagreement(Block):
    """A paired question the judges labelled differently: each judge's label."""

    question_id: str | None = None
    question_type: str | None = None
    labels: dict[str, bool | None] | None = None


class JudgeSensitivityBlock(Block):
    """summary.json's `judge_sensitivity` (scoring/judge_sensitivity.py), when a run was judged twice or more."""

    judges: list[JudgeEntry] | None = None
    questions: int | None = None
    paired: int | None = None
    overall: JudgeGroup | None = None
    by_type: dict[str, JudgeGroup] | None = None
    pairs: list[JudgePair] | None = None
    disagreements: list[Disagreement] | None = None
    bootstrap: dict[str, int] | None = None
    notes: list[str] | None = None


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


class ConditionAccuracy(Block):
    """One condition of `baselines` (no_memory, memory, full_context, oracle): accuracy overall and per type."""

    overall: Cell | None = None
    by_type: dict[str, Cell] | None = None


class Headroom(Block):
    """(memory - no_memory) / (oracle - no_memory) with its paired bootstrap 95% interval (scoring/headroom.py)."""

    n: int | None = None
    value: Num | None = None
    ci95: list[Num] | None = None
    iterations: int | None = None
    seed: int | None = None
    undefined_draws: int | None = None
    note: str | None = None


class McNemarPair(Block):
    n: int | None = None
    memory_only: int | None = None
    full_context_only: int | None = None
    p_value: Num | None = None


class FullContextCut(Block):
    """baselines.runs.full_context.cut: what fitting the whole history into the reader's window dropped."""

    questions_cut: int | None = None
    sessions_dropped: int | None = None
    tokens_before_max: int | None = None
    context_tokens_mean: Num | None = None
    context_tokens_max: int | None = None


class BaselineRun(Block):
    """baselines.runs[condition]: the questions that condition answered and where its files are."""

    questions: int | None = None
    dir: str | None = None
    cut: FullContextCut | None = None


class BaselinesBlock(Block):
    """summary.json's `baselines`, after `baselines RUN_DIR`: is memory needed here?"""

    conditions: list[str] | None = None
    accuracy: dict[str, ConditionAccuracy] | None = None
    headroom: Headroom | None = None
    mcnemar_memory_vs_full_context: McNemarPair | None = None
    runs: dict[str, BaselineRun] | None = None


class ValidityCheck(Block):
    """One check of `validity`: count out of `of`, their share, the [validity] threshold, and whether it held."""

    what: str | None = None
    count: int | None = None
    of: int | None = None
    share: Num | None = None
    threshold: Num | None = None
    ok: bool | None = None
    applies: bool | None = None
    detail: str | None = None


class ValidityBlock(Block):
    """summary.json's `validity` (scoring/validity.py): is this number a score at all?"""

    valid: bool | None = None
    reasons: list[str] | None = None
    checks: dict[str, ValidityCheck] | None = None


class ErrataCorrection(Block):
    """errata.corrections[i] (reporting/errata_report.py): one corrected field of one question, both labels."""

    question_id: str | None = None
    field: str | None = None
    published: JsonValue = None
    corrected: JsonValue = None
    turn: JsonValue = None
    source: str | None = None
    label_published: bool | None = None
    label_corrected: bool | None = None


class ErrataBlock(Block):
    """summary.json's `errata`, with `[dataset] errata`: the questions corrected and the labels that changed."""

    questions: int | None = None
    corrections: list[ErrataCorrection] | None = None
    labels_changed: int | None = None


class RunSummary(Block):
    """One summary.json (reporting/summary.py documents every key); suites' blocks are extra keys."""

    schema_version: int | None = None
    run_id: str | None = None
    offline: bool | None = None
    notes: list[str] | None = None
    run: RunBlock = Field(default_factory=RunBlock)  # unset (and so never dumped) when the file has none
    qa: QaBlock | None = None
    qa_corrected: QaBlock | None = None   # with [dataset] errata: qa over the corrected gold (reporting/errata_report.py)
    errata: ErrataBlock | None = None
    retrieval: RetrievalBlock | None = None
    cost: CostBlock | None = None
    speed: SpeedBlock | None = None
    counts: CountsBlock | None = None
    attribution: AttributionBlock | None = None
    oracle: OracleBlock | None = None
    validity: ValidityBlock | None = None
    budget: BudgetBlock | None = None
    judge_sensitivity: JudgeSensitivityBlock | None = None
    baselines: BaselinesBlock | None = None

    def usd_total(self) -> Num | None:
        """cost.usd.total: what the run's model calls cost (None when nothing was priced or there is no cost block)."""
        return (self.cost.usd or {}).get("total") if self.cost is not None else None

    def block(self, key: str) -> Any:
        """An extra block by key (None when absent): a `Block` where a suite registered its model, else as written."""
        return (self.__pydantic_extra__ or {}).get(key)


def summary_error(path: Path | str, err: ValidationError) -> str:
    """One line naming the file and the first field that is not as documented."""
    first = err.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(top level)"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return (f"{path}: `{field}` is not as documented: {first['msg']}{more}; `report RUN_DIR` rewrites "
            "summary.json from the run's files (move the broken one aside first)")


def parse_summary(data: dict[str, Any], path: Path | str = "summary.json") -> RunSummary:
    """A summary dict as a RunSummary; a UserError naming `path` and the field when it is not as documented."""
    try:
        return RunSummary.model_validate(data)
    except ValidationError as err:
        raise UserError(summary_error(path, err)) from None


def load_summary(path: Path | str) -> RunSummary:
    """summary.json at `path` as a RunSummary: empty (every block unset) when the file does not exist; a one-line
    UserError naming the file (and the field) when it is not JSON, not an object or not shaped as documented."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RunSummary()
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"{path}: cannot be read ({err})") from None
    try:
        data = load_json(text)
    except ValueError as err:
        raise UserError(f"{path}: not valid JSON ({err}); `report RUN_DIR` rewrites summary.json from the run's "
                        "files (move the broken one aside first)") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a JSON object; `report RUN_DIR` rewrites summary.json from the run's files "
                        "(move the broken one aside first)")
    return parse_summary(data, path)
