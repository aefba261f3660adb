"""The JSON shapes of run-file lines as they are read back raw (json.loads), typed for the readers.

log/records.py's pydantic models build and validate lines; these TypedDicts describe the same lines
for code that reads them without validating (metrics, validity, attribution, the bundle re-derivation),
so a reader states which keys it relies on and mypy checks the spelling. They change no byte written.
Every key is optional (`total=False`): lines of older versions and of other suites lack some, so a
reader still uses `.get()` for the keys a line may not carry, and indexes only what it has checked.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.log.fact_lines import CaseScoreDict

# Any JSON value a line holds where the shape is open by nature (a tool call's arguments, a suite's block)
Json = str | int | float | bool | None | list["Json"] | dict[str, "Json"]


class TokenCounts(TypedDict, total=False):
    """One role's tokens on a line (`tokens.<role>`), or the judge's under `grade.tokens`."""

    input: int
    output: int
    cache_read: int
    cache_write: int


class AutoevalLabel(TypedDict):
    """LongMemEval's own field: which model judged, and its verdict."""

    model: str
    label: bool


class GradeLine(TypedDict, total=False):
    """A results line's `grade` object (scoring/records.py documents each key)."""

    judge: str
    model: str | None
    reason: str
    attempts: int
    unjudged: bool
    template: str | None
    reply: str | None
    score: float | None
    tokens: TokenCounts
    judge_error: str
    covers: list[str] | None                   # a rubric suite's grade: the dimensions its score covers


class RetrievedHit(TypedDict, total=False):
    """One search hit a results line keeps under `retrieved` (rank 1 first)."""

    entry_id: str
    score: float | None
    rank: int
    session_id: str | None
    session_date: str | None
    turn_index: int | None
    role: str | None
    summary: str
    raw_entry: str | None                      # kept by older versions (now dropped before the line is written)


class EvidenceText(TypedDict, total=False):
    """One evidence turn's text a results line keeps under `evidence`."""

    session_id: str
    turn_index: int
    session_date: str | None
    role: str
    content: str


class BudgetCutLine(TypedDict, total=False):
    """A results line's `budget_cut` (graph/budget.py BudgetCut): what the token budget took out."""

    hits_dropped: int
    tokens_before: int
    text_cut: bool


class HistoryCutLine(TypedDict, total=False):
    """A baseline results line's `history_cut` (verbs/baseline_history.py HistoryCut)."""

    sessions: int
    sessions_dropped: int
    messages_dropped: int
    tokens_before: int
    tokens_after: int


class Erratum(TypedDict, total=False):
    """One checked gold correction (errata/check.py), as a case carries it (with `question_id`) and a results
    line keeps it under `errata` (without; a corrected answer adds the label and grade judged against it)."""

    question_id: str
    field: str                                 # "answer" | "evidence" | "category"
    published: Json
    corrected: Json
    turn: str
    source: str
    fields: dict[str, Json]                    # the results-line keys the correction sets
    label: bool | None
    grade: GradeLine


class RubricLine(TypedDict, total=False):
    """A rubric suite's results-line `rubric` (scoring/rubric.py RubricGrade, as written): per-dimension scores."""

    question_id: str
    scores: dict[str, float | None]
    overall: float | None
    overall_covers: list[str]
    graded_dimensions: list[str]
    ungraded_dimensions: list[str]
    reasons: dict[str, str]
    votes: dict[str, list[dict[str, Json]]]
    abstained: bool
    judge: str | None
    reason: str


class LevelScoring(TypedDict):
    """A results line's `level_scoring`: a level's own score of the question (L14 stale values, L16 decision),
    which replaces the rubric's; each level adds its own keys."""

    score: float


class LocomoScores(TypedDict):
    """A results line's `locomo` key: the category, its name, F1 and BLEU-1 (None for category 5)."""

    category: str
    category_name: str
    f1: float | None
    bleu1: float | None
    f1_gold: NotRequired[str]              # the part of the gold F1 compared with, when not all of it
    adversarial_answer: NotRequired[str]   # category 5: the trap answer the judge was told


class ResultLine(TypedDict, total=False):
    """A results.jsonl line: the answers line, its grading, retrieval and attribution keys, a suite's block."""

    schema_version: int
    case_id: str
    question_id: str
    question_type: str
    category: str | int
    kind: str
    level: str | None
    seed: int | None
    question_key: str | None
    is_abstention: bool
    question: str
    answer: Json
    question_date: str | None
    hypothesis: str
    answer_session_ids: list[str]
    evidence_turns: list[list[str | int]]
    evidence_messages: list[list[str | int]]   # older lines' name for evidence_turns
    mode: str
    offline: bool
    label: bool | None
    autoeval_label: AutoevalLabel | None
    grade: GradeLine
    evidence: list[EvidenceText]
    retrieved: list[RetrievedHit] | None
    top_k: int | None
    hits_returned: int
    hits_traced: int | None                    # a mapped server's hits traced to a dataset message (None: Mycelian)
    memory_server: str | None                  # the mapped memory server's name (None: Mycelian)
    hits_trimmed: int
    reader_context: str
    context_chars: int                         # the reader's context, in characters
    round: int | None                          # an adversarial round's question (not the dataset's own)
    agent: dict[str, str]                      # an outside agent that answered: {"type", "name"}
    index_searchable: bool | None
    memory_id: str
    tokens: dict[str, TokenCounts]
    cost_usd: dict[str, float | None]
    attribution: str | None
    evidence_seen: str
    evidence_written: str
    explanation: str
    errata: list[Erratum]                      # [dataset] errata: this question's corrections
    locomo: LocomoScores                       # the LoCoMo suite's lexical scores (f1, bleu1)
    evidence_dropped: list[Json]               # a suite's evidence ids that name nothing (LoCoMo: {id, reason})
    evidence_repaired: list[Json]              # LoCoMo's evidence ids read with a slip repaired: {id, as}
    beam: dict[str, Json]                      # BEAM's rubric block (ability, score, dimensions)
    # what reporting/ reads besides (usage_blocks.py speed_block, budget.py, compare.py): graph/qa.py and
    # graph/budget.py write them
    timings: dict[str, float | None]           # ingest_s, qa_s, eval_s, search_ms
    tool_latency_ms: list[float]
    alpha: float | None                        # the search alpha sent (None: the service's)
    context_tokens: int
    context_tokens_source: str                 # "harness" | "agent"
    context_budget_tokens: int
    budget_cut: BudgetCutLine
    over_budget: bool
    history_cut: HistoryCutLine                # a full-context baseline's line (verbs/baseline_history.py)
    score: float | None                        # a scored suite's per-question score (levels, long-horizon: mean_scores)
    # the suites' own grading keys (their Scorer.score writes them) and what their scoring reads
    rubric: RubricLine                         # long-horizon, levels: the rubric's per-dimension grade
    level_scoring: LevelScoring | None         # levels: the level's own score of the question (None: the rubric's)
    fact_score: CaseScoreDict                  # fact extraction: the case's matched facts and P / R / F1
    extracted_facts: list[str]                 # fact extraction: the facts read back from the agent's writes
    new_entries: list[dict[str, Json]]         # fact extraction's answers line: the entries the agent wrote
    latest_context: str                        # fact extraction's answers line: the memory's context document
    evidence_message_ids: list[str]            # BEAM: the evidence message ids its file names
    adversarial_answer: str                    # LoCoMo category 5: the trap answer its judge is told
    failed_turns: int                          # turns whose ingestion failed (score's caller says how many)


class DecisionLine(TypedDict, total=False):
    """A decisions.jsonl line (DecisionRecord.to_line()'s shape)."""

    schema_version: int
    case_id: str
    caller: str
    tool: str
    question_id: str | None
    session_id: str | None
    turn: int | None
    args: dict[str, Json]
    result_preview: str | None
    latency_ms: float | None
    error: str | None
    batch: int


class ErrorLine(TypedDict, total=False):
    """An errors.jsonl line (ErrorRecord): a case that failed."""

    schema_version: int
    case_id: str
    error: str
    traceback: str


class MemoryLine(TypedDict, total=False):
    """A memories.jsonl line (MemoryRecord): one status change of a case's memory."""

    schema_version: int
    case_id: str
    memory_id: str
    vault_id: str
    title: str
    attempt: int
    status: str
    ingested: bool
    entries: int
    stored: int | None
    failed_turns: int
    ingest_s: float
    agent_usage: dict[str, Json] | None  # the memory agent's tokens and cost (the ledger reads it)
    context_cadence: int | None
    held_by: str | None


class ManifestDataset(TypedDict, total=False):
    name: str
    kind: str
    description: str
    sha256: str | None
    questions: int
    path: str | None
    seeds: list[int]
    # a suite's own keys (DatasetPlan.details: BEAM's size and conversations, LoCoMo's evidence, errata)
    size: str
    conversations: Json
    chat_tokens_estimate: int
    evidence: Json
    errata: dict[str, Json]
    # `judge-online`'s source of extraction runs ([online]; kind "online")
    source: str
    project: str | None
    run_dir: str | None
    tag: str
    since: str
    until: str


class ManifestConfig(TypedDict, total=False):
    """`RunConfig.to_manifest()`: the config as run, with what it resolved."""

    config: dict[str, dict[str, Json]]   # the run's TOML as run, section by section
    config_path: str | None
    config_sha256: str | None
    run_id: str
    dataset_kind: str
    dataset_path: str | None
    provider: str
    models: dict[str, str]
    judge: str
    memory_backend: str
    notes: list[str]


class ManifestAttempt(TypedDict, total=False):
    """One start of the run (a resume adds one)."""

    started_at: str
    git_commit: str | None
    executor: str


class ManifestJudge(TypedDict):
    kind: str
    model: str | None
    note: NotRequired[str]               # `judge-online` has none


class ManifestInputs(TypedDict, total=False):
    """The fingerprint a resume compares (run/inputs.py run_inputs): hashes, so it stays small."""

    config: str
    dataset: str
    prompts: dict[str, str]              # prompt file -> sha256
    judge: dict[str, Json]
    thresholds: dict[str, Json]


class ManifestTokens(TypedDict, total=False):
    roles: dict[str, dict[str, float | None]]   # role -> input_tokens, output_tokens, ..., cost_usd


class Manifest(TypedDict, total=False):
    """The keys of manifest.json that run-level figures read (validity, the bundle re-derivation)."""

    run_id: str
    config: ManifestConfig
    dataset: ManifestDataset
    memory: dict[str, Json]              # the memory driver's description (write_tool, ...)
    tokens: ManifestTokens
    # the rest of what run/manifest.py and run/runner.py write (docs/run-files.md)
    schema_version: int
    status: str
    started_at: str
    ended_at: str | None
    attempts: list[ManifestAttempt]
    package_version: str
    git_commit: str | None
    python: str
    platform: str
    packages: dict[str, str]
    config_path: str
    config_sha256: str
    models: dict[str, Json]
    judge: ManifestJudge
    executor: dict[str, Json]
    thresholds: dict[str, Json]
    inputs: ManifestInputs
    replay: dict[str, Json]
    tracing: dict[str, Json]
    agent: dict[str, Json]               # an outside agent's description (agent = "outside")
    batches_submitted: list[str]
    wall_s: float                        # `judge-online`: this attempt's seconds and items judged
    judged_now: int
