"""LangSmith traces of a run: every model and tool call, labelled with where in the run it happened.

`[tracing] langsmith = true` gives the run a `RunTracing`; the graph's nodes open a `scope`
around each unit of work (an ingestion turn, a question, a judgement) and everything LangChain
runs inside (the memory agent's model and MCP tool calls, the reader, the judge) is traced into
the project with metadata `run_id`, `case_id`, `question_id`, `session_id`, `turn_index`,
`phase` and `role`, and the run's tags. Each ingestion turn is one root run named
`memory_extraction` (tag `memory_extraction`) whose inputs are the conversation and the memory
before the turn and whose outputs are what the agent wrote: what `judge-online` reads back.

Off (the default), `disabled()` wraps the run so nothing is traced even with LANGSMITH_TRACING
set in the environment: a run with tracing off makes no tracing calls at all.

No secret reaches a trace: inputs, outputs and metadata go through `scrub` (secret-named keys,
URL passwords, bearer tokens, and the values of the process's credential variables masked).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarker.redact import MASK, is_secret_name, redact_text

EXTRACTION_TAG = "memory_extraction"
EXTRACTION_RUN = "memory_extraction"


def _secret_values() -> list[str]:
    """Values of this process's credential-looking environment variables (masked wherever they appear)."""
    return sorted({v for k, v in os.environ.items() if is_secret_name(k) and len(v) >= 8}, key=len, reverse=True)


def scrub(value: Any, secrets: list[str] | None = None) -> Any:
    """`value` with every credential masked: secret-named keys, URL userinfo, bearer tokens, and
    any environment credential's value inside a string."""
    secrets = _secret_values() if secrets is None else secrets
    if isinstance(value, dict):
        return {k: MASK if isinstance(k, str) and is_secret_name(k) and v else scrub(v, secrets)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, secrets) for v in value]
    if isinstance(value, str):
        text = redact_text(value)
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text
    return value


def scrubbing_hooks() -> dict[str, Any]:
    """The langsmith Client's hide_* hooks: every payload scrubbed against the credentials of this
    process, read once (the environment does not change under a run; reading it per run cost
    ~0.3 ms each, a third of the tracing overhead)."""
    secrets = _secret_values()

    def hook(value: Any) -> Any:
        return scrub(value, secrets)

    return {"hide_inputs": hook, "hide_outputs": hook, "hide_metadata": hook}


def langsmith_client(settings) -> tuple[Any, str]:
    """(client, endpoint) for `[tracing]` settings: the endpoint from the config else LANGSMITH_ENDPOINT
    ("" = LangSmith's cloud), the key from the variable `api_key_env` names, payloads scrubbed."""
    from langsmith import Client

    endpoint = settings.endpoint or os.environ.get("LANGSMITH_ENDPOINT") or ""
    client = Client(api_url=endpoint or None, api_key=os.environ.get(settings.api_key_env) or None,
                    **scrubbing_hooks())
    return client, endpoint


@dataclass
class RunTracing:
    """The run's LangSmith client and labels; `scope` opens a traced unit of work."""

    client: Any                    # langsmith.Client
    project: str
    run_id: str
    tags: tuple[str, ...] = ()
    sample_rate: float = 1.0
    memory_before_max: int = 50
    endpoint: str = ""
    traced_cases: set[str] = field(default_factory=set)

    @classmethod
    def from_config(cls, config) -> RunTracing | None:
        """The configured tracing, or None when off. The key is read from the environment."""
        settings = config.tracing
        if not settings.langsmith:
            return None
        client, endpoint = langsmith_client(settings)
        return cls(client=client, project=settings.project, run_id=config.run_id, tags=tuple(settings.tags),
                   sample_rate=settings.sample_rate, memory_before_max=settings.memory_before_max,
                   endpoint=endpoint)

    def sampled(self, case_id: str) -> bool:
        """Whole cases are traced or not (seeded by run and case id, so a resume traces the same ones)."""
        if self.sample_rate >= 1.0:
            return True
        digest = hashlib.sha256(f"{self.run_id}\0{case_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.sample_rate

    def labels(self, *, case_id: str, role: str, phase: str, question_id: str | None = None,
               session_id: str | None = None, turn_index: int | None = None) -> dict[str, Any]:
        metadata = {"run_id": self.run_id, "case_id": case_id, "question_id": question_id,
                    "session_id": session_id, "turn_index": turn_index, "phase": phase, "role": role}
        return {k: v for k, v in metadata.items() if v is not None}

    @contextlib.contextmanager
    def scope(self, *, case_id: str, role: str, phase: str, tags: tuple[str, ...] = (), run_name: str = "",
              **where: Any) -> Iterator[bool]:
        """Trace what runs inside (LangChain picks the context up), under one run `run_name` when
        given; yields whether it is traced.

        The scope also detaches the work inside from the run graph's own LangChain config: the graph
        itself is not traced, and a call inheriting its callbacks would name an untraced parent and
        land as an orphan instead of under this scope's run."""
        from langchain_core.runnables.config import var_child_runnable_config
        from langsmith import trace, tracing_context

        if not self.sampled(case_id):
            with tracing_context(enabled=False):
                yield False
            return
        self.traced_cases.add(case_id)
        metadata = self.labels(case_id=case_id, role=role, phase=phase, **where)
        detached = var_child_runnable_config.set(None)
        try:
            with tracing_context(enabled=True, client=self.client, project_name=self.project,
                                 tags=[*self.tags, *tags], metadata=metadata):
                if not run_name:
                    yield True
                    return
                with trace(run_name, run_type="chain", inputs=metadata, client=self.client, project_name=self.project,
                           tags=[*self.tags, *tags], metadata=metadata):
                    yield True
        finally:
            var_child_runnable_config.reset(detached)

    @contextlib.contextmanager
    def extraction_turn(self, *, case_id: str, conversation: list[dict[str, Any]], memory_before: list[str],
                        **where: Any) -> Iterator[ExtractionTrace]:
        """One ingestion turn as a root run `memory_extraction`: conversation and memory before as
        inputs; the caller sets what the agent wrote (`ExtractionTrace.written`) as outputs."""
        from langsmith import trace

        handle = ExtractionTrace()
        with self.scope(case_id=case_id, role="agent", phase="ingest", tags=(EXTRACTION_TAG,), **where) as on:
            if not on:
                yield handle
                return
            kept = memory_before[-self.memory_before_max:] if self.memory_before_max else []
            inputs = {"conversation": conversation, "existing_memory": kept,
                      "existing_memory_total": len(memory_before)}
            with trace(EXTRACTION_RUN, run_type="chain", inputs=inputs, client=self.client, project_name=self.project,
                       tags=[*self.tags, EXTRACTION_TAG],
                       metadata=self.labels(case_id=case_id, role="agent", phase="ingest", **where)) as run:
                yield handle
                run.end(outputs={"extracted_output": handle.written, "failed": handle.failed})

    def describe(self) -> dict[str, Any]:
        """The manifest's / report's tracing block: where to look (never the key)."""
        from benchmarker.redact import redact_url

        return {"langsmith": True, "project": self.project, "endpoint": redact_url(self.endpoint) or "LangSmith cloud",
                "tags": list(self.tags), "sample_rate": self.sample_rate, "cases_traced": len(self.traced_cases),
                "url": project_url(self.endpoint, self.project)}

    def flush(self) -> None:
        """Send what is still queued (the client sends from a background thread)."""
        with contextlib.suppress(Exception):
            self.client.flush()


@dataclass
class ExtractionTrace:
    written: list[str] = field(default_factory=list)
    failed: str | None = None


def project_url(endpoint: str, project: str) -> str:
    """Where a reader opens the project: LangSmith's web app for its cloud, else the endpoint."""
    from urllib.parse import quote

    base = "https://smith.langchain.com" if not endpoint or "api.smith.langchain.com" in endpoint else endpoint
    return f"{base.rstrip('/')}/projects?name={quote(project)}"


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Nothing inside is traced, whatever LANGSMITH_TRACING / LANGCHAIN_TRACING_V2 say."""
    from langsmith import tracing_context

    with tracing_context(enabled=False):
        yield
