"""The JSON shapes of run-file lines as they are read back raw (json.loads), typed for the readers.

log/records.py's pydantic models build and validate lines; these TypedDicts describe the same lines
for code that reads them without validating (metrics, validity, attribution, the bundle re-derivation),
so a reader states which keys it relies on and mypy checks the spelling. They change no byte written.
Every key is optional (`total=False`): lines of older versions and of other suites lack some, so a
reader still uses `.get()` for the keys a line may not carry, and indexes only what it has checked.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

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


class EvidenceText(TypedDict, total=False):
    """One evidence turn's text a results line keeps under `evidence`."""

    session_id: str
    turn_index: int
    session_date: str | None
    role: str
    content: str


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
    mode: str
    offline: bool
    label: bool | None
    autoeval_label: AutoevalLabel | None
    grade: GradeLine
    evidence: list[EvidenceText]
    retrieved: list[RetrievedHit] | None
    top_k: int | None
    hits_returned: int
    hits_trimmed: int
    reader_context: str
    round: int | None                          # an adversarial round's question (not the dataset's own)
    agent: str                                 # an outside agent's name
    index_searchable: bool | None
    memory_id: str
    tokens: dict[str, TokenCounts]
    cost_usd: dict[str, float | None]
    attribution: str | None
    evidence_seen: str
    evidence_written: str
    explanation: str
    locomo: dict[str, float | None]            # the LoCoMo suite's lexical scores (f1, bleu1)
    beam: dict[str, Json]                      # BEAM's rubric block (ability, score, dimensions)


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
