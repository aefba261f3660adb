"""FakeLangSmith driven by the real `langsmith` client (and LangChain's tracer) over real sockets.

Every test runs with no LANGSMITH_* / LANGCHAIN_* variables (the client caches them: the cache is
cleared around each test) and with a guard that records any connection or DNS lookup leaving
127.0.0.1, so a client reaching for the hosted service fails the test.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from typing import Any

import langsmith
import pytest
from langsmith import traceable, tracing_context
from langsmith._exceptions import BadRequestError  # what the v2 (OpenAPI) client raises on a 400
from langsmith.run_helpers import trace
from langsmith.utils import LangSmithError, LangSmithNotFoundError

from tests.fakes.langsmith_server import FakeLangSmith, FilterError, parse_filter

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::langsmith.utils.LangSmithWarning")

LOCAL = {"127.0.0.1", "localhost", "::1"}
KEY = "ls-test-key"


@pytest.fixture(autouse=True)
def offline_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """No LangSmith env (cache cleared both ways) and a record of any non-local connection."""
    for name in list(os.environ):
        if name.startswith(("LANGSMITH_", "LANGCHAIN_")):
            monkeypatch.delenv(name)
    langsmith.utils.get_env_var.cache_clear()
    langsmith.utils.get_tracer_project.cache_clear()
    outside: list[str] = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and str(host) not in LOCAL:
            outside.append(f"dns {host}")
            raise OSError(f"test is offline: {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and str(address[0]) not in LOCAL:
            outside.append(f"connect {address}")
            raise OSError(f"test is offline: {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    yield outside
    assert outside == [], f"the client tried to leave 127.0.0.1: {outside}"
    langsmith.utils.get_env_var.cache_clear()
    langsmith.utils.get_tracer_project.cache_clear()


@pytest.fixture
def ls() -> Iterator[FakeLangSmith]:
    with FakeLangSmith() as server:
        yield server
        assert server.unhandled == [] and server.errors == []


def client_for(server: FakeLangSmith, **kwargs: Any) -> langsmith.Client:
    return langsmith.Client(api_url=server.url, api_key=KEY, **kwargs)


def wait_compression_ready(client: langsmith.Client, timeout_s: float = 5) -> None:
    """The client turns zstd on from its background thread once /info answered; wait for it so the
    test knows which path its runs take."""
    deadline = time.monotonic() + timeout_s
    while client.compressed_traces is None:
        assert time.monotonic() < deadline, "client never enabled run compression"
        time.sleep(0.01)


def paths(server: FakeLangSmith) -> list[tuple[str, str]]:
    return [(method, path) for method, path, _, _ in server.requests]


@traceable(name="extract_child", run_type="llm", tags=["child_tag"], metadata={"role": "reader"})
def _child(text: str) -> dict[str, Any]:
    return {"facts": [text.upper()]}


@traceable(name="memory_extraction", tags=["memory_extraction"], metadata={"case_id": "c1", "turn_index": 3})
def _parent(text: str) -> dict[str, Any]:
    return {"written": _child(text)["facts"]}


def test_traceable_tree_arrives_zstd_multipart(ls: FakeLangSmith) -> None:
    client = client_for(ls)
    wait_compression_ready(client)
    with tracing_context(enabled=True, client=client, project_name="p1"):
        assert _parent("hello") == {"written": ["HELLO"]}
    client.flush()
    runs = ls.wait_for_runs(2)

    parent = next(r for r in runs if r["name"] == "memory_extraction")
    child = next(r for r in runs if r["name"] == "extract_child")
    assert parent["inputs"] == {"text": "hello"} and parent["outputs"] == {"written": ["HELLO"]}
    assert child["inputs"] == {"text": "hello"} and child["outputs"] == {"facts": ["HELLO"]}
    assert child["parent_run_id"] == parent["id"] and parent["parent_run_id"] is None
    assert child["trace_id"] == parent["trace_id"] == parent["id"]
    assert child["dotted_order"].startswith(parent["dotted_order"] + ".")
    assert parent["tags"] == ["memory_extraction"] and "child_tag" in child["tags"]
    assert parent["extra"]["metadata"]["case_id"] == "c1" and parent["extra"]["metadata"]["turn_index"] == 3
    assert child["extra"]["metadata"]["role"] == "reader" and child["run_type"] == "llm"
    assert parent["session_name"] == child["session_name"] == "p1"
    assert parent["session_id"] == ls.project("p1", create=False)["id"]  # type: ignore[index]
    assert parent["start_time"] and parent["end_time"] and parent["status"] == "success"
    assert ls.api_keys_seen == {KEY}
    ingest = [(h.get("content-encoding"), h["content-type"]) for m, p, h, _ in ls.requests if p == "/runs/multipart"]
    assert ingest and all(enc == "zstd" and ct.startswith("multipart/form-data") for enc, ct in ingest)
    assert ("GET", "/info") in paths(ls)

    # read back what was traced
    project = client.read_project(project_name="p1")
    assert str(project.id) == parent["session_id"] and project.run_count == 2
    stored = client.read_run(parent["id"])
    assert stored.name == "memory_extraction" and stored.outputs == {"written": ["HELLO"]}
    roots = list(client.list_runs(project_name="p1", is_root=True))
    assert [r.name for r in roots] == ["memory_extraction"]
    llm = list(client.list_runs(project_name="p1", run_type="llm"))
    assert [str(r.parent_run_id) for r in llm] == [parent["id"]]


@pytest.mark.parametrize("server_kw,client_kw,endpoints", [
    ({"compression": False}, {}, {("POST", "/runs/multipart")}),
    ({"multipart": False}, {}, {("POST", "/runs/batch")}),
    ({}, {"auto_batch_tracing": False}, {("POST", "/runs"), ("PATCH", "/runs/{id}")}),
], ids=["plain-multipart", "batch", "no-batching"])
def test_trace_context_through_each_ingest_path(server_kw: dict[str, Any], client_kw: dict[str, Any],
                                               endpoints: set[tuple[str, str]]) -> None:
    with FakeLangSmith(**server_kw) as server:
        client = client_for(server, **client_kw)
        with tracing_context(enabled=True), \
                trace("turn", run_type="chain", inputs={"q": 1}, client=client, project_name="p1",
                      tags=["memory_extraction"], metadata={"phase": "ingest"}) as root:
            with trace("step", inputs={"q": 2}, client=client, project_name="p1") as step:
                step.end(outputs={"a": 2})
            root.end(outputs={"a": 1})
        client.flush()
        runs = {r["name"]: r for r in server.wait_for_runs(2)}
        assert runs["turn"]["outputs"] == {"a": 1} and runs["step"]["outputs"] == {"a": 2}
        assert runs["step"]["parent_run_id"] == runs["turn"]["id"]
        assert runs["turn"]["tags"] == ["memory_extraction"] and runs["turn"]["extra"]["metadata"]["phase"] == "ingest"
        used = {(m, "/runs/{id}" if m == "PATCH" else p) for m, p in paths(server) if p.startswith("/runs")}
        assert used == endpoints
        assert all(h.get("content-encoding") is None for _, _, h, _ in server.requests)
        assert server.unhandled == [] and server.errors == [] and server.api_keys_seen == {KEY}


def test_langchain_tracer_callback(ls: FakeLangSmith) -> None:
    from langchain_core.runnables import RunnableLambda
    from langchain_core.tracers.langchain import LangChainTracer

    client = client_for(ls)
    tracer = LangChainTracer(client=client, project_name="p1")
    chain = RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(lambda x: x * 3, name="triple")
    out = chain.invoke(2, config={"callbacks": [tracer], "tags": ["memory_extraction"], "run_name": "lc_root",
                                  "metadata": {"case_id": "c9", "role": "agent"}})
    assert out == 9
    tracer.wait_for_futures()
    client.flush()
    runs = {r["name"]: r for r in ls.wait_for_runs(3)}
    root = runs["lc_root"]
    assert root["inputs"] == {"input": 2} and root["outputs"] == {"output": 9}
    assert root["tags"] == ["memory_extraction"] and root["parent_run_id"] is None
    assert root["extra"]["metadata"]["case_id"] == "c9" and root["extra"]["metadata"]["role"] == "agent"
    for name in ("inc", "triple"):
        assert runs[name]["parent_run_id"] == root["id"] and "memory_extraction" in runs[name]["tags"]
        assert runs[name]["extra"]["metadata"]["case_id"] == "c9"
    assert {r["session_name"] for r in runs.values()} == {"p1"}
    assert ls.api_keys_seen == {KEY}


def test_list_runs_filter_window_and_pages() -> None:
    t0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
    with FakeLangSmith(page_size=2) as server:
        wanted = {server.add_run(project_name="p2", name="memory_extraction", tags=["memory_extraction", "x"],
                                 start_time=t0 + dt.timedelta(minutes=i), inputs={"i": i},
                                 metadata={"case_id": f"c{i}"})["id"] for i in range(5)}
        server.add_run(project_name="p2", tags=["memory_extraction"], start_time=t0 - dt.timedelta(hours=1))
        server.add_run(project_name="p2", tags=["other"], start_time=t0 + dt.timedelta(minutes=1))
        server.add_run(project_name="elsewhere", tags=["memory_extraction"], start_time=t0)
        late = server.add_run(project_name="p2", tags=["memory_extraction"], start_time=t0 + dt.timedelta(days=2))
        child = server.add_run(project_name="p2", tags=["memory_extraction"], parent_run_id=next(iter(wanted)),
                               start_time=t0 + dt.timedelta(minutes=10), name="inner")
        client = client_for(server)

        got = list(client.list_runs(project_name="p2", filter='has(tags, "memory_extraction")',
                                    start_time=t0, is_root=True, end_time=t0 + dt.timedelta(days=1)))
        assert {str(r.id) for r in got} == wanted and len(got) == 5
        assert [r.start_time for r in got] == sorted((r.start_time for r in got), reverse=True)
        assert {r.metadata["case_id"] for r in got} == {f"c{i}" for i in range(5)}
        queries = [b for m, p, _, b in server.requests if p == "/runs/query"]
        assert len(queries) == 3  # 2 + 2 + 1 with page_size=2

        no_end = {str(r.id) for r in client.list_runs(project_name="p2", start_time=t0,
                                                      filter='has(tags, "memory_extraction")')}
        assert no_end == wanted | {late["id"], child["id"]}
        limited = list(client.list_runs(project_name="p2", start_time=t0, limit=3,
                                        filter='and(has(tags, "memory_extraction"), has(tags, "x"))'))
        assert len(limited) == 3 and {str(r.id) for r in limited} <= wanted
        named = list(client.list_runs(project_name="p2", filter='and(has(tags, "memory_extraction"), '
                                                               'eq(name, "inner"))'))
        assert [str(r.id) for r in named] == [child["id"]]
        assert [str(i) for i in named[0].parent_run_ids or []] == [child["parent_run_id"]]

        with pytest.raises(LangSmithError, match="unsupported filter function"):
            list(client.list_runs(project_name="p2", filter='search(name, "x")'))
        with pytest.raises(LangSmithError, match="has\\(\\) supports only tags"):
            list(client.list_runs(project_name="p2", filter='has(name, "x")'))
        assert server.unhandled == [] and server.errors == []


async def _query(client: langsmith.Client, **query: Any) -> list[Any]:
    return [run async for run in client.runs.query_v2(**query)]


async def test_runs_query_v2_window_selects_and_pages() -> None:
    """`client.runs.query_v2` (async, what the `list_runs` deprecation points to): POST /api/v2/runs/query."""
    now = dt.datetime.now(dt.UTC)
    with FakeLangSmith(page_size=2) as server:
        wanted = {server.add_run(project_name="p2", name="memory_extraction", tags=["memory_extraction"],
                                 start_time=now - dt.timedelta(hours=i + 1), inputs={"i": i}, outputs={"o": i},
                                 metadata={"case_id": f"c{i}"})["id"] for i in range(5)}
        old = server.add_run(project_name="p2", tags=["memory_extraction"], start_time=now - dt.timedelta(days=3))
        server.add_run(project_name="p2", tags=["other"], start_time=now - dt.timedelta(hours=1))
        server.add_run(project_name="elsewhere", tags=["memory_extraction"], start_time=now - dt.timedelta(hours=1))
        child = server.add_run(project_name="p2", tags=["memory_extraction"], parent_run_id=next(iter(wanted)),
                               start_time=now - dt.timedelta(minutes=5), name="inner")
        client = client_for(server)
        project = client.read_project(project_name="p2")
        assert project.start_time <= now - dt.timedelta(days=3)  # never after its earliest run
        selects = ["ID", "START_TIME", "INPUTS", "OUTPUTS", "METADATA", "PROJECT_ID"]

        got = await _query(client, project_ids=[str(project.id)], filter='has(tags, "memory_extraction")',
                           is_root=True, selects=selects)  # the window defaults to the last day
        assert {r.id for r in got} == wanted and len(got) == 5
        assert [r.start_time for r in got] == sorted((r.start_time for r in got), reverse=True)
        assert {r.metadata["case_id"] for r in got} == {f"c{i}" for i in range(5)}
        assert {r.project_id for r in got} == {str(project.id)} and got[0].inputs and got[0].outputs
        assert got[0].tags is None and got[0].name is None  # only what was selected
        pages = [json.loads(b) for _, p, _, b in server.requests if p == "/api/v2/runs/query"]
        assert len(pages) == 3 and "cursor" not in pages[0] and pages[1]["cursor"]  # 2 + 2 + 1 with page_size=2

        everything = await _query(client, project_ids=[str(project.id)], filter='has(tags, "memory_extraction")',
                                  min_start_time=project.start_time, max_start_time=now, selects=["ID", "PARENT_RUN_IDS"])
        assert {r.id for r in everything} == wanted | {old["id"], child["id"]}
        assert next(r for r in everything if r.id == child["id"]).parent_run_ids == [child["parent_run_id"]]

        with pytest.raises(BadRequestError, match="project_ids"):
            await _query(client, filter='has(tags, "memory_extraction")')
        with pytest.raises(BadRequestError, match="ai_search"):
            await _query(client, project_ids=[str(project.id)], ai_search="cats")
        with pytest.raises(BadRequestError, match="not served"):
            await _query(client, project_ids=[str(project.id)], selects=["ID", "SHARE_URL"])
        assert server.unhandled == [] and server.errors == []


def test_read_run_and_projects(ls: FakeLangSmith) -> None:
    run = ls.add_run(project_name="p3", name="memory_extraction", run_type="chain", inputs={"conversation": []},
                     outputs={"extracted_output": ["a fact"]}, tags=["memory_extraction"], metadata={"case_id": "c7"})
    client = client_for(ls)
    stored = client.read_run(run["id"])
    assert str(stored.id) == run["id"] and stored.outputs == {"extracted_output": ["a fact"]}
    assert stored.tags == ["memory_extraction"] and stored.metadata["case_id"] == "c7"
    assert str(stored.session_id) == client.read_project(project_name="p3").id.__str__()
    assert str(stored.trace_id) == run["id"] and stored.end_time is not None
    with pytest.raises(LangSmithNotFoundError):
        client.read_run(uuid.uuid4())
    with pytest.raises(LangSmithNotFoundError):
        client.read_project(project_name="missing")

    created = client.create_project("fresh", description="d")
    assert client.read_project(project_name="fresh").id == created.id
    assert client.read_project(project_id=str(created.id)).name == "fresh"
    assert client.has_project("fresh") and not client.has_project("nope")


def test_create_and_list_feedback(ls: FakeLangSmith) -> None:
    run = ls.add_run(project_name="p2", tags=["memory_extraction"])
    client = client_for(ls)
    client.create_feedback(run["id"], key="fact_f1", score=0.8, comment="2 of 3 facts", value={"tp": 2})
    assert ("POST", "/feedback") in paths(ls)
    [feedback] = ls.feedback
    assert feedback["run_id"] == run["id"] and feedback["key"] == "fact_f1" and feedback["score"] == 0.8
    assert feedback["comment"] == "2 of 3 facts" and feedback["value"] == {"tp": 2}

    # with a trace_id the client queues feedback into the multipart stream (server version >= 0.8.10)
    client.create_feedback(run["id"], key="fact_p", score=1.0, trace_id=run["id"], session_id=run["session_id"])
    client.flush()
    queued = ls.wait_for_feedback(2)[1]
    assert queued["key"] == "fact_p" and queued["trace_id"] == run["id"] and queued["run_id"] == run["id"]
    assert any(p == "/runs/multipart" for _, p in paths(ls))

    listed = list(client.list_feedback(run_ids=[run["id"]], feedback_key=["fact_f1"]))
    assert [(str(f.run_id), f.key, f.score) for f in listed] == [(run["id"], "fact_f1", 0.8)]
    assert client.read_run(run["id"]).feedback_stats["fact_f1"]["avg"] == 0.8  # type: ignore[index]
    assert ls.api_keys_seen == {KEY}


def test_filter_subset() -> None:
    run = {"id": "r1", "name": "memory_extraction", "tags": ["memory_extraction", "b"], "run_type": "chain",
           "error": None, "start_time": "2025-03-01T12:00:00+00:00"}
    assert parse_filter('has(tags, "memory_extraction")')(run)
    assert parse_filter("and(has(tags, 'b'), eq(name, \"memory_extraction\"), eq(error, null))")(run)
    assert not parse_filter('and(has(tags, "b"), neq(run_type, "chain"))')(run)
    assert parse_filter('or(has(tags, "zzz"), not(eq(name, "other")))')(run)
    assert parse_filter('and(gte(start_time, "2025-03-01T12:00:00Z"), lt(start_time, "2025-03-02"))')(run)
    for bad in ('has(tags "x")', "eq(latency, 3)", 'foo(tags, "x")', 'has(tags, "x") extra', ""):
        with pytest.raises(FilterError):
            parse_filter(bad)


def test_raw_gzip_multipart_and_out_of_order_update(ls: FakeLangSmith) -> None:
    """What the client does not do on its own: a gzip body, and an update that overtakes its create."""
    import gzip
    import json

    import requests

    run_id, boundary = str(uuid.uuid4()), "b0undary"
    patch = {"id": run_id, "trace_id": run_id, "end_time": "2025-03-01T12:00:05Z", "dotted_order": "x"}
    parts = [(f"patch.{run_id}", patch), (f"patch.{run_id}.outputs", {"answer": 42})]
    body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n'
                    f"Content-Type: application/json\r\n\r\n".encode() + json.dumps(value).encode() + b"\r\n"
                    for name, value in parts) + f"--{boundary}--\r\n".encode()
    answer = requests.post(f"{ls.url}/runs/multipart", data=gzip.compress(body), timeout=5,
                           headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                                    "Content-Encoding": "gzip", "x-api-key": "other-key"})
    assert answer.status_code == 202
    create = {"id": run_id, "trace_id": run_id, "name": "late_create", "run_type": "tool", "inputs": {"q": 1},
              "start_time": "2025-03-01T12:00:00Z", "session_name": "p9", "outputs": None}
    assert requests.post(f"{ls.url}/runs/batch", json={"post": [create]}, timeout=5).status_code == 202
    [run] = ls.wait_for_runs(1)
    assert run["name"] == "late_create" and run["outputs"] == {"answer": 42} and run["inputs"] == {"q": 1}
    assert run["end_time"] == "2025-03-01T12:00:05+00:00" and run["status"] == "success"
    assert run["session_name"] == "p9" and [op for op, _, _ in ls.ops] == ["patch", "post"]
    assert ls.api_keys_seen == {"other-key"}


def test_unreadable_body_is_a_422_and_kept(ls: FakeLangSmith) -> None:
    import requests

    answer = requests.post(f"{ls.url}/runs/batch", data=b"{not json", timeout=5)
    assert answer.status_code == 422 and "unreadable body" in answer.json()["detail"]
    assert len(ls.errors) == 1 and ls.runs == {}
    ls.errors.clear()  # the fixture asserts no errors
