"""Strict arguments on both interfaces of the real service: numbers are numbers, strings stay strings.

The MCP calls are raw JSON-RPC over HTTP because the Python MCP client writes NaN and Infinity
as null; a raw body carries exactly the JSON under test (NaN, 1e400, "5", true).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings

ACCEPT = "application/json, text/event-stream"
REST_NAMES = {"topK": "top_k", "alpha": "alpha"}


class RawMcp:
    """One MCP session spoken by hand: tools/call with an arguments object given as JSON text."""

    def __init__(self, server: EmbeddedMemoryService):
        self.url = server.mcp_url
        self.http = httpx.Client(timeout=30, headers={**server.auth_headers, "Accept": ACCEPT,
                                                      "Content-Type": "application/json"})
        init = self.http.post(self.url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "strict", "version": "1"}}})
        assert init.status_code == 200, init.text
        self.http.headers.update({"mcp-session-id": init.headers["mcp-session-id"],
                                  "mcp-protocol-version": "2025-06-18"})
        self.http.post(self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.next_id = 1

    def call(self, tool: str, arguments_json: str) -> tuple[bool, str]:
        """(is_error, text) of one tools/call."""
        self.next_id += 1
        raw = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s}}' % (
            self.next_id, json.dumps(tool), arguments_json)
        response = self.http.post(self.url, content=raw.encode())
        assert response.status_code == 200, response.text
        result = response.json()["result"]
        return bool(result.get("isError")), result["content"][0]["text"]

    def ok(self, tool: str, **arguments: Any) -> Any:
        is_error, text = self.call(tool, json.dumps(arguments))
        assert not is_error, text
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def close(self) -> None:
        self.http.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("strict")
    settings = ServiceSettings(port=0, db_path=str(root / "strict.sqlite"), embedder="static")
    with EmbeddedMemoryService(settings, log_path=root / "service.log") as svc:
        yield svc


@pytest.fixture(scope="module")
def mcp(server):
    session = RawMcp(server)
    yield session
    session.close()


@pytest.fixture(scope="module")
def memory(mcp) -> tuple[str, str]:
    vault_id = mcp.ok("create_vault", title="strict")["vaultId"]
    memory_id = mcp.ok("create_memory_in_vault", vault_id=vault_id, title="m", memory_type="NOTES")["memoryId"]
    for text in ("the hamster eats seeds", "a flight to Lisbon", "seeds for the garden"):
        assert mcp.ok("add_entry", vault_id=vault_id, memory_id=memory_id, raw_entry=text, summary=text) == "enqueued"
    assert mcp.ok("await_consistency", memory_id=memory_id) == "consistent"
    return vault_id, memory_id


def rest_search(server: EmbeddedMemoryService, body_json: str) -> httpx.Response:
    return httpx.post(f"{server.rest_url}/v0/search", content=body_json.encode(), timeout=30,
                      headers={**server.auth_headers, "Content-Type": "application/json"})


def mcp_verdict(mcp: RawMcp, memory_id: str, name: str, value_json: str) -> str | None:
    """None when search_memories accepts the value, else the argument its error names."""
    is_error, text = mcp.call("search_memories", '{"memory_id":%s,"query":"seeds","%s":%s}' % (
        json.dumps(memory_id), name, value_json))
    if not is_error:
        return None
    tool, argument, _ = text.split(": ", 2)
    assert tool == "search_memories", text
    return argument


def rest_verdict(server: EmbeddedMemoryService, memory_id: str, name: str, value_json: str) -> str | None:
    response = rest_search(server, '{"memoryId":%s,"query":"seeds","%s":%s}' % (json.dumps(memory_id), name, value_json))
    if response.status_code == 200:
        return None
    assert response.status_code == 400, response.text
    return REST_NAMES[response.json()["error"].split(": ", 1)[0]]


REFUSED_NUMBERS = ['"5"', "true", "false", "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "5.5", "[5]", '{"n": 5}']


@pytest.mark.parametrize("value", REFUSED_NUMBERS)
def test_top_k_that_is_not_a_whole_number_is_refused_by_both_interfaces(server, mcp, memory, value):
    _, memory_id = memory
    is_error, text = mcp.call("search_memories", '{"memory_id":"%s","query":"seeds","top_k":%s}' % (memory_id, value))
    assert is_error and text.startswith("search_memories: top_k: must be a"), text
    response = rest_search(server, '{"memoryId":"%s","query":"seeds","topK":%s}' % (memory_id, value))
    assert response.status_code == 400 and response.json()["error"] == text.removeprefix("search_memories: ") \
        .replace("top_k", "topK", 1), response.text


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e400"])
def test_non_finite_numbers_are_named_as_such(server, mcp, memory, value):
    vault_id, memory_id = memory
    shown = "NaN" if value == "NaN" else "Infinity"
    assert mcp.call("search_memories", '{"memory_id":"%s","query":"x","alpha":%s}' % (memory_id, value)) == (
        True, f"search_memories: alpha: must be a finite number, got {shown}")
    assert mcp.call("list_entries", '{"vault_id":"%s","memory_id":"%s","limit":%s}' % (vault_id, memory_id, value)) \
        == (True, f"list_entries: limit: must be a finite number, got {shown}")
    response = rest_search(server, '{"memoryId":"%s","query":"x","alpha":%s}' % (memory_id, value))
    assert response.status_code == 400 and response.json() == {"error": f"alpha: must be a finite number, got {shown}"}


@pytest.mark.parametrize("alpha, limit", [('"5"', '"5"'), ("true", "true"), ('"0.5"', "2.5"), ("2", "0")])
def test_alpha_and_limit_are_strict_too(mcp, memory, alpha, limit):
    vault_id, memory_id = memory
    is_error, text = mcp.call("search_memories", '{"memory_id":"%s","query":"x","alpha":%s}' % (memory_id, alpha))
    assert is_error and text == f"search_memories: alpha: must be a number from 0 (pure BM25) to 1 (pure vector), " \
                                f"got {alpha}", text
    is_error, text = mcp.call("list_entries", '{"vault_id":"%s","memory_id":"%s","limit":%s}' % (
        vault_id, memory_id, limit))
    assert is_error and text == f"list_entries: limit: must be a whole number from 1 to 50, got {limit}", text


def test_whole_numbers_written_as_floats_are_accepted_on_both_interfaces(server, mcp, memory):
    _, memory_id = memory
    is_error, text = mcp.call("search_memories", '{"memory_id":"%s","query":"seeds","top_k":2.0}' % memory_id)
    assert not is_error and json.loads(text)["count"] == 2, text
    response = rest_search(server, '{"memoryId":"%s","query":"seeds","topK":2.0}' % memory_id)
    assert response.status_code == 200 and response.json()["count"] == 2


def test_tags_with_nan_are_refused_and_nothing_is_stored(mcp, memory):
    vault_id, memory_id = memory
    before = mcp.ok("list_entries", vault_id=vault_id, memory_id=memory_id)["count"]
    for tags, where in (('{"a": NaN}', "tags.a is NaN"), ('{"a": {"b": [1, -Infinity]}}', "tags.a.b.1 is -Infinity"),
                        ('{"big": 1e400}', "tags.big is Infinity")):
        is_error, text = mcp.call("add_entry", '{"vault_id":"%s","memory_id":"%s","raw_entry":"r","summary":"s",'
                                               '"tags":%s}' % (vault_id, memory_id, tags))
        assert (is_error, text) == (True, f"add_entry: tags: must hold only finite numbers; {where}")
    assert mcp.ok("list_entries", vault_id=vault_id, memory_id=memory_id)["count"] == before


def test_a_lone_surrogate_in_a_tags_key_is_refused_naming_tags(mcp, memory):
    vault_id, memory_id = memory
    is_error, text = mcp.call("add_entry", '{"vault_id":"%s","memory_id":"%s","raw_entry":"r","summary":"s",'
                                           '"tags":{"k\\ud800":1}}' % (vault_id, memory_id))
    assert is_error and text.startswith("add_entry: tags: is not valid UTF-8 text (lone surrogate"), text


def test_strings_are_never_reparsed_as_json(mcp, memory):
    vault_id, memory_id = memory
    for i, description in enumerate(('{"a": 1}', "null", "5", "[1, 2]", "true")):
        title = f"reparse-{i}"
        vault = mcp.ok("create_vault", title=title, description=description)
        assert vault["description"] == description
        memory_json = mcp.ok("create_memory_in_vault", vault_id=vault_id, title=title, memory_type="NOTES",
                             description=description)
        assert memory_json["description"] == description
    is_error, text = mcp.call("add_entry", '{"vault_id":"%s","memory_id":"%s","raw_entry":"r","summary":"s",'
                                           '"tags":"{\\"a\\": 1}"}' % (vault_id, memory_id))
    assert is_error and text.startswith("add_entry: tags: "), text  # an object, not a string holding one
    is_error, text = mcp.call("list_entries", '{"vault_id":"%s","memory_id":"%s","before":"null"}' % (
        vault_id, memory_id))
    assert is_error and text.startswith("list_entries: before: 'null' is not usable"), text


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**6, max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(min_value=0, max_value=1),
    st.sampled_from([0, 1, 5, 100, 101, 0.0, 1.0, 0.5, 5.0, 99.0]),
    st.text(alphabet="0123456789.e-", max_size=4), st.lists(st.integers(0, 5), max_size=2),
).map(json.dumps) | st.sampled_from(["1e400", "-1e400", "1E2", "5e0", "1e-400"])


@pytest.mark.slow
def test_mcp_and_rest_give_the_same_verdict_for_any_top_k_or_alpha(server, mcp, memory):
    _, memory_id = memory

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.sampled_from(["top_k", "alpha"]), value=JSON_VALUES)
    def check(name: str, value: str) -> None:
        rest_name = "topK" if name == "top_k" else "alpha"
        assert mcp_verdict(mcp, memory_id, name, value) == rest_verdict(server, memory_id, rest_name, value), value

    check()
