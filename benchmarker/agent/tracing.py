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

No secret reaches a trace: every run payload the client sends (inputs, outputs, error, events,
extra and the model's `serialized` kwargs, on create and on update) goes through `scrub`, the run's
one masking rule (`benchmarker.redact`: secret-named keys, URL userinfo and secret query values,
bearer tokens, the process's credential values). Objects inside a payload (a middleware's request
holding the model, whose dump carries `openai_api_base`) are turned into JSON first, as the client
would, so a URL nested in them is masked too.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarker.config_schema import TracingConfig
from benchmarker.log.lines import Json
from benchmarker.redact import redact, redact_text

EXTRACTION_TAG = "memory_extraction"
EXTRACTION_RUN = "memory_extraction"


# Run fields that carry data (the rest are ids, times, names the harness chose, attachments).
SCRUBBED_FIELDS = ("inputs", "outputs", "error", "events", "extra", "serialized")
FEEDBACK_FIELDS = ("comment", "correction", "value", "source_info", "extra")


def _jsonable(value: Any) -> Any:
    """`value` with every object the JSON encoder cannot take replaced by what langsmith would send for it."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    from langsmith._internal._serde import dumps_json

    return json.loads(dumps_json(value))


def scrub(value: Any) -> Any:
    """`value` with every credential masked: secret-named keys, URL userinfo, secret query values, bearer
    tokens, and the process's credential values inside any string (objects converted to JSON first)."""
    return redact(_jsonable(value), keys=True)


def scrub_run(run: dict[str, Any]) -> dict[str, Any]:
    """A run payload (create or update) with its data fields scrubbed; ids and times untouched."""
    return {k: scrub(v) if k in SCRUBBED_FIELDS and v is not None else v for k, v in run.items()}


def _scrubbing_client_class() -> type:
    """langsmith's Client, scrubbing every run it sends.

    The public `hide_inputs` / `hide_outputs` hooks see neither `serialized` nor `extra` nor `events`,
    and get objects the client serializes after them, so a model's base URL went out verbatim; both
    ways a run leaves (`_run_transform` for creates and batches, `update_run` for patches) and
    feedback are wrapped."""
    from langsmith import Client

    if not callable(getattr(Client, "_run_transform", None)):  # a langsmith without the hook: refuse, never leak
        raise RuntimeError("this langsmith version has no Client._run_transform; tracing cannot scrub payloads")

    class ScrubbingClient(Client):
        def _run_transform(self, run: Any, update: bool = False, copy: bool = False) -> dict:
            return scrub_run(super()._run_transform(run, update=update, copy=copy))

        def update_run(self, run_id: Any, **kwargs: Any) -> None:
            return super().update_run(run_id, **scrub_run(kwargs))

        def create_feedback(self, *args: Any, **kwargs: Any) -> Any:  # judge-online's comments quote traced text
            return super().create_feedback(*args, **{k: scrub(v) if k in FEEDBACK_FIELDS and v is not None else v
                                                     for k, v in kwargs.items()})

    return ScrubbingClient


def langsmith_client(settings) -> tuple[Any, str]:
    """(client, endpoint) for `[tracing]` settings: the endpoint from the config else LANGSMITH_ENDPOINT
    ("" = LangSmith's cloud), the key from the variable `api_key_env` names, payloads scrubbed (the
    runtime metadata the client adds itself goes through `hide_metadata`)."""
    endpoint = settings.endpoint or os.environ.get("LANGSMITH_ENDPOINT") or ""
    client = _scrubbing_client_class()(api_url=endpoint or None, api_key=os.environ.get(settings.api_key_env) or None,
                                       hide_metadata=scrub)
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
    def from_settings(cls, settings: TracingConfig, run_id: str) -> RunTracing | None:
        """The `[tracing]` of run `run_id`, or None when off. The key is read from the environment."""
        if not settings.langsmith:
            return None
        client, endpoint = langsmith_client(settings)
        tags = tuple(redact_text(t) for t in settings.tags)  # tags reach LangSmith: masked like everything else
        return cls(client=client, project=settings.project, run_id=run_id, tags=tags,
                   sample_rate=settings.sample_rate, memory_before_max=settings.memory_before_max,
                   endpoint=endpoint)

    def sampled(self, case_id: str) -> bool:
        """Whole cases are traced or not (seeded by run and case id, so a resume traces the same ones)."""
        if self.sample_rate >= 1.0:
            return True
        digest = hashlib.sha256(f"{self.run_id}\0{case_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.sample_rate

    def labels(self, *, case_id: str, role: str, phase: str, question_id: str | None = None,
               session_id: str | None = None, turn_index: int | None = None) -> dict[str, str | int]:
        metadata: dict[str, str | int | None] = {
            "run_id": self.run_id, "case_id": case_id, "question_id": question_id, "session_id": session_id,
            "turn_index": turn_index, "phase": phase, "role": role}
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
    def extraction_turn(self, *, case_id: str, conversation: Sequence[Mapping[str, str]], memory_before: list[str],
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

    def describe(self) -> dict[str, Json]:
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
