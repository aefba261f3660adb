"""The TOML schema: frozen pydantic models (one per table, every key defaulted and bounded) and
the rules that relate several keys (provider vs models, backend vs mcp_url, judge vs eval model).

Nothing here touches the filesystem: `config.py` reads the file, resolves paths and finds the
dataset, and turns pydantic's errors into messages that name the TOML key. Models are strict so
that `"5"` is not quietly read as 5 nor `1` as `true`; arrays are tuples so configs are immutable.
"""

from __future__ import annotations

import re
import string
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple
from urllib.parse import urlparse

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from benchmarker.metric_names import AUTO, canonical, metric_problem
from benchmarker.redact import is_secret_name

LONGMEMEVAL_VARIANTS = ("s", "m", "oracle")
DEFAULT_DATASET_KIND = "sample"       # a config naming no data runs the generated sample
DATA_FILE_KIND = "longmemeval"        # a config naming a data file (or a clone) without a kind
ALL_LEVELS = tuple(f"L{i}" for i in range(1, 17))
PHASES = ("ingest", "qa", "eval")
OFFLINE_AGENT, OFFLINE_READER = "offline-memory-agent", "offline-reader"
TITLE_PLACEHOLDERS = ("question_id", "case_id", "run_id")
# Mycelian's rule for vault and memory titles. The embedded service states the same one itself
# (embedded_memory/validation.py: it imports nothing of the harness, and this earlier stage may
# not import the service); tests/test_import_graph.py keeps the two equal.
MYCELIAN_TITLE = re.compile(r"^[A-Za-z0-9-]{1,50}$")

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")


def _seq(default: tuple = ()) -> Any:
    """A TOML array read as an immutable tuple (the tuple is lax about list input; items stay strict)."""
    return Field(default=default, strict=False)


def each_once(value: tuple) -> tuple:
    """`value` when no item repeats; else the repeats, named (a list key where order means nothing)."""
    dupes = sorted({str(v) for v in value if value.count(v) > 1})
    if dupes:
        raise ValueError(f"duplicate values {', '.join(dupes)}; list each once")
    return value


def is_http_url(value: str) -> bool:
    parsed = urlparse(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def _check_url(value: str) -> str:
    if value and not is_http_url(value):
        raise ValueError("expected an http(s) URL such as http://localhost:11546/mcp")
    return value


def _check_env_name(value: str) -> str:
    if not _ENV_NAME.match(value):
        raise ValueError("expected an environment variable NAME such as OPENAI_API_KEY, not a value")
    return value


UrlStr = Annotated[str, AfterValidator(_check_url)]
EnvName = Annotated[str, AfterValidator(_check_env_name)]


class _Table(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


# Keys that moved from DatasetConfig into their suites' options models (suites/<name>/options.py), with the
# defaults they had. A dump of `[dataset]` still writes each of them where it stood, at its value or this
# default, so every run id and manifest written before the move keeps its bytes (config.py's migration).
LEGACY_DATASET_KEYS: dict[str, Any] = {
    "variant": "s", "questions_per_type": 2, "sessions_per_question": 8, "turns": 300, "questions": 40,
    "holdout": False, "levels": ALL_LEVELS,
}
DATASET_KEYS_AS_DUMPED = ("kind", "variant", "file", "seed", "seeds", "questions_per_type", "sessions_per_question",
                          "turns", "questions", "holdout", "levels", "errata")


class DatasetConfig(_Table):
    """The keys every suite reads; a suite's own keys are its `Suite.data.options` model, checked by
    config.py once the kind is known (any other key is "unknown key")."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    kind: str = DEFAULT_DATASET_KIND      # a discovered suite: config.py checks it (benchmarker/registry.py)
    file: str = ""
    seed: int = 42
    seeds: tuple[int, ...] = _seq()
    errata: str = ""   # a JSON-lines file of gold corrections (benchmarker/errata); the run id hashes its bytes

    @field_validator("seeds")
    @classmethod
    def _unique(cls, value: tuple) -> tuple:
        return each_once(value)

    @model_serializer(mode="wrap")
    def _legacy_layout(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict[str, Any]:
        """The table as it was dumped before the suites' keys moved out: the same keys in the same order."""
        dumped: dict[str, Any] = handler(self)
        out: dict[str, Any] = {}
        for key in DATASET_KEYS_AS_DUMPED:
            if key in dumped:
                out[key] = dumped.pop(key)
            elif key in LEGACY_DATASET_KEYS:
                default = LEGACY_DATASET_KEYS[key]
                out[key] = list(default) if info.mode_is_json() and isinstance(default, tuple) else default
        return out | dumped


class OpenAIConfig(_Table):
    base_url: UrlStr = ""
    api_key_env: EnvName = "OPENAI_API_KEY"


class BedrockConfig(_Table):
    region: str = "us-west-2"

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        if not _REGION.match(value):
            raise ValueError('expected an AWS region such as "us-west-2" (required for bedrock)')
        return value


class AnthropicConfig(_Table):
    base_url: UrlStr = ""
    api_key_env: EnvName = "ANTHROPIC_API_KEY"


class ProviderConfig(_Table):
    type: Literal["openai", "bedrock", "anthropic", "offline"] = "offline"
    openai: OpenAIConfig = OpenAIConfig()
    bedrock: BedrockConfig = BedrockConfig()
    anthropic: AnthropicConfig = AnthropicConfig()


class ModelsConfig(_Table):
    agent: str = Field(OFFLINE_AGENT, min_length=1)
    qa: str = Field(OFFLINE_READER, min_length=1)
    eval: str = ""
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(1024, ge=1, le=200_000)


class ParamsConfig(_Table):
    top_k: int = Field(10, ge=1, le=100)
    use_llm_judge: bool = True
    max_tool_calls_per_turn: int = Field(5, ge=1, le=50)
    memory_title_template: str = "{question_id}__{run_id}"
    context_cadence: int = Field(6, ge=1, le=100)
    qa_max_context_chars: int = Field(16000, ge=500, le=2_000_000)
    consistency_timeout_s: float = Field(60.0, gt=0.0, le=3600.0)
    recursion_limit: int = Field(40, ge=5, le=1000)

    @field_validator("memory_title_template")
    @classmethod
    def _template(cls, value: str) -> str:
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        except ValueError as exc:
            raise ValueError(f"not a valid template ({exc}); e.g. \"{{question_id}}__{{run_id}}\"") from exc
        unknown = sorted(names - set(TITLE_PLACEHOLDERS))
        if unknown:
            raise ValueError(f"unknown placeholder {{{unknown[0]}}}; allowed: "
                             + ", ".join(f"{{{p}}}" for p in TITLE_PLACEHOLDERS))
        if not names & {"question_id", "case_id"}:
            raise ValueError("must contain {question_id} or {case_id} so each memory gets its own title")
        return value


MEMORY_AGENT_TOOLS = ("get_context", "list_entries", "add_entry", "put_context", "await_consistency",
                      "search_memories")  # what Mycelian's capture rules use; the other 7 tools cost tokens only
INGEST_UNITS = ("message", "exchange", "session")


AGENT_TYPES = ("memory_agent", "http", "subprocess")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")  # an HTTP token (RFC 9110)
_CREDENTIAL_VALUE = re.compile(r"^\s*(Bearer|Basic|Token)\s+\S", re.IGNORECASE)
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._:/@+-]{0,63}$")


def _check_label(value: str) -> str:
    if not _LABEL.match(value):
        raise ValueError('expected a short label (letters, digits, " ._:/@+-", at most 64), e.g. name = "my-agent"')
    return value


def _check_header_names(value: dict[str, Any]) -> dict[str, Any]:
    bad = sorted(name for name in value if not _HEADER_NAME.match(name))
    if bad:
        raise ValueError(f"{bad[0]!r} is not an HTTP header name (letters, digits and -, e.g. X-Agent-Mode)")
    return value


def _check_plain_headers(value: dict[str, str]) -> dict[str, str]:
    for name, text in value.items():
        if "\r" in text or "\n" in text or len(text) > 4096:
            raise ValueError(f"header {name!r}: a value must be one line of at most 4096 characters")
        if _CREDENTIAL_VALUE.match(text):
            raise ValueError(f"header {name!r} holds a credential; secrets are never read from the config file: "
                             "export it and name the variable in [agent.http.header_env], "
                             f'e.g. {name} = "MY_AGENT_TOKEN"')
    return value


def _check_env_names(value: dict[str, str]) -> dict[str, str]:
    bad = sorted(name for name in value if not _ENV_NAME.match(name))
    if bad:
        raise ValueError(f"{bad[0]!r} is not an environment variable name (e.g. AGENT_MODE)")
    return value


def _check_args(value: tuple[str, ...]) -> tuple[str, ...]:
    for arg in value:
        flag = arg.split("=", 1)[0]
        if arg.startswith("-") and is_secret_name(flag.lstrip("-")):
            raise ValueError(f"{flag!r} passes a credential on the command line (visible to every user and "
                             "written to the manifest); have the program read it from an environment variable "
                             "instead (the process inherits the harness's environment)")
    return value


Label = Annotated[str, AfterValidator(_check_label)]


class AgentHttpConfig(_Table):
    """`[agent.http]`: an agent under test behind POST /learn, /answer, /reset (HttpAgentSettings)."""

    base_url: UrlStr = ""
    name: Label = "http"
    # header name -> the NAME of the environment variable holding its value (never the value)
    header_env: Annotated[dict[str, EnvName], AfterValidator(_check_header_names)] = Field(
        default_factory=dict, strict=False, max_length=50)
    headers: Annotated[dict[str, str], AfterValidator(_check_header_names),  # non-secret headers, sent as written
                       AfterValidator(_check_plain_headers)] = Field(default_factory=dict, strict=False, max_length=50)
    timeout_s: float = Field(60.0, gt=0.0, le=3600.0)
    max_attempts: int = Field(3, ge=1, le=20)
    initial_backoff_s: float = Field(0.5, ge=0.0, le=600.0)
    max_backoff_s: float = Field(10.0, ge=0.0, le=3600.0)


class AgentSubprocessConfig(_Table):
    """`[agent.subprocess]`: an agent under test run as a child process speaking JSON Lines."""

    command: str = Field("", max_length=4096)
    args: Annotated[tuple[Annotated[str, Field(max_length=4096)], ...], AfterValidator(_check_args)] = _seq()
    # added to the harness's own environment, which the process inherits (so secrets stay there)
    env: Annotated[dict[str, Annotated[str, Field(max_length=32_768)]], AfterValidator(_check_env_names)] = Field(
        default_factory=dict, strict=False, max_length=100)
    cwd: str = ""  # relative to the config file's folder; "" = that folder
    name: Label = "subprocess"
    timeout_s: float = Field(120.0, gt=0.0, le=86_400.0)
    close_grace_s: float = Field(5.0, gt=0.0, le=600.0)


class AgentConfig(_Table):
    """Which agent is under test: ours (`memory_agent`: how it is called, what it sees per call, how
    its prompt prefix is cached) or an outside one reached over HTTP or as a subprocess."""

    type: Literal["memory_agent", "http", "subprocess"] = "memory_agent"
    http: AgentHttpConfig = AgentHttpConfig()
    subprocess: AgentSubprocessConfig = AgentSubprocessConfig()
    prompt_cache: bool = True
    tools: tuple[str, ...] = _seq(MEMORY_AGENT_TOOLS)
    ingest_unit: Literal["message", "exchange", "session"] = "message"
    # "harness": add_entry names the message, the harness stores its exact text (the model never re-types it)
    raw_entry: Literal["model", "harness"] = "model"
    # "session": the context once per session (every context_every_sessions-th), in the writing reply
    context_update: Literal["cadence", "session"] = "cadence"
    context_every_sessions: int = Field(1, ge=1, le=10_000)

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: tuple) -> tuple:
        if not value:
            raise ValueError('must not be empty; e.g. tools = ["add_entry", "get_context", "put_context"]')
        dupes = sorted({v for v in value if value.count(v) > 1})
        if dupes:
            raise ValueError(f"lists {', '.join(dupes)} twice; list each tool once")
        return value  # the write tool it must include depends on [memory] (checked with the mapping)


class MemoryConfig(_Table):
    backend: Literal["embedded", "mcp"] = "embedded"
    mcp_url: UrlStr = ""
    rest_url: UrlStr = ""
    auth_token_env: EnvName = "MYCELIAN_API_KEY"
    alpha: float = Field(0.6, ge=0.0, le=1.0)
    embedder: Literal["minilm", "static", "ollama", "openai", "none"] = "static"
    db_path: str = ""
    index_lag_ms: int = Field(0, ge=0, le=600_000)
    placeholder_context: bool = True
    search_alpha: float = -1.0
    # embedded service only (Mycelian's own settings live on its server)
    vector_cache_mb: int = Field(512, ge=1, le=1_000_000)
    embed_batch_size: int = Field(32, ge=1, le=4096)
    # retrieval ingestion and replay: entries per add_entries call on a server that lists that tool (the embedded
    # service); 0 = one add_entry per message. Speed only: the same entries, tags, order and search results
    write_batch: int = Field(256, ge=0, le=1000)
    # where the minilm embedder runs: "auto" = CUDA when torch sees a device, else CPU (speed, not results)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    # the longest consistency wait: the embedded service's own limit, and (plus a margin) how long the
    # harness waits for any server's await_consistency or a mapping's consistency tool
    await_timeout_s: float = Field(600.0, gt=0.0, le=86_400.0)
    call_timeout_s: float = Field(60.0, gt=0.0, le=3600.0)  # any other memory tool call's reply
    # which server speaks which tools: a shipped preset, or a mapping file of your own
    preset: str = Field("mycelian", pattern=r"^[A-Za-z0-9_.-]+$")
    mapping: str = ""
    # how the harness reaches the server: "" = the preset's way (Mycelian: streamable HTTP)
    transport: Literal["", "streamable_http", "stdio"] = ""
    command: str = ""                              # stdio: the server command (default: the preset's)
    # stdio: its arguments and extra environment (default: the preset's; no secrets: they are refused)
    args: Annotated[tuple[str, ...], AfterValidator(_check_args)] = _seq()
    env: Annotated[dict[str, str], AfterValidator(_check_env_names)] = Field(default_factory=dict)
    # any server: the longest wait for MCP initialize and the tool list (a server stuck at start fails then)
    start_timeout_s: float = Field(60.0, gt=0.0, le=3600.0)
    # a mapped server: the largest tool result the harness reads (a larger one fails the call, and the case)
    max_result_mb: int = Field(16, ge=1, le=1024)
    # embedded service: store entries and contexts as written, credentials included (default: masked, like
    # every file of the run; docs/run-files.md)
    store_secrets: bool = False

    @field_validator("search_alpha")
    @classmethod
    def _search_alpha(cls, value: float) -> float:
        if value != -1.0 and not 0.0 <= value <= 1.0:
            raise ValueError("expected -1 (service default) or a number in 0..1")
        return value


class RunSection(_Table):
    mode: Literal["agent", "retrieval"] = "agent"
    phases: tuple[Literal["ingest", "qa", "eval"], ...] = _seq(PHASES)
    question_ids: tuple[str, ...] = _seq()
    question_types: tuple[str, ...] = _seq()
    limit: int = Field(0, ge=0)
    sample: int = Field(0, ge=0)
    sample_seed: int = 42
    concurrency: int = Field(1, ge=1, le=64)
    output_dir: str = Field("runs", min_length=1)
    progress: bool = True
    progress_interval_s: float = Field(30.0, ge=1.0, le=3600.0)  # not on a terminal: a status line at least this often
    max_failures_in_a_row: int = Field(5, ge=1, le=10_000)  # stop a run whose cases keep failing
    # The reader's context in cl100k_base tokens (graph/budget.py): 0 = measured only; set, lowest-ranked hits go.
    context_budget_tokens: int = Field(0, ge=0, le=10_000_000)
    # Where cases run: in this process (asyncio), or spread over Ray actors (run/ray_executor.py).
    # None of these keys changes what a run computes, so a run resumes under either executor.
    executor: Literal["local", "ray"] = "local"
    ray_address: str = ""            # "" = a local Ray the harness starts; "auto"; "ray://host:10001"
    workers: int = Field(2, ge=1, le=1024)   # Ray actors, each with its own memory service and models
    worker_cpus: float = Field(1.0, ge=0.0)  # per-actor Ray resources
    worker_gpus: float = Field(0.0, ge=0.0)
    worker_memory_mb: int = Field(0, ge=0)   # 0: no memory reservation
    worker_resources: dict[str, float] = Field(default_factory=dict)  # custom Ray resources, e.g. {node_pool = 1}
    case_retries: int = Field(2, ge=0, le=100)  # re-runs of a case whose Ray worker died under it

    @field_validator("phases")
    @classmethod
    def _phases(cls, value: tuple) -> tuple:
        if not value:
            raise ValueError('must not be empty; e.g. phases = ["qa", "eval"]')
        if len(set(value)) != len(value):
            raise ValueError("lists a phase twice; list each of ingest, qa, eval at most once")
        return tuple(p for p in PHASES if p in value)  # always run in pipeline order

    @field_validator("question_ids", "question_types")
    @classmethod
    def _no_blank(cls, value: tuple) -> tuple:
        if any(not v.strip() for v in value):
            raise ValueError("contains an empty string")
        return value


Weight = Annotated[float, Field(ge=0.0, le=1.0)]
RUBRIC_WEIGHTS = {"factual_accuracy": 0.5, "specificity": 0.1, "temporal_awareness": 0.15,
                  "source_attribution": 0.1, "confidence_calibration": 0.15}
DECISION_WEIGHTS = {"decision": 0.5, "reasoning": 0.3, "recall": 0.2}
TRACE_WEIGHTS = {"selection": 0.4, "order": 0.3, "args": 0.3}


def _weights(names: dict[str, float]):
    """A validator for a weights table: only the known names, at least one weight above zero."""

    def check(value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"unknown name {unknown[0]!r}; allowed: {', '.join(names)}")
        merged = {**names, **value}
        if sum(merged.values()) <= 0:
            raise ValueError("all weights are 0; at least one must be above 0")
        return merged

    return AfterValidator(check)


class ThresholdsConfig(_Table):
    """Every number that decides a score. Defaults are the documented ones; the manifest records
    the values used, and changing one starts a new run (the run id hashes them)."""

    pass_score: Weight = 0.5            # a rubric / level score at or above this counts as correct
    answer_f1: Weight = 0.8             # deterministic LongMemEval grader: token F1 for a match
    preference_recall: Weight = 0.3     # deterministic grader: rubric recall for a preference answer
    preference_named: Weight = 0.5      # deterministic grader: share of the rubric's named details a preference answer uses
    rubric_penalty: Weight = 0.5        # rubric: minus this per forbidden or stale value
    stale_penalty: Weight = 0.5         # L14: minus this per stale value presented as current
    fact_match: Weight = 0.6            # fact matcher: similarity at or above this is a match
    fact_term_weight: Weight = 0.7      # fact matcher: share of the similarity carried by key terms
    noise_spread: Weight = 0.10         # multi-seed: a question whose scores spread more is noisy
    rubric_weights: Annotated[dict[str, Weight], _weights(RUBRIC_WEIGHTS)] = Field(
        default_factory=lambda: dict(RUBRIC_WEIGHTS), strict=False)
    decision_weights: Annotated[dict[str, Weight], _weights(DECISION_WEIGHTS)] = Field(
        default_factory=lambda: dict(DECISION_WEIGHTS), strict=False)
    trace_weights: Annotated[dict[str, Weight], _weights(TRACE_WEIGHTS)] = Field(
        default_factory=lambda: dict(TRACE_WEIGHTS), strict=False)


class EvalConfig(_Table):
    judge: Literal["auto", "llm", "official", "deterministic"] = "auto"
    votes: int = Field(1, ge=1, le=9)
    judge_retries: int = Field(3, ge=0, le=20)
    thresholds: ThresholdsConfig = ThresholdsConfig()


class ValidityConfig(_Table):
    """How much of each failure a run may carry and still be a score (scoring/validity.py): each a share of what
    its check counts (questions, searches, writes or cases). Judges the run's files, so it is not in the run id."""

    unanswered: Weight = 0.0          # selected questions with no answer (a crashed or skipped case)
    unjudged: Weight = 0.0            # answered questions with no verdict (no results line, or label null)
    judge_errors: Weight = 0.0        # verdicts lost because every judge call raised
    judge_refusals: Weight = 0.0      # verdicts lost because the judge never said yes or no
    reader_errors: Weight = 0.0       # questions searched whose reader call failed
    agent_errors: Weight = 0.0        # cases an outside agent failed by its protocol (AdapterError)
    memory_replaced: Weight = 0.0     # cases whose memory was gone or emptied at question time
    not_searchable: Weight = 0.0      # questions on an index that never became searchable
    search_errors: Weight = 0.01      # searches that raised (a transient error is tolerated this much)
    search_timeouts: Weight = 0.01    # searches that timed out
    search_empty: Weight = 0.5        # searches with no hit although the memory holds entries (keyword search misses some)
    write_failures: Weight = 0.05     # memory writes the server refused or failed
    hits_above_top_k: Weight = 1.0    # searches that returned more than top_k (trimmed before the reader: counted)
    reader_above_top_k: Weight = 0.0  # answers whose reader saw more hits than top_k (not trimmed)


class RetryConfig(_Table):
    max_attempts: int = Field(6, ge=1, le=50)
    initial_backoff_s: float = Field(1.0, gt=0.0, le=600.0)
    max_backoff_s: float = Field(60.0, gt=0.0, le=3600.0)
    request_timeout_s: float = Field(300.0, gt=0.0, le=3600.0)  # a model call unanswered this long fails (retried)


class Price(_Table):
    """USD per million tokens. A missing `cached_input` prices cache reads at `input` and a missing
    `cache_write` prices cache writes at `input` (the ledger says so in `price_notes`)."""

    input: float = Field(ge=0.0)
    output: float = Field(ge=0.0)
    cached_input: float | None = Field(None, ge=0.0)
    cache_write: float | None = Field(None, ge=0.0)


class BatchConfig(_Table):
    """The providers' batch APIs for calls nobody waits on (agent/batch/): the reader (`qa`) and the
    judge's model (`eval`: the judge and every other eval-role call). About half the price; a batch
    can take up to 24 hours. Cases waiting on a batch give their place among `[run] concurrency` back."""

    qa: bool = False
    eval: bool = False
    poll_s: float = Field(30.0, gt=0.0, le=3600.0)           # how often a batch's status is read
    max_wait_s: float = Field(90_000.0, gt=0.0, le=604_800.0)  # then the case fails; a rerun picks the batch up
    max_requests: int = Field(1000, ge=1, le=50_000)          # a batch is sent when this many calls wait ...
    collect_s: float = Field(60.0, ge=0.0, le=86_400.0)       # ... or this long after the first one
    price_factor: float = Field(0.5, gt=0.0, le=1.0)          # batch price / normal price (0.5: OpenAI, Anthropic)
    # Bedrock batch inference reads its input from S3 and writes there, as the IAM role lets it.
    bedrock_role_arn: str = ""
    bedrock_s3_uri: str = ""       # s3://bucket/prefix
    bedrock_endpoint_url: UrlStr = ""  # "" = the region's; a VPC endpoint or a local stand-in
    s3_endpoint_url: UrlStr = ""

    @field_validator("bedrock_s3_uri")
    @classmethod
    def _s3(cls, value: str) -> str:
        if value and not re.fullmatch(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?", value):
            raise ValueError(f'got {value!r}; use "s3://bucket/prefix"')
        return value


class BaselinesConfig(_Table):
    """`baselines RUN_DIR`: the no-memory and full-context readers beside a run (verbs/baselines.py)."""

    full_context_tokens: int = Field(120_000, ge=1_000, le=2_000_000)  # the history's cut, oldest sessions first


class TracingConfig(_Table):
    """LangSmith traces of a run (agent/tracing.py). The key comes from the environment variable
    `api_key_env` names, never from the file; with `langsmith = false` nothing is traced at all,
    even when LANGSMITH_TRACING is set in the environment."""

    langsmith: bool = False
    project: str = Field("mycelian-longmemeval", min_length=1)
    tags: tuple[str, ...] = _seq()
    sample_rate: float = Field(1.0, ge=0.0, le=1.0)   # share of cases traced (whole cases, seeded by run id and case id)
    endpoint: UrlStr = ""                              # "" = LANGSMITH_ENDPOINT, else LangSmith's cloud
    api_key_env: str = Field("LANGSMITH_API_KEY", min_length=1)
    memory_before_max: int = Field(50, ge=0, le=10_000)  # entries of "the memory before" on an ingestion trace


class OnlineConfig(_Table):
    """`judge-online`: the fact-enumeration judge over traced extraction runs (verbs/judge_online.py)."""

    source: Literal["langsmith", "run_dir"] = "langsmith"
    project: str = ""                 # "" = [tracing].project
    tag: str = Field("memory_extraction", min_length=1)
    since: str = ""                   # ISO 8601 time, or a duration back from now: "24h", "7d", "90m"
    until: str = ""
    run_dir: str = ""                 # source "run_dir": the finished run whose decisions.jsonl is audited
    limit: int = Field(0, ge=0)       # 0 = every matching run
    post_feedback: bool = False       # write P / R / F1 back as LangSmith feedback on each run
    feedback_key: str = Field("memory_extraction", min_length=1)

    @field_validator("since", "until")
    @classmethod
    def _when(cls, value: str) -> str:
        if value.strip() and not re.fullmatch(r"\s*\d+(\.\d+)?\s*[mhdw]\s*", value):
            try:
                datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                raise ValueError(f"got {value!r}; use an ISO 8601 time (2026-11-01T00:00:00Z) or a duration "
                                 "back from now (90m, 24h, 7d, 2w)") from None
        return value


class MultiAgentConfig(_Table):
    """Extra agents over a run's results (issue 17). `analyst`: say, for each wrong answer, where the
    memory lost it (scoring/analyst.py), deterministically from the run's logs."""

    analyst: bool = False
    # A model-written explanation (the judge's model) of each wrong answer's diagnosis, for at most
    # `explain_max` wrong answers per run (the first ones, in results order): analyst.jsonl.
    analyst_explain: bool = False
    explain_max: int = Field(50, ge=1, le=100_000)
    # The adversary: `rounds` of verified questions aimed at the weakest categories.
    adversary: bool = False
    rounds: int = Field(1, ge=1, le=5)
    adversary_questions: int = Field(20, ge=1, le=500)   # per case and round
    weak_categories: int = Field(3, ge=1, le=17)          # how many of the weakest categories to aim at
    # Who proposes: the generator's own unasked questions (long-horizon only), or the judge's model
    # ([models].eval; long-horizon fact records, or the evidence turns of LongMemEval / LoCoMo / level
    # cases). The harness verifies every proposal against the dialogue before asking it.
    proposer: Literal["generator", "model"] = "generator"
    # Graders with perspectives (scoring/graders.py): extra LLM scores beside the main score (needs [models].eval).
    graders: tuple[Literal["quality", "simplicity", "regression"], ...] = _seq()
    baseline_run: str = ""     # `regression`: the run (or sweep point) directory whose answers are the baseline


class SweepConfig(_Table):
    alpha: tuple[Annotated[float, Field(ge=0.0, le=1.0)], ...] = _seq()
    top_k: tuple[Annotated[int, Field(ge=1, le=100)], ...] = _seq()
    # What ranks the points: "auto" (QA accuracy when answers are judged, else the strictest session
    # recall at the largest k every point measures), "accuracy", or e.g. "session.recall_any@5".
    metric: str = "auto"
    # Metrics that break a tie on `metric`, in order (empty: the other recall figures at the common k);
    # then the smaller top_k wins; points equal on all of these are reported as a tie.
    tie_break: tuple[str, ...] = _seq()

    @field_validator("alpha", "top_k")
    @classmethod
    def _distinct(cls, value: tuple) -> tuple:
        """Each point is a folder named by its values: a value twice would be two points in one folder."""
        return each_once(value)


def _ladder(value: tuple) -> tuple:
    if len(value) < 2 or list(value) != sorted(set(value)):
        raise ValueError("expected at least two distinct values in increasing order, e.g. [1, 5, 10]")
    return value


class SelfImproveConfig(_Table):
    iterations: int = Field(0, ge=0, le=50)
    holdout_fraction: float = Field(0.5, gt=0.0, lt=1.0)
    min_gain: float = Field(0.0, ge=0.0, le=1.0)
    seed: int = 7
    p_value: float = Field(0.05, gt=0.0, lt=1.0)       # McNemar p below this counts as a real gain
    category_drop: float = Field(0.05, ge=0.0, le=1.0)  # a group falling more than this blocks a keep
    top_k_ladder: Annotated[tuple[Annotated[int, Field(ge=1, le=100)], ...], AfterValidator(_ladder)] = _seq(
        (1, 3, 5, 10, 20, 30, 50))
    alpha_ladder: Annotated[tuple[Annotated[float, Field(ge=0.0, le=1.0)], ...], AfterValidator(_ladder)] = _seq(
        (0.0, 0.25, 0.5, 0.75, 1.0))
    cadence_ladder: Annotated[tuple[Annotated[int, Field(ge=1, le=100)], ...], AfterValidator(_ladder)] = _seq(
        (2, 4, 6, 8, 12, 16))
    max_distance: int = Field(3, ge=1, le=10)           # rungs a proposal may move from the current value


def dataset_shorthand(value: str) -> dict[str, str]:
    """`dataset = "s"` means LongMemEval_S; `dataset = "sample"` names a kind (config.py checks
    that one is discovered)."""
    if value in LONGMEMEVAL_VARIANTS:
        return {"kind": DATA_FILE_KIND, "variant": value}
    return {"kind": value}


class RunConfig(_Table):
    """The whole run.toml. After `load_config`, paths are absolute, `dataset.kind` and
    `dataset.file` are resolved and `run_id` is never empty."""

    dataset_repo_path: str = ""
    dataset: DatasetConfig = DatasetConfig()
    dataset_file: str = ""
    vault_title: str = "longmemeval"
    vault_id: str = ""
    run_id: str = ""
    provider: ProviderConfig = ProviderConfig()
    models: ModelsConfig = ModelsConfig()
    params: ParamsConfig = ParamsConfig()
    agent: AgentConfig = AgentConfig()
    memory: MemoryConfig = MemoryConfig()
    run: RunSection = RunSection()
    eval: EvalConfig = EvalConfig()
    retry: RetryConfig = RetryConfig()
    prices: dict[str, Price] = Field(default_factory=dict)
    sweep: SweepConfig = SweepConfig()
    self_improve: SelfImproveConfig = SelfImproveConfig()
    tracing: TracingConfig = TracingConfig()
    online: OnlineConfig = OnlineConfig()
    multi_agent: MultiAgentConfig = MultiAgentConfig()
    batch: BatchConfig = BatchConfig()
    validity: ValidityConfig = ValidityConfig()
    baselines: BaselinesConfig = BaselinesConfig()

    _config_path: str = PrivateAttr("")
    _config_sha256: str = PrivateAttr("")
    _errata_sha256: str = PrivateAttr("")
    _notes: tuple[str, ...] = PrivateAttr(())

    @property
    def effective_run_id(self) -> str:
        """The run id in use: `run_id` from the file, else `<stem>-<8 hex of canonical hash>`."""
        return self.run_id

    @property
    def config_path(self) -> Path | None:
        return Path(self._config_path) if self._config_path else None

    @property
    def config_sha256(self) -> str:
        """sha256 of the config file's bytes (the manifest records exactly what was run)."""
        return self._config_sha256

    @property
    def errata_sha256(self) -> str:
        """sha256 of the `[dataset] errata` file's bytes ("" without one): the run id hashes it, not its path."""
        return self._errata_sha256

    @property
    def notes(self) -> tuple[str, ...]:
        """Things worth telling the user that are not errors (e.g. keys a mode ignores)."""
        return self._notes

    @property
    def dataset_path(self) -> Path | None:
        """The resolved data file (LongMemEval JSON or custom fact cases); None when generated."""
        return Path(self.dataset.file) if self.dataset.file else None

    @property
    def run_dir(self) -> Path:
        return Path(self.run.output_dir) / self.run_id

    def to_manifest(self, judge: str) -> dict[str, Any]:
        """JSON-safe record of the config as run, with the resolved dataset path, run id and the judge
        `[eval].judge` chose (benchmarker.scoring.judges.choose_judge)."""
        return {
            "config": self.model_dump(mode="json"),
            "config_path": self._config_path,
            "config_sha256": self._config_sha256,
            "run_id": self.run_id,
            "dataset_kind": self.dataset.kind,
            "dataset_path": self.dataset.file or None,
            "provider": self.provider.type,
            "models": {"agent": self.models.agent, "qa": self.models.qa, "eval": self.models.eval},
            "judge": judge,
            "memory_backend": self.memory.backend,
            "notes": list(self._notes),
        }

    @field_validator("dataset", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return dataset_shorthand(value) if isinstance(value, str) else value

    @field_validator("run_id")
    @classmethod
    def _run_id(cls, value: str) -> str:
        if value and not _RUN_ID.match(value):
            raise ValueError("use letters, digits, '.', '_' or '-' (it names a directory), "
                             'e.g. run_id = "2025-08-28_a"')
        return value


# --- rules that relate several keys (no filesystem access; paths are resolved in config.py) ---

class Problem(NamedTuple):
    loc: tuple  # TOML key path as a tuple, e.g. ("run", "concurrency") or ("run", "phases", 0)
    text: str  # what is wrong and how to fix it


_MODEL_EXAMPLES = {"openai": "gpt-4o-mini", "anthropic": "claude-3-5-haiku-latest",
                   "bedrock": "anthropic.claude-3-5-haiku-20241022-v1:0"}


def check_rules(cfg: RunConfig) -> tuple[RunConfig, list[Problem], list[str]]:
    """Apply the cross-key rules that need no suite (config.py adds the suite's); return the config
    with the dataset kind inferred."""
    problems: list[Problem] = []
    notes: list[str] = []
    data = cfg.dataset
    if "kind" not in data.model_fields_set:
        has_data = cfg.dataset_file or data.file or cfg.dataset_repo_path
        data = data.model_copy(update={"kind": DATA_FILE_KIND if has_data else DEFAULT_DATASET_KIND})
    if cfg.dataset_file and data.file and cfg.dataset_file != data.file:
        problems.append(Problem(("dataset_file",), "both dataset_file and [dataset].file are set; "
                                                    "keep one"))
    problems += _model_rules(cfg.provider, cfg.models, cfg.run, cfg.agent, cfg.eval, notes)
    problems += _memory_rules(cfg.memory, cfg.agent, cfg.sweep, cfg.self_improve)
    problems += _executor_rules(cfg.run, cfg.agent, cfg.memory, cfg.self_improve, notes)
    problems += _multi_agent_rules(cfg.multi_agent, cfg.models, cfg.provider, cfg.eval, cfg.run)
    problems += _agent_rules(cfg.agent, cfg.run, cfg.sweep, cfg.self_improve, notes)
    problems += _sweep_rules(cfg.sweep, cfg.params, cfg.run)
    problems += _batch_rules(cfg.batch, cfg.provider, cfg.run, cfg.models, notes)
    if cfg.eval.judge in ("llm", "official") and not cfg.models.eval:
        fix = ('offline models have no LLM judge: set [eval].judge = "deterministic" (or "auto"), or a '
               'non-offline [provider].type and e.g. eval = "gpt-4o-mini"' if cfg.provider.type == "offline"
               else f'e.g. eval = "{_MODEL_EXAMPLES.get(cfg.provider.type, "gpt-4o-mini")}"')
        problems.append(Problem(("models", "eval"), f'required when [eval].judge = "{cfg.eval.judge}"; {fix}'))
    if cfg.retry.max_backoff_s < cfg.retry.initial_backoff_s:
        problems.append(Problem(("retry", "max_backoff_s"), f"got {cfg.retry.max_backoff_s}; must "
                                f"be >= [retry].initial_backoff_s ({cfg.retry.initial_backoff_s})"))
    if not cfg.vault_title and not cfg.vault_id:
        problems.append(Problem(("vault_title",), 'is empty and vault_id is not set; '
                                'e.g. vault_title = "longmemeval"'))
    elif cfg.vault_title and not MYCELIAN_TITLE.match(cfg.vault_title):
        suggestion = re.sub(r"[^A-Za-z0-9-]+", "-", cfg.vault_title).strip("-")[:50] or "longmemeval"
        problems.append(Problem(("vault_title",), f'got "{cfg.vault_title}"; Mycelian accepts only letters, '
                                f'digits and hyphens, at most 50 characters; e.g. vault_title = "{suggestion}"'))
    return cfg.model_copy(update={"dataset": data}), problems, notes


def _batch_rules(b: BatchConfig, providers: ProviderConfig, run: RunSection, models: ModelsConfig,
                 notes: list[str]) -> list[Problem]:
    """`[batch]` needs a provider with a batch API, a model for the role, and Bedrock's S3 and role."""
    provider = providers.type
    roles = [role for role in ("qa", "eval") if getattr(b, role)]
    if not roles:
        return []
    if provider == "offline":
        return [Problem(("batch", roles[0]), 'needs a provider with a batch API ([provider].type = "openai", '
                        '"anthropic" or "bedrock"); the offline models answer at once for free')]
    problems = []
    if run.executor == "ray":
        problems.append(Problem(("batch", roles[0]), '[run].executor = "ray": batching runs with the local executor '
                                "(one process gathers the calls of every case); set executor = \"local\""))
    for role in roles:
        model = getattr(models, role)
        if not model or model.startswith("offline-"):
            notes.append(f"[batch].{role} = true: [models].{role} is {model or 'not set'}, so nothing of that role "
                         "goes through a batch")
    if provider == "bedrock":
        problems += [Problem(("batch", key), f'required for Bedrock batch inference; e.g. {key} = "{example}"')
                     for key, example in (("bedrock_role_arn", "arn:aws:iam::123456789012:role/BedrockBatch"),
                                          ("bedrock_s3_uri", "s3://my-bucket/mycelian-batches"))
                     if not getattr(b, key)]
    return problems


def _sweep_rules(sweep: SweepConfig, params: ParamsConfig, run: RunSection) -> list[Problem]:
    """`[sweep] metric` and `tie_break` must name something every point of this run measures."""
    top_ks = list(sweep.top_k) or [params.top_k]
    judged = run.mode != "retrieval" and "eval" in run.phases  # no eval phase: nothing is judged
    problems = []
    if why := metric_problem(sweep.metric, top_ks=top_ks, judged=judged):
        problems.append(Problem(("sweep", "metric"), why))
    for name in sweep.tie_break:
        if canonical(name) == AUTO:
            problems.append(Problem(("sweep", "tie_break"), '"auto" is for metric; list metric names, or leave '
                                    "tie_break out for the default"))
        elif why := metric_problem(name, top_ks=top_ks, judged=judged):
            problems.append(Problem(("sweep", "tie_break"), why))
    return problems


def _model_rules(providers: ProviderConfig, models: ModelsConfig, run: RunSection, agent: AgentConfig,
                 eval_: EvalConfig, notes: list[str]) -> list[Problem]:
    provider = providers.type
    roles = {"agent": models.agent, "qa": models.qa, "eval": models.eval}
    if run.mode == "retrieval":
        notes.append('[run].mode = "retrieval" evaluates search only: [models] are not used')
        return []
    if agent.type != "memory_agent":  # the outside agent answers: only the judge is one of ours
        roles = {"eval": models.eval}
    if provider == "offline":
        # the advice must itself load: an empty eval under judge = "llm" / "official" is refused below
        grader = ('"" and [eval].judge = "deterministic" (the deterministic grader)'
                  if eval_.judge in ("llm", "official") else '"" (the deterministic grader)')
        offline = {"agent": f'"{OFFLINE_AGENT}"', "qa": f'"{OFFLINE_READER}"', "eval": grader}
        return [Problem(("models", role), f'got "{model_id}", but [provider].type = "offline" runs '
                        f'only offline-* models; set [provider].type = "openai" (or bedrock, '
                        f"anthropic) or use {offline[role]}")
                for role, model_id in roles.items()
                if model_id and not model_id.startswith("offline-")]
    return [Problem(("models", role), f'required when [provider].type = "{provider}"; e.g. '
                    f'{role} = "{_MODEL_EXAMPLES[provider]}" (or "{default}" to keep the offline '
                    f"model for this role)")
            for role, default in (("agent", OFFLINE_AGENT), ("qa", OFFLINE_READER))
            if role in roles and role not in models.model_fields_set]


def _agent_rules(agent: AgentConfig, run: RunSection, sweep: SweepConfig, self_improve: SelfImproveConfig,
                 notes: list[str]) -> list[Problem]:
    """An outside agent (http, subprocess) keeps its own memory: the harness can only feed it and ask it."""
    problems: list[Problem] = []
    kind_of = f'[agent].type = "{agent.type}"'
    if agent.type == "memory_agent":
        return [Problem(("agent", table), f'is set but [agent].type = "memory_agent"; set type = "{table}" to '
                        f"evaluate that agent, or remove [agent.{table}]")
                for table in ("http", "subprocess") if table in agent.model_fields_set]
    other = "subprocess" if agent.type == "http" else "http"
    if other in agent.model_fields_set:
        problems.append(Problem(("agent", other), f"is set but {kind_of}; remove [agent.{other}] or set "
                                f'type = "{other}"'))
    if agent.type == "http":
        if not agent.http.base_url:
            problems.append(Problem(("agent", "http", "base_url"), f'required when {kind_of}; e.g. '
                                    'base_url = "http://127.0.0.1:8080"'))
        if agent.http.max_backoff_s < agent.http.initial_backoff_s:
            problems.append(Problem(("agent", "http", "max_backoff_s"), f"got {agent.http.max_backoff_s}; must be "
                                    f">= [agent.http].initial_backoff_s ({agent.http.initial_backoff_s})"))
        if run.concurrency != 1:
            problems.append(Problem(("run", "concurrency"), f"got {run.concurrency}; {kind_of} is one agent "
                                    "with one memory, so cases run one at a time: set concurrency = 1 (a "
                                    'subprocess agent can run one process per slot: [agent].type = "subprocess")'))
    if agent.type == "subprocess" and not agent.subprocess.command.strip():
        problems.append(Problem(("agent", "subprocess", "command"), f'required when {kind_of}; e.g. '
                                'command = "python3" with args = ["my_agent.py"]'))
    if run.mode == "retrieval":
        problems.append(Problem(("run", "mode"), f'"retrieval" measures our memory\'s search index, but with '
                                f"{kind_of} the agent keeps its own memory (no index to measure); use "
                                'mode = "agent" or [agent].type = "memory_agent"'))
    for key in ("alpha", "top_k"):
        if getattr(sweep, key):
            problems.append(Problem(("sweep", key), f"tunes our memory's search, which {kind_of} does not use; "
                                    "remove [sweep]"))
    if self_improve.iterations:
        problems.append(Problem(("self_improve", "iterations"), f"tunes our memory agent's prompts and search, "
                                f"not {kind_of}; set iterations = 0"))
    phases = set(run.phases)
    if ("ingest" in phases) != ("qa" in phases):
        problems.append(Problem(("run", "phases"), f'{kind_of} keeps what it learned only while it runs, so '
                                '"ingest" and "qa" go together: use ["ingest", "qa", "eval"] (or ["eval"] to '
                                "re-score)"))
    notes.append(f"{kind_of}: [models].agent and .qa, [memory], the [params] search keys and [agent] tools, "
                 "ingest_unit and prompt_cache are not used; retrieval metrics are not available (the agent does "
                 "its own retrieval)")
    return problems


def _memory_rules(mem: MemoryConfig, agent: AgentConfig, sweep: SweepConfig,
                  self_improve: SelfImproveConfig) -> list[Problem]:
    problems: list[Problem] = []
    mapped = mem.preset != "mycelian" or bool(mem.mapping)
    if agent.context_every_sessions != 1 and agent.context_update != "session":
        problems.append(Problem(("agent", "context_every_sessions"), 'counts sessions between context updates; '
                                'it needs context_update = "session" (with "cadence" the context follows '
                                "[params].context_cadence)"))
    if not mapped and "add_entry" not in agent.tools:
        problems.append(Problem(("agent", "tools"), 'must include "add_entry" (the agent cannot write memory '
                                "without it)"))
    if mapped:
        problems += _mapped_rules(mem, sweep, self_improve)
        for name, default in (("raw_entry", "model"), ("context_update", "cadence")):
            if getattr(agent, name) != default:
                problems.append(Problem(("agent", name), f'is for Mycelian\'s add_entry and context document; '
                                        f"{mapped_server(mem)} writes its own way: use {name} = \"{default}\""))
    elif mem.backend == "embedded" and mem.transport == "stdio" and (mem.command or mem.args or mem.env):
        problems.append(Problem(("memory", "command"), "the embedded service is started by the harness; "
                                "command, args and env are for backend = \"mcp\" with transport = \"stdio\""))
    elif mem.backend == "mcp" and mem.transport == "stdio" and not mem.command:
        problems.append(Problem(("memory", "command"), 'required for a Mycelian server on stdio; e.g. '
                                'command = "mycelian-mcp-server"'))
    if (mem.transport == "stdio" or (mapped and mem.transport != "streamable_http")) and mem.mcp_url:
        problems.append(Problem(("memory", "mcp_url"), "is for streamable HTTP; a stdio server is started "
                                'from [memory].command (remove mcp_url, or set transport = "streamable_http")'))
        return problems
    if mem.backend == "mcp":
        if not mem.mcp_url and mem.transport != "stdio" and not mapped:
            problems.append(Problem(("memory", "mcp_url"), 'required when [memory].backend = '
                                    '"mcp"; e.g. mcp_url = "http://localhost:11546/mcp"'))
        if (mem.search_alpha >= 0 or sweep.alpha) and not mapped:
            key = ("memory", "search_alpha") if mem.search_alpha >= 0 else ("sweep", "alpha")
            problems.append(Problem(key, "per-request alpha needs the embedded service; a Mycelian "
                                    "server's alpha is service-wide (set SEARCH_ALPHA on the server)"))
        if mem.db_path:
            problems.append(Problem(("memory", "db_path"), 'is only used by the embedded service; '
                                    'remove it or set backend = "embedded"'))
    elif mem.mcp_url:
        problems.append(Problem(("memory", "mcp_url"), 'is set but [memory].backend = "embedded"; '
                                'set backend = "mcp" to use that server, or remove mcp_url'))
    if mem.embedder == "none":
        fix = 'with embedder = "none" there are no vectors; use 0.0 (pure keyword) or an embedder'
        if mem.alpha != 0:
            problems.append(Problem(("memory", "alpha"), f"got {mem.alpha}; {fix}"))
        if mem.search_alpha > 0:
            problems.append(Problem(("memory", "search_alpha"), f"got {mem.search_alpha}; {fix}"))
        if any(a > 0 for a in sweep.alpha):
            problems.append(Problem(("sweep", "alpha"), f"has values above 0; {fix}"))
    return problems


def mapped_server(mem: MemoryConfig) -> str:
    """How the config names a memory server other than Mycelian ("" for Mycelian)."""
    if mem.preset == "mycelian" and not mem.mapping:
        return ""
    return f'[memory].preset = "{mem.preset}"' if not mem.mapping else "[memory].mapping"


def _mapped_rules(mem: MemoryConfig, sweep: SweepConfig, self_improve: SelfImproveConfig) -> list[Problem]:
    """A server other than Mycelian (a preset or a mapping file): the harness starts or reaches it
    and drives it through the mapping; Mycelian-only features are refused by name."""
    problems: list[Problem] = []
    where = mapped_server(mem)
    if mem.backend != "mcp":
        problems.append(Problem(("memory", "backend"), f'{where} is not the embedded Mycelian service; set '
                                'backend = "mcp" (the harness starts a stdio server itself)'))
    if mem.transport == "streamable_http" and not mem.mcp_url:
        problems.append(Problem(("memory", "mcp_url"), 'required with transport = "streamable_http"; e.g. '
                                'mcp_url = "http://localhost:8000/mcp"'))
    for key, bad in ((("memory", "search_alpha"), mem.search_alpha >= 0), (("sweep", "alpha"), bool(sweep.alpha))):
        if bad:
            problems.append(Problem(key, f"alpha is Mycelian's hybrid-search weight; {where} has no such "
                                    "setting (sweep top_k instead)"))
    if self_improve.iterations > 0:
        problems.append(Problem(("self_improve", "iterations"), f"self-improve tunes Mycelian's top_k, alpha and "
                                f"context cadence; {where} cannot run it (set iterations = 0)"))
    return problems


def _multi_agent_rules(ma: MultiAgentConfig, models: ModelsConfig, provider: ProviderConfig, eval_: EvalConfig,
                       run: RunSection) -> list[Problem]:
    """The adversary needs ground truth (long-horizon fact records, or evidence turns for a model
    proposer), memories this process can reach, and a judge model wherever a model writes."""
    problems: list[Problem] = []
    no_judge = not models.eval or provider.type == "offline" or eval_.judge == "deterministic"
    judge_hint = 'name [models].eval with a non-offline [provider].type and an LLM judge'
    if ma.adversary and run.executor == "ray":
        problems.append(Problem(("multi_agent", "adversary"), 'asks against memories this process holds; run it with '
                                '[run].executor = "local"'))
    if "regression" in ma.graders and not ma.baseline_run:
        problems.append(Problem(("multi_agent", "baseline_run"), 'required by the "regression" grader: the run directory '
                                'whose answers the new ones are compared with'))
    if ma.adversary and ma.proposer == "model" and no_judge:
        problems.append(Problem(("multi_agent", "proposer"), f'is "model" but there is no judge model: {judge_hint}, '
                                'or use proposer = "generator" (long-horizon)'))
    if ma.adversary and run.mode != "agent":
        problems.append(Problem(("multi_agent", "adversary"), 'needs [run].mode = "agent" (questions are answered and judged)'))
    if ma.analyst_explain and not ma.analyst:
        problems.append(Problem(("multi_agent", "analyst_explain"), 'explains the analyst\'s diagnoses: set analyst = true'))
    elif ma.analyst_explain and no_judge:
        problems.append(Problem(("multi_agent", "analyst_explain"), f'needs a model to write with: {judge_hint}'))
    return problems


def _executor_rules(run: RunSection, agent: AgentConfig, memory: MemoryConfig, self_improve: SelfImproveConfig,
                    notes: list[str]) -> list[Problem]:
    """What runs on Ray: our memory agent (or retrieval) on Mycelian, embedded per worker or one
    shared server. Paths that need one process's state across cases are refused by key."""
    if run.executor != "ray":
        for key in ("ray_address", "worker_resources"):
            if getattr(run, key):
                return [Problem(("run", key), 'is only read when [run].executor = "ray"; remove it or set executor')]
        return []
    problems: list[Problem] = []
    where = '[run].executor = "ray"'
    if run.concurrency < run.workers:
        notes.append(f"[run].concurrency = {run.concurrency} caps the cases in flight over all {run.workers} Ray "
                     f"workers: {run.workers - run.concurrency} will idle; set concurrency >= workers")
    if agent.type != "memory_agent":
        problems.append(Problem(("agent", "type"), f"{where} runs our memory agent; an outside agent "
                                f"({agent.type!r}) runs with the local executor"))
    if memory.preset != "mycelian" or memory.mapping:
        loc = ("memory", "mapping") if memory.mapping else ("memory", "preset")
        problems.append(Problem(loc, f"{where} runs Mycelian (the embedded service per worker, or the shared "
                                "server at [memory].mcp_url); other memory servers run with the local executor"))
    if self_improve.iterations > 0:
        problems.append(Problem(("self_improve", "iterations"), f"{where} does not run the self-improve loop "
                                "(it re-asks every case against memories the workers hold); set iterations = 0 "
                                "or executor = \"local\""))
    if memory.backend == "embedded" and memory.db_path:
        problems.append(Problem(("memory", "db_path"), f"{where}: every worker keeps its own embedded memory; "
                                "a shared db_path would be opened by several services at once; remove it"))
    if run.ray_address and not (run.ray_address == "auto" or run.ray_address.startswith(("ray://", "127.", "localhost"))
                                or ":" in run.ray_address):
        problems.append(Problem(("run", "ray_address"), f'got {run.ray_address!r}; use "" (a local Ray), "auto" '
                                '(the cluster this machine belongs to), "host:6379" or "ray://host:10001"'))
    return problems
