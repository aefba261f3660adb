"""Settings of the embedded memory service: one frozen dataclass shared by the CLI, the app and the launcher.

Defaults mirror Mycelian's where Mycelian has one (SEARCH_ALPHA 0.6, MCP on 11546, a placeholder
context in every new memory), so a run against the embedded service behaves like one against the
real stack. Limits are documented here because they are part of the service's behaviour.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import asdict, dataclass, field, fields

# Mycelian's memory-service seeds every new memory with exactly this context text. Using the same
# words lets one check (`text.strip() == PLACEHOLDER_CONTEXT` or a substring test) drop it on both
# backends. Older Mycelian versions wrap it as {"activeContext": "..."}: test by substring there.
PLACEHOLDER_CONTEXT = (
    "This is default context that's created with the memory. "
    "Instructions for AI Agent: Provide relevant context as soon as it's available."
)

EMBEDDERS = ("minilm", "static", "ollama", "openai", "none")
DEVICES = ("auto", "cpu", "cuda")  # where minilm runs: "auto" = CUDA when torch sees one (embedders.resolve_device)
# static: a model2vec model distilled from all-MiniLM-L6-v2. The default after measuring both on
# LongMemEval_S sessions (bench/bench_embedders.py): the same hybrid recall@5 (1.0) and turn MRR,
# ~200x the embedding throughput (~6,000 vs ~30 texts/s on 2 cores), ~1 ms vs ~18 ms per query,
# 1 s startup without torch (see bench/bench_memory.py for the service-level numbers).
DEFAULT_EMBEDDER = "static"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 11546
DEFAULT_DB_PATH = "./mycelian-embedded.sqlite"
DEFAULT_ALPHA = 0.6  # Mycelian's SEARCH_ALPHA default
LOCAL_OWNER = "local_user"  # the single owner of every vault (Mycelian's dev-mode user)
API_KEY_ENV = "MEMORY_API_KEY"  # the environment variable serve-memory reads its key from
# The largest legal tool call is put_context / add_entry at their byte limits; JSON may escape
# each byte as \u00XX (6 bytes), and the JSON-RPC envelope adds a little.
JSON_ESCAPE_FACTOR, ENVELOPE_BYTES = 6, 64 * 1024

# Mycelian's title rule: letters, digits and hyphen, at most 50 characters.
TITLE_MAX_CHARS = 50
DESCRIPTION_MAX_CHARS = 500
MEMORY_TYPE_MAX_CHARS = 64
TOP_K_MIN, TOP_K_MAX, TOP_K_DEFAULT = 1, 100, 10
LIST_LIMIT_MIN, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT = 1, 50, 25


@dataclass(frozen=True)
class ServiceSettings:
    """Everything that changes how the service behaves; `validate()` before use."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT  # 0: the launcher picks a free port
    db_path: str = DEFAULT_DB_PATH
    alpha: float = DEFAULT_ALPHA  # 0 = pure BM25, 1 = pure vector (Weaviate's convention)
    embedder: str = DEFAULT_EMBEDDER
    index_lag_ms: int = 0  # delay before a write becomes searchable (to test a lagging index)
    placeholder_context: bool = True
    strict_titles: bool = True  # enforce Mycelian's title rule so runs port to the real stack
    max_raw_entry_bytes: int = 64 * 1024  # Mycelian's REST API allows limits.RAW_ENTRY_CHARS characters
    max_summary_bytes: int = 8 * 1024
    max_context_bytes: int = 256 * 1024
    max_query_bytes: int = 8 * 1024
    max_tags_bytes: int = 16 * 1024
    embed_batch_size: int = 32
    max_batch_entries: int = 1000  # entries in one add_entries call (each within the add_entry limits)
    device: str = "auto"  # minilm only: "auto" (CUDA when torch sees one, else CPU), "cpu" or "cuda"
    await_timeout_s: float = 600.0
    vector_cache_mb: int = 512  # RAM for per-memory vector matrices (least recently used dropped)
    log_level: str = "warning"
    store_secrets: bool = False  # False: entries and contexts are stored with credentials masked (masking.py)
    exit_with_parent: bool = False  # stop when the process that started us dies (launcher)
    # HTTP hardening (see security.py, limits_http.py, connections.py)
    api_key: str = field(default="", repr=False)  # "" = no auth, allowed on loopback only
    allowed_hosts: tuple[str, ...] = ()  # extra Host names (name or name:port) besides IPs and localhost
    allowed_origins: tuple[str, ...] = ()  # extra exact Origins (scheme://host[:port])
    max_body_bytes: int = 4 * 1024 * 1024  # any route; >= the largest legal call (see required_body_bytes)
    session_idle_s: float = 600.0  # an MCP session with no request in flight (and no open GET stream) ends
    max_sessions: int = 100  # concurrent MCP sessions; the harness holds one
    request_timeout_s: float = 10.0  # a request's headers and body must arrive within this (slowloris)
    keep_alive_s: int = 5  # an idle kept-alive connection is closed after this
    max_connections: int = 256  # open connections + running requests; more get 503

    def validate(self) -> None:
        """Raise ValueError naming the setting and the fix."""
        if self.embedder not in EMBEDDERS:
            raise ValueError(f"embedder: unknown embedder {self.embedder!r}; choose one of {', '.join(EMBEDDERS)}")
        if self.device not in DEVICES:
            raise ValueError(f"device: unknown device {self.device!r}; choose one of {', '.join(DEVICES)}")
        if not isinstance(self.alpha, (int, float)) or not math.isfinite(self.alpha) or not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha: must be a number between 0 and 1, got {self.alpha!r}")
        if self.embedder == "none" and self.alpha != 0:
            raise ValueError(f"alpha: embedder 'none' has no vectors, so only alpha=0 (pure BM25) works; "
                             f"got alpha={self.alpha}. Pass --alpha 0 or choose another --embedder")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port: must be 0..65535, got {self.port}")
        if self.index_lag_ms < 0:
            raise ValueError(f"index_lag_ms: must be >= 0, got {self.index_lag_ms}")
        if not self.db_path:
            raise ValueError("db_path: must name a SQLite file, e.g. ./mycelian-embedded.sqlite")
        for name in ("max_raw_entry_bytes", "max_summary_bytes", "max_context_bytes", "max_query_bytes",
                     "max_tags_bytes", "embed_batch_size", "vector_cache_mb", "max_batch_entries"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be >= 1, got {getattr(self, name)}")
        if self.await_timeout_s <= 0:
            raise ValueError(f"await_timeout_s: must be > 0, got {self.await_timeout_s}")
        self._validate_http()

    def _validate_http(self) -> None:
        if not is_loopback(self.host) and not self.api_key:
            raise ValueError(f"host: binding {self.host or 'every interface'!r} lets other machines in; give an "
                             f"API key with --api-key KEY or {API_KEY_ENV}=KEY (or bind 127.0.0.1)")
        for name in ("max_sessions", "keep_alive_s", "max_connections"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be >= 1, got {getattr(self, name)}")
        for name in ("session_idle_s", "request_timeout_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name}: must be a number of seconds > 0, got {value!r}")
        if self.max_body_bytes < self.required_body_bytes():
            raise ValueError(f"max_body_bytes: {self.max_body_bytes} is below {self.required_body_bytes()}, the "
                             "largest legal put_context/add_entry request at the --max-*-bytes limits; "
                             "raise --max-body-bytes or lower those limits")

    def required_body_bytes(self) -> int:
        """The largest request body a legal tool call can need (every byte JSON-escaped)."""
        entry = self.max_raw_entry_bytes + self.max_summary_bytes + self.max_tags_bytes
        return JSON_ESCAPE_FACTOR * max(entry, self.max_context_bytes) + ENVELOPE_BYTES

    def to_cli_args(self) -> list[str]:
        """The `serve-memory` arguments that reproduce these settings (used by the launcher).

        Never the API key: argv is visible to every local user (`ps`); it travels in MEMORY_API_KEY.
        """
        args = ["--host", self.host, "--port", str(self.port), "--db", str(self.db_path),
                "--alpha", repr(float(self.alpha)), "--embedder", self.embedder,
                "--index-lag-ms", str(self.index_lag_ms),
                "--max-raw-entry-bytes", str(self.max_raw_entry_bytes),
                "--max-summary-bytes", str(self.max_summary_bytes),
                "--max-context-bytes", str(self.max_context_bytes),
                "--max-query-bytes", str(self.max_query_bytes),
                "--max-tags-bytes", str(self.max_tags_bytes),
                "--max-batch-entries", str(self.max_batch_entries),
                "--embed-batch-size", str(self.embed_batch_size), "--device", self.device,
                "--await-timeout-s", repr(float(self.await_timeout_s)),
                "--vector-cache-mb", str(self.vector_cache_mb),
                "--max-body-bytes", str(self.max_body_bytes),
                "--session-idle-s", repr(float(self.session_idle_s)),
                "--max-sessions", str(self.max_sessions),
                "--request-timeout-s", repr(float(self.request_timeout_s)),
                "--keep-alive-s", str(self.keep_alive_s),
                "--max-connections", str(self.max_connections),
                "--log-level", self.log_level]
        for host in self.allowed_hosts:
            args += ["--allowed-host", host]
        for origin in self.allowed_origins:
            args += ["--allowed-origin", origin]
        if not self.placeholder_context:
            args.append("--no-placeholder-context")
        if not self.strict_titles:
            args.append("--lenient-titles")
        if self.store_secrets:
            args.append("--store-secrets")
        if self.exit_with_parent:
            args.append("--exit-with-parent")
        return args

    def as_dict(self) -> dict[str, object]:
        """The settings as plain data, with the API key masked (this may be logged or written)."""
        data = asdict(self)
        data["api_key"] = "***" if self.api_key else ""
        return data


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def setting_names() -> list[str]:
    return [f.name for f in fields(ServiceSettings)]
