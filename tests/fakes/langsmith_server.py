"""FakeLangSmith: the slice of LangSmith's HTTP API that the `langsmith` client (0.15) uses to trace
and to read traces back, on 127.0.0.1, for tests that run the real client over real sockets.

Ingestion (recorded, merged per run into `.runs`):
- `GET /info`: version, `batch_ingest_config` and `instance_flags`. By default multipart ingestion is
  on and `zstd_compression_enabled` is set, so the client (which has `zstandard`) sends
  `POST /runs/multipart` bodies with `Content-Encoding: zstd`; `compression=False` gives plain
  multipart, `multipart=False` makes the client fall back to `POST /runs/batch`.
- `POST /runs/multipart`: parts `post.<id>` / `patch.<id>` (the run minus its big fields),
  `post.<id>.inputs|outputs|events|extra|error|serialized`, `attachment.<id>.<name>` and
  `feedback.<id>`; zstd or gzip bodies are decompressed.
- `POST /runs/batch` (`{"post": [...], "patch": [...]}`), `POST /runs`, `PATCH /runs/{id}`: the
  non-multipart paths (client without a tracing queue, runs without dotted_order, `multipart=False`).

Reading (served from traced runs and runs preloaded with `add_run`):
- `GET /sessions?name=` / `GET /sessions` / `GET /sessions/{id}` / `POST /sessions` (projects;
  a run traced into an unknown `session_name` creates it, as LangSmith does).
- `POST /runs/query` (`Client.list_runs`, deprecated) with cursor pagination (`page_size` runs a page)
  and the filters listed on `FakeLangSmith`; `GET /runs/{id}` (`Client.read_run`).
- `POST /api/v2/runs/query` (`client.runs.query_v2`, what the deprecation of `list_runs` points to):
  `{"items": [...], "next_cursor": ...}` with only the `selects` fields of each run (`id` always),
  the v2 names (`project_id`, `parent_run_ids`, upper-case `run_type` / `status`) and a start-time
  window that defaults to the last day, as LangSmith's does.
- `POST /feedback`, `GET /feedback` (`run`, `key`, `limit`, `offset`), `GET /feedback/{id}`.

Every request is kept in `.requests` and its `x-api-key` in `.api_keys_seen`; a request to any
other path answers 404 and is listed in `.unhandled`, so a test can assert the client needed
nothing more.

    with FakeLangSmith(page_size=2) as ls:
        client = langsmith.Client(api_url=ls.url, api_key="ls-test-key")
        ...trace with client...; client.flush()
        ls.wait_for_runs(2)
        ls.runs[run_id]["outputs"], ls.feedback, ls.api_keys_seen
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import FakeServer, ThreadedUvicorn

Run = dict[str, Any]
TENANT_ID = "00000000-0000-4000-8000-000000000001"
# The multipart sub-parts that carry one field of the run each (`post.<id>.<field>`).
RUN_FIELD_PARTS = ("inputs", "outputs", "events", "extra", "error", "serialized")
# The keys of a run served by /runs/query and GET /runs/{id} (what `langsmith.schemas.Run` takes).
SERVED_KEYS = ("id", "name", "run_type", "start_time", "end_time", "inputs", "outputs", "extra", "error",
               "events", "serialized", "tags", "parent_run_id", "trace_id", "dotted_order", "session_id",
               "status", "reference_example_id", "first_token_time", "prompt_tokens", "completion_tokens",
               "total_tokens", "feedback_stats", "app_path")


# v2 `selects` the fake serves -> how each is read off a stored run (other fields are a 400).
V2_FIELDS: dict[str, Callable[[Run], Any]] = {
    "ID": lambda r: r["id"], "NAME": lambda r: r.get("name"), "START_TIME": lambda r: r.get("start_time"),
    "END_TIME": lambda r: r.get("end_time"), "INPUTS": lambda r: r.get("inputs"), "OUTPUTS": lambda r: r.get("outputs"),
    "EXTRA": lambda r: r.get("extra"), "METADATA": lambda r: (r.get("extra") or {}).get("metadata"),
    "ERROR": lambda r: r.get("error"), "TAGS": lambda r: r.get("tags"), "PROJECT_ID": lambda r: r.get("session_id"),
    "TRACE_ID": lambda r: r.get("trace_id"), "DOTTED_ORDER": lambda r: r.get("dotted_order"),
    "PARENT_RUN_IDS": lambda r: _ancestors(r), "IS_ROOT": lambda r: r.get("parent_run_id") is None,
    "RUN_TYPE": lambda r: (r.get("run_type") or "chain").upper(), "STATUS": lambda r: (r.get("status") or "pending").upper(),
    "REFERENCE_EXAMPLE_ID": lambda r: r.get("reference_example_id"),
}
# v2 query keys -> the v1 body keys `_select` reads (the rest of a v2 body is a 400 when set).
V2_TO_V1 = {"project_ids": "session", "is_root": "is_root", "trace_id": "trace", "ids": "id", "has_error": "error",
            "filter": "filter", "trace_filter": "trace_filter", "tree_filter": "tree_filter"}
V2_PAGING = {"cursor", "page_size", "selects", "min_start_time", "max_start_time", "run_type"}


class FilterError(ValueError):
    """A filter expression outside the supported subset (answered with HTTP 400)."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def parse_time(value: Any) -> dt.datetime | None:
    """A run / query time (ISO string or datetime, naive = UTC) as an aware datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        when = value
    else:
        when = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def iso(value: Any) -> str | None:
    when = parse_time(value)
    return when.isoformat() if when else None


def dotted_segment(start: dt.datetime, run_id: str) -> str:
    """One level of LangSmith's dotted_order: start time (UTC, microseconds) then the run id."""
    return start.astimezone(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ") + run_id


# --- the filter language subset ------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<comma>,)|(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')'
                    r'|(?P<num>-?\d+(?:\.\d+)?)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*))')
EQ_FIELDS = ("name", "run_type", "id", "trace_id", "parent_run_id", "status", "session_id", "error")
TIME_FIELDS = ("start_time", "end_time")


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise FilterError(f"cannot parse filter at {text[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def parse_filter(text: str) -> Callable[[Run], bool]:
    """Compile a LangSmith filter expression (the subset listed on `FakeLangSmith`) to a predicate."""
    toks = _tokens(text)
    pos = 0

    def take(kind: str) -> str:
        nonlocal pos
        if pos >= len(toks) or toks[pos][0] != kind:
            raise FilterError(f"expected {kind} in filter {text!r}")
        pos += 1
        return toks[pos - 1][1]

    def arg() -> Any:
        nonlocal pos
        if pos >= len(toks):
            raise FilterError(f"unexpected end of filter {text!r}")
        kind, value = toks[pos]
        if kind == "str":
            pos += 1
            return ("lit", json.loads(value) if value[0] == '"' else value[1:-1])
        if kind == "num":
            pos += 1
            return ("lit", float(value))
        if kind == "ident" and pos + 1 < len(toks) and toks[pos + 1][0] == "lp":
            return ("expr", call())
        if kind == "ident":
            pos += 1
            return ("lit", None) if value == "null" else ("field", value)
        raise FilterError(f"unexpected {value!r} in filter {text!r}")

    def call() -> Callable[[Run], bool]:
        name = take("ident")
        take("lp")
        args = [arg()]
        while pos < len(toks) and toks[pos][0] == "comma":
            take("comma")
            args.append(arg())
        take("rp")
        return build(name, args)

    def build(name: str, args: list[tuple[str, Any]]) -> Callable[[Run], bool]:
        if name in ("and", "or"):
            subs = [a[1] for a in args]
            if any(a[0] != "expr" for a in args):
                raise FilterError(f"{name}() takes filter expressions")
            return (lambda r: all(s(r) for s in subs)) if name == "and" else (lambda r: any(s(r) for s in subs))
        if name == "not":
            if len(args) != 1 or args[0][0] != "expr":
                raise FilterError("not() takes one filter expression")
            sub = args[0][1]
            return lambda r: not sub(r)
        if len(args) != 2 or args[0][0] != "field" or args[1][0] != "lit":
            raise FilterError(f"{name}() takes a field and a literal")
        field, value = args[0][1], args[1][1]
        if name == "has":
            if field != "tags":
                raise FilterError(f"has() supports only tags, not {field!r}")
            return lambda r: value in (r.get("tags") or [])
        if name in ("eq", "neq"):
            if field not in EQ_FIELDS:
                raise FilterError(f"{name}() supports {', '.join(EQ_FIELDS)}, not {field!r}")
            want = None if value is None else str(value)
            same = (lambda r: (None if r.get(field) is None else str(r.get(field))) == want)
            return same if name == "eq" else (lambda r: not same(r))
        if name in ("gt", "gte", "lt", "lte"):
            if field not in TIME_FIELDS:
                raise FilterError(f"{name}() supports {', '.join(TIME_FIELDS)}, not {field!r}")
            bound = parse_time(value)
            ops = {"gt": lambda a, b: a > b, "gte": lambda a, b: a >= b, "lt": lambda a, b: a < b,
                   "lte": lambda a, b: a <= b}
            op = ops[name]
            return lambda r: (t := parse_time(r.get(field))) is not None and op(t, bound)
        raise FilterError(f"unsupported filter function {name}()")

    if not toks:
        raise FilterError("empty filter")
    predicate = call()
    if pos != len(toks):
        raise FilterError(f"trailing text in filter {text!r}")
    return predicate


# --- multipart -----------------------------------------------------------------------------------

def parse_multipart(body: bytes, content_type: str) -> list[tuple[str, str, bytes]]:
    """The parts of a multipart/form-data body as (name, content type, bytes), in order."""
    m = re.search(r'boundary="?([^";]+)"?', content_type)
    if not m:
        raise ValueError(f"no boundary in {content_type!r}")
    delimiter = b"\r\n--" + m.group(1).encode()
    parts: list[tuple[str, str, bytes]] = []
    for chunk in (b"\r\n" + body).split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, data = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        name = re.search(r'name="([^"]*)"', headers.get("content-disposition", ""))
        parts.append((name.group(1) if name else "", headers.get("content-type", ""), data))
    return parts


def decode_body(body: bytes, encoding: str) -> bytes:
    """The request body with its Content-Encoding (zstd, gzip) undone."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "zstd":
        import io

        import zstandard  # only needed when the client compresses, which it does only when it has it

        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body), read_across_frames=True) as reader:
            return reader.read()
    raise ValueError(f"unsupported Content-Encoding {encoding!r}")


class _BadBody(Exception):
    """A request body the fake could not decode."""


async def _bad_body(request: Request, exc: Exception) -> Response:
    return JSONResponse({"detail": f"FakeLangSmith: unreadable body: {exc}"}, status_code=422)


class FakeLangSmith(FakeServer):
    """LangSmith API fake; `.url` is "http://127.0.0.1:PORT" (pass it as `Client(api_url=...)`).

    page_size: runs per `/runs/query` page (the query's `limit` caps it further).
    multipart: advertise `use_multipart_endpoint` (False: the client sends `/runs/batch`).
    compression: advertise `zstd_compression_enabled` (the client then zstd-compresses multipart).
    version: the server version in /info (>= 0.8.10 lets the client queue feedback that has a
        trace_id into the multipart stream; feedback without one is always `POST /feedback`; below
        0.16.0 the client logs that `client.runs` needs a newer server).

    Recorded: `.requests` [(method, path, headers, raw body)], `.api_keys_seen`, `.unhandled`
    [(method, path)], `.errors` (bodies or parts the fake could not read), `.ops` [(op, run_id, payload)],
    `.runs` {run_id: merged run}, `.attachments` {run_id: {name: (content_type, bytes)}},
    `.feedback` [feedback dicts], `.projects` {project_id: project}.

    `/runs/query` filters: `session` (project ids), `run_type`, `is_root`, `parent_run`, `trace`,
    `id`, `reference_example`, `error`, `start_time` (runs starting at or after it), `end_time`
    (runs starting at or before it; `list_runs(end_time=...)` passes it through), `order`
    (asc/desc by start_time, default desc), `filter` and `trace_filter` (applied to the trace's
    root) in the subset: `and(...)`, `or(...)`, `not(...)`, `has(tags, "t")`,
    `eq/neq(name|run_type|id|trace_id|parent_run_id|status|session_id|error, "v" | null)`,
    `gt/gte/lt/lte(start_time|end_time, "iso time")`. Anything else (and `query`, `tree_filter`)
    is a 400 naming the problem.
    """

    def __init__(self, *, page_size: int = 100, multipart: bool = True, compression: bool = True,
                 version: str = "0.16.0"):
        self.page_size = page_size
        self.info: dict[str, Any] = {
            "version": version,
            "license_expiration_time": None,
            "batch_ingest_config": {"use_multipart_endpoint": multipart, "size_limit": 100,
                                    "size_limit_bytes": 20_971_520, "scale_up_qsize_trigger": 1000,
                                    "scale_up_nthreads_limit": 16, "scale_down_nempty_trigger": 4},
            "instance_flags": {"zstd_compression_enabled": compression, "ch_query_enabled": True,
                               "sdb_query_enabled": False},
        }
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.api_keys_seen: set[str] = set()
        self.unhandled: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.ops: list[tuple[str, str, dict[str, Any]]] = []
        self.runs: dict[str, Run] = {}
        self.attachments: dict[str, dict[str, tuple[str, bytes]]] = {}
        self.feedback: list[dict[str, Any]] = []
        self.projects: dict[str, dict[str, Any]] = {}
        self._traced: set[str] = set()
        self._run_ops: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
        self._cond = threading.Condition()
        routes = [
            Route("/info", self._info, methods=["GET"]),
            Route("/runs/multipart", self._multipart, methods=["POST"]),
            Route("/runs/batch", self._batch, methods=["POST"]),
            Route("/runs/query", self._query, methods=["POST"]),
            Route("/api/v2/runs/query", self._query_v2, methods=["POST"]),
            Route("/runs", self._post_run, methods=["POST"]),
            Route("/runs/{run_id}", self._run, methods=["GET", "PATCH"]),
            Route("/sessions", self._sessions, methods=["GET", "POST"]),
            Route("/sessions/{project_id}", self._session, methods=["GET"]),
            Route("/feedback", self._feedback, methods=["GET", "POST"]),
            Route("/feedback/{feedback_id}", self._read_feedback, methods=["GET"]),
            Route("/{path:path}", self._unhandled, methods=["GET", "POST", "PATCH", "PUT", "DELETE"]),
        ]
        app = Starlette(routes=routes, exception_handlers={_BadBody: _bad_body})
        app.add_middleware(_RecordMiddleware, fake=self)
        self._runner = ThreadedUvicorn(app, lifespan="off")
        self.url = ""

    def _bound(self, root: str) -> None:
        self.url = root

    # --- test-side helpers -----------------------------------------------------------------------

    def project(self, name: str, *, create: bool = True) -> dict[str, Any] | None:
        """The project named `name` (created when missing unless create=False)."""
        with self._cond:
            for project in self.projects.values():
                if project["name"] == name:
                    return project
            if not create:
                return None
            return self._new_project({"name": name})

    def add_run(self, *, project_name: str = "default", metadata: dict[str, Any] | None = None,
                **fields: Any) -> Run:
        """Preload a run to be served by /runs/query and GET /runs/{id}; returns the stored run.

        Any run key may be given (name, run_type, inputs, outputs, tags, extra, error, start_time,
        end_time as datetime or ISO, parent_run_id, trace_id, id, session_id, ...); `metadata` is
        merged into extra.metadata. Defaults: id uuid4, name "run", run_type "chain", start_time now,
        end_time start + 1 s, trace_id/dotted_order from the parent (or the run itself), session_id
        of `project_name` (created when missing)."""
        run_id = str(fields.pop("id", None) or uuid.uuid4())
        start = parse_time(fields.pop("start_time", None)) or _now()
        end = parse_time(fields.pop("end_time", None)) or start + dt.timedelta(seconds=1)
        parent_id = str(fields.pop("parent_run_id")) if fields.get("parent_run_id") else None
        parent = self.runs.get(parent_id) if parent_id else None
        extra = dict(fields.pop("extra", None) or {})
        extra["metadata"] = {**(extra.get("metadata") or {}), **(metadata or {})}
        session_id = str(fields.pop("session_id", None) or self.project(project_name)["id"])  # type: ignore[index]
        segment = dotted_segment(start, run_id)
        run: Run = {
            "id": run_id, "name": "run", "run_type": "chain", "inputs": {}, "outputs": {}, "error": None,
            "tags": [], "events": [], "parent_run_id": parent_id,
            "trace_id": (parent or {}).get("trace_id") or (parent_id if parent_id else run_id),
            "dotted_order": f"{parent['dotted_order']}.{segment}" if parent else segment,
            **fields,
            "extra": extra, "start_time": start.isoformat(), "end_time": end.isoformat(), "session_id": session_id,
        }
        for key in ("trace_id", "reference_example_id"):
            if run.get(key) is not None:
                run[key] = str(run[key])
        run["session_name"] = self.projects[session_id]["name"] if session_id in self.projects else None
        run["status"] = run.get("status") or ("error" if run.get("error") else "success")
        with self._cond:
            self.runs[run_id] = run
        return run

    def wait_for_runs(self, n: int, timeout_s: float = 10, *, finished: bool = True) -> list[Run]:
        """Wait until `n` traced runs (not preloaded ones) arrived, each with its end_time when
        `finished`; the client sends from a background thread. Returns them (oldest first)."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                runs = [self.runs[i] for i in self._traced
                        if i in self.runs and (not finished or self.runs[i].get("end_time"))]
                if len(runs) >= n:
                    return sorted(runs, key=lambda r: (r.get("dotted_order") or "", r.get("start_time") or ""))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"FakeLangSmith: {len(runs)} of {n} runs after {timeout_s}s "
                                       f"(requests: {[(m, p) for m, p, _, _ in self.requests]}, "
                                       f"errors: {self.errors})")
                self._cond.wait(min(left, 0.05))

    def wait_for_feedback(self, n: int, timeout_s: float = 10) -> list[dict[str, Any]]:
        """Wait until `n` feedback records arrived (feedback with a trace_id is queued by the client
        and sent in the multipart stream, like runs)."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while len(self.feedback) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"FakeLangSmith: {len(self.feedback)} of {n} feedback after {timeout_s}s")
                self._cond.wait(min(left, 0.05))
            return list(self.feedback)

    def runs_named(self, name: str) -> list[Run]:
        return [r for r in self.runs.values() if r.get("name") == name]

    # --- ingestion -------------------------------------------------------------------------------

    def _new_project(self, body: dict[str, Any]) -> dict[str, Any]:
        project = {"id": str(body.get("id") or uuid.uuid4()), "name": body["name"],
                   "description": body.get("description"), "extra": body.get("extra"),
                   "start_time": _now().isoformat(), "end_time": None, "tenant_id": TENANT_ID,
                   "reference_dataset_id": body.get("reference_dataset_id"), "run_count": 0}
        self.projects[project["id"]] = project
        return project

    def _ingest(self, op: str, payload: dict[str, Any]) -> None:
        """Record one create ("post") or update ("patch") and re-merge that run."""
        run_id = str(payload.get("id") or "")
        if not run_id:
            self.errors.append(f"{op} without id: {payload}")
            return
        with self._cond:
            self.ops.append((op, run_id, payload))
            posts, patches = self._run_ops.setdefault(run_id, ([], []))
            (posts if op == "post" else patches).append(payload)
            self.runs[run_id] = self._merge(run_id, posts, patches)
            self._traced.add(run_id)
            self._cond.notify_all()

    def _merge(self, run_id: str, posts: list[dict[str, Any]], patches: list[dict[str, Any]]) -> Run:
        """A run from its creates then its updates (later non-null values win; extra and its
        metadata merge key by key), whatever order they arrived in."""
        run: Run = {"id": run_id, "inputs": {}, "outputs": None, "extra": {"metadata": {}}, "tags": [],
                    "error": None, "events": [], "parent_run_id": None, "end_time": None}
        for payload in [*posts, *patches]:
            for key, value in payload.items():
                if value is None or key == "id":
                    continue
                if key == "extra" and isinstance(value, dict):
                    merged = {**run["extra"], **value}
                    merged["metadata"] = {**(run["extra"].get("metadata") or {}), **(value.get("metadata") or {})}
                    run["extra"] = merged
                else:
                    run[key] = value
        for key in ("start_time", "end_time"):
            if run.get(key):
                run[key] = iso(run[key])
        for key in ("trace_id", "parent_run_id", "session_id", "reference_example_id"):
            if run.get(key) is not None:
                run[key] = str(run[key])
        run.setdefault("trace_id", run_id)
        if not run.get("session_id"):
            project = self.project(run.get("session_name") or "default")
            run["session_id"] = project["id"]  # type: ignore[index]
        if not run.get("session_name") and run["session_id"] in self.projects:
            run["session_name"] = self.projects[run["session_id"]]["name"]
        if run.get("dotted_order") is None and run.get("start_time"):
            run["dotted_order"] = dotted_segment(parse_time(run["start_time"]), run_id)  # type: ignore[arg-type]
        run["status"] = "error" if run.get("error") else ("success" if run.get("end_time") else "pending")
        return run

    def _ingest_multipart(self, parts: list[tuple[str, str, bytes]]) -> None:
        ops: dict[tuple[str, str], dict[str, Any]] = {}
        for name, content_type, data in parts:
            pieces = name.split(".")
            if pieces[0] in ("post", "patch") and len(pieces) in (2, 3):
                payload = ops.setdefault((pieces[0], pieces[1]), {"id": pieces[1]})
                if len(pieces) == 2:
                    payload.update(json.loads(data))
                elif pieces[2] in RUN_FIELD_PARTS:
                    payload[pieces[2]] = json.loads(data)
                else:
                    self.errors.append(f"unknown multipart part {name!r}")
            elif pieces[0] == "attachment" and len(pieces) == 3:
                with self._cond:
                    self.attachments.setdefault(pieces[1], {})[pieces[2]] = (content_type, data)
            elif pieces[0] == "feedback" and len(pieces) == 2:
                self._record_feedback(json.loads(data))
            else:
                self.errors.append(f"unknown multipart part {name!r}")
        for (op, _), payload in ops.items():
            self._ingest(op, payload)

    def _record_feedback(self, body: dict[str, Any]) -> dict[str, Any]:
        now = _now().isoformat()
        feedback = {"id": str(uuid.uuid4()), "created_at": now, "modified_at": now, "run_id": None,
                    "trace_id": None, **body}
        for key in ("id", "run_id", "trace_id", "session_id"):
            if feedback.get(key) is not None:
                feedback[key] = str(feedback[key])
        with self._cond:
            self.feedback.append(feedback)
            self._cond.notify_all()
        return feedback

    # --- routes ----------------------------------------------------------------------------------

    async def _body(self, request: Request) -> bytes:
        return decode_body(await request.body(), request.headers.get("content-encoding", ""))

    async def _json(self, request: Request) -> Any:
        """The JSON body; a body the fake cannot read is kept in `.errors` and answered 422."""
        try:
            return json.loads(await self._body(request))
        except Exception as exc:
            self.errors.append(f"{request.method} {request.url.path}: {exc!r}")
            raise _BadBody(str(exc)) from exc

    async def _info(self, request: Request) -> Response:
        return JSONResponse(self.info)

    async def _multipart(self, request: Request) -> Response:
        try:
            parts = parse_multipart(await self._body(request), request.headers.get("content-type", ""))
            self._ingest_multipart(parts)
        except Exception as exc:  # a malformed body is the client's bug: say so, keep serving
            self.errors.append(f"/runs/multipart: {exc!r}")
            return JSONResponse({"detail": f"bad multipart body: {exc}"}, status_code=422)
        return JSONResponse({}, status_code=202)

    async def _batch(self, request: Request) -> Response:
        body = await self._json(request)
        for op in ("post", "patch"):
            for payload in body.get(op) or []:
                self._ingest(op, payload)
        return JSONResponse({}, status_code=202)

    async def _post_run(self, request: Request) -> Response:
        self._ingest("post", await self._json(request))
        return JSONResponse({}, status_code=202)

    async def _run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        if request.method == "PATCH":
            self._ingest("patch", {**await self._json(request), "id": run_id})
            return JSONResponse({}, status_code=202)
        run = self.runs.get(run_id)
        if run is None:
            return JSONResponse({"detail": f"Run {run_id} not found"}, status_code=404)
        return JSONResponse(self._served(run))

    async def _sessions(self, request: Request) -> Response:
        if request.method == "POST":
            body = await self._json(request)
            existing = self.project(body["name"], create=False)
            if existing is not None:
                if request.query_params.get("upsert", "").lower() != "true":
                    return JSONResponse({"detail": f"Project {body['name']} already exists"}, status_code=409)
                existing.update({k: v for k, v in body.items() if v is not None and k != "id"})
                return JSONResponse(self._served_project(existing))
            with self._cond:
                project = self._new_project(body)
            return JSONResponse(self._served_project(project))
        name = request.query_params.get("name")
        projects = [p for p in self.projects.values() if name is None or p["name"] == name]
        offset = int(request.query_params.get("offset", 0))
        limit = int(request.query_params.get("limit", 100))
        return JSONResponse([self._served_project(p) for p in projects[offset:offset + limit]])

    async def _session(self, request: Request) -> Response:
        project = self.projects.get(request.path_params["project_id"])
        if project is None:
            return JSONResponse({"detail": "Project not found"}, status_code=404)
        return JSONResponse(self._served_project(project))

    async def _query(self, request: Request) -> Response:
        body = await self._json(request)
        try:
            matching = self._select(body)
        except FilterError as exc:
            return JSONResponse({"detail": f"FakeLangSmith: {exc}"}, status_code=400)
        offset = _decode_cursor(body.get("cursor"))
        size = min(int(body.get("limit") or self.page_size), self.page_size)
        page = matching[offset:offset + size]
        more = offset + size < len(matching)
        return JSONResponse({"runs": [self._served(r) for r in page],
                             "cursors": {"next": _encode_cursor(offset + size) if more else None,
                                         "prev": _encode_cursor(max(offset - size, 0)) if offset else None}})

    async def _query_v2(self, request: Request) -> Response:
        body = await self._json(request)
        try:
            matching = self._select(self._v1_body(body))
            selects = ["ID", *(s for s in body.get("selects") or [] if s != "ID")]
            unknown = [s for s in selects if s not in V2_FIELDS]
            if unknown:
                raise FilterError(f"selects {unknown} are not served")
        except FilterError as exc:
            return JSONResponse({"detail": f"FakeLangSmith: {exc}"}, status_code=400)
        offset = _decode_cursor(body.get("cursor"))
        size = min(int(body.get("page_size") or 100), self.page_size)
        page = matching[offset:offset + size]
        more = offset + size < len(matching)
        items = [{select.lower(): V2_FIELDS[select](run) for select in selects} for run in page]
        return JSONResponse({"items": items, "next_cursor": _encode_cursor(offset + size) if more else None})

    def _v1_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """A v2 query as the v1 body `_select` reads: projects required, the window explicit (default
        the last day up to now, as LangSmith's), upper-case run types."""
        extra = sorted(k for k, v in body.items() if k not in V2_TO_V1 and k not in V2_PAGING and v is not None)
        if extra:
            raise FilterError(f"{extra} are not supported")
        if not body.get("project_ids"):
            raise FilterError("project_ids is required")
        v1 = {V2_TO_V1[k]: v for k, v in body.items() if k in V2_TO_V1 and v is not None}
        now = _now()
        v1["start_time"] = body.get("min_start_time") or (now - dt.timedelta(days=1)).isoformat()
        v1["end_time"] = body.get("max_start_time") or now.isoformat()
        if body.get("run_type"):
            v1["run_type"] = str(body["run_type"]).lower()
        return v1

    async def _feedback(self, request: Request) -> Response:
        if request.method == "POST":
            return JSONResponse(self._record_feedback(await self._json(request)))
        runs = set(request.query_params.getlist("run"))
        keys = set(request.query_params.getlist("key"))
        found = [f for f in self.feedback
                 if (not runs or f.get("run_id") in runs) and (not keys or f.get("key") in keys)]
        offset = int(request.query_params.get("offset", 0))
        limit = int(request.query_params.get("limit", 100))
        return JSONResponse(found[offset:offset + limit])

    async def _read_feedback(self, request: Request) -> Response:
        for feedback in self.feedback:
            if feedback["id"] == request.path_params["feedback_id"]:
                return JSONResponse(feedback)
        return JSONResponse({"detail": "Feedback not found"}, status_code=404)

    async def _unhandled(self, request: Request) -> Response:
        self.unhandled.append((request.method, request.url.path))
        return JSONResponse({"detail": f"FakeLangSmith does not serve {request.method} {request.url.path}"},
                            status_code=404)

    # --- serving ---------------------------------------------------------------------------------

    def _select(self, body: dict[str, Any]) -> list[Run]:
        """The runs matching a /runs/query body, in the requested order."""
        for unsupported in ("query", "tree_filter", "search_filter"):
            if body.get(unsupported):
                raise FilterError(f"{unsupported} is not supported")
        predicates: list[Callable[[Run], bool]] = []
        if body.get("session"):
            sessions = {str(s) for s in body["session"]}
            predicates.append(lambda r: r.get("session_id") in sessions)
        if body.get("run_type"):
            predicates.append(lambda r: r.get("run_type") == body["run_type"])
        if body.get("is_root") is not None:
            predicates.append(lambda r: (r.get("parent_run_id") is None) == bool(body["is_root"]))
        if body.get("parent_run"):
            predicates.append(lambda r: r.get("parent_run_id") == str(body["parent_run"]))
        if body.get("trace"):
            predicates.append(lambda r: r.get("trace_id") == str(body["trace"]))
        if body.get("id"):
            ids = {str(i) for i in body["id"]}
            predicates.append(lambda r: r["id"] in ids)
        if body.get("reference_example"):
            examples = {str(e) for e in body["reference_example"]}
            predicates.append(lambda r: r.get("reference_example_id") in examples)
        if body.get("error") is not None:
            predicates.append(lambda r: bool(r.get("error")) == bool(body["error"]))
        if body.get("start_time"):
            lower = parse_time(body["start_time"])
            predicates.append(lambda r: (t := parse_time(r.get("start_time"))) is not None and t >= lower)
        if body.get("end_time"):
            upper = parse_time(body["end_time"])
            predicates.append(lambda r: (t := parse_time(r.get("start_time"))) is not None and t <= upper)
        if body.get("filter"):
            predicates.append(parse_filter(body["filter"]))
        if body.get("trace_filter"):
            on_root = parse_filter(body["trace_filter"])
            predicates.append(lambda r: (root := self.runs.get(r.get("trace_id") or "")) is not None
                              and on_root(root))
        with self._cond:
            runs = list(self.runs.values())
        matching = [r for r in runs if all(p(r) for p in predicates)]
        matching.sort(key=lambda r: (parse_time(r.get("start_time")) or _now(), r.get("dotted_order") or ""),
                      reverse=body.get("order", "desc") != "asc")
        return matching

    def _served(self, run: Run) -> dict[str, Any]:
        out = {k: run.get(k) for k in SERVED_KEYS}
        out["parent_run_ids"] = _ancestors(run)
        out["feedback_stats"] = out["feedback_stats"] or self._feedback_stats(run["id"]) or None
        return out

    def _feedback_stats(self, run_id: str) -> dict[str, Any]:
        """{key: {"n", "avg"}} over the run's feedback scores, as LangSmith summarises them."""
        scores: dict[str, list[float]] = {}
        for feedback in self.feedback:
            if feedback.get("run_id") == run_id:
                score = feedback.get("score")
                scores.setdefault(feedback["key"], []).extend([] if score is None else [float(score)])
        return {key: {"n": len(v), "avg": sum(v) / len(v) if v else None} for key, v in scores.items()}

    def _served_project(self, project: dict[str, Any]) -> dict[str, Any]:
        """The project with its run count; its start_time is never after its earliest run (a run
        preloaded in the past moves it back), so a window from the project's start holds every run."""
        runs = [r for r in self.runs.values() if r.get("session_id") == project["id"]]
        starts = [t for r in runs if (t := parse_time(r.get("start_time"))) is not None]
        start = min([parse_time(project["start_time"]) or _now(), *starts])
        return {**project, "start_time": start.isoformat(), "run_count": len(runs)}


def _ancestors(run: Run) -> list[str]:
    """The ids of a run's ancestors, root first, from its dotted_order (`<time>Z<id>` segments)."""
    ids = [seg.split("Z", 1)[1] for seg in (run.get("dotted_order") or "").split(".") if "Z" in seg]
    return [i for i in ids if i != run["id"]]


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _decode_cursor(cursor: Any) -> int:
    if not cursor:
        return 0
    return int(base64.urlsafe_b64decode(str(cursor)).decode().split(":", 1)[1])


class _RecordMiddleware:
    """Keep every request (method, path, headers, raw body) and its API key before routing."""

    def __init__(self, app: Any, fake: FakeLangSmith):
        self.app = app
        self.fake = fake

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        with self.fake._cond:
            self.fake.requests.append((scope["method"], scope["path"], headers, body))
            if headers.get("x-api-key"):
                self.fake.api_keys_seen.add(headers["x-api-key"])
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: wait for the real disconnect
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
