"""Raw HTTP abuse of /mcp, /v0/search and /v0/health: one request each, with what it should get.

`expect` is "reject" (any 4xx, a JSON-RPC error, or a redirect away), "accept" (a 2xx: the
controls, and what a legitimate client sends), or "any" (both are defensible, e.g. a text/plain
body on the REST route; only a 5xx or a crash counts against it). Protocol garbage that no
HTTP client would send goes over a raw socket (`raw`), with the request written verbatim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

DEEP = 100_000  # nesting depth of the bracket bombs


@dataclass(frozen=True)
class HttpCase:
    label: str
    method: str = "POST"
    path: str = "/mcp"
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    expect: str = "reject"
    session: bool = True  # carry the valid MCP session id (for /mcp)
    auth: bool = True  # carry the right Authorization header
    raw: bytes | None = None  # sent verbatim over a socket instead of through httpx


def _rpc(method: str, params: object = None, request_id: object = 7) -> bytes:
    body: dict[str, object] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


def mcp_cases(memory_id: str) -> list[HttpCase]:
    """Malformed JSON-RPC, encodings, bombs, content types, sessions and methods on /mcp."""
    search = _rpc("tools/call", {"name": "search_memories", "arguments": {"memory_id": memory_id, "query": "QQ"}})
    tools_list = _rpc("tools/list")
    nested = b"[" * DEEP + b"]" * DEEP
    bodies = {
        "malformed-json": b"{not json",
        "empty-body": b"",
        "null": b"null",
        "empty-batch": b"[]",
        "number": b"123",
        "string": b'"str"',
        "no-method": b'{"jsonrpc":"2.0"}',
        "wrong-version": tools_list.replace(b'"2.0"', b'"1.0"'),
        "truncated": search[: len(search) // 2],
        "xff-in-string": search.replace(b"QQ", b"\xff"),
        "utf16-bom": b"\xff\xfe" + tools_list,
        "overlong-utf8": search.replace(b"QQ", b"\xc0\xaf"),
        "nul-byte": search.replace(b"QQ", b"\x00"),
        "nested-lists": nested,
        "nested-objects": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
        "nested-in-arguments": search.replace(b'"QQ"', b'"q", "tags": ' + nested),
        "params-null": b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}',
        "unknown-method": _rpc("foo/bar"),
        "object-id": _rpc("tools/list", request_id={"a": 1}),
        "1e400-id": tools_list.replace(b'"id": 7', b'"id": 1e400'),
        "NaN-id": tools_list.replace(b'"id": 7', b'"id": NaN'),
        "surrogate-method": b'{"jsonrpc":"2.0","id":1,"method":"tools/\\ud800"}',
        "trailing-garbage": tools_list + b"xyz",
    }
    cases = [HttpCase(f"mcp.{label}", body=body) for label, body in bodies.items()]
    cases += [HttpCase(f"mcp.content-type={ctype or 'none'}", body=tools_list, headers={"Content-Type": ctype})
              for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "")]
    cases += [HttpCase("mcp.accept=none", body=tools_list, headers={"Accept": ""}),
              HttpCase("mcp.accept=text/html", body=tools_list, headers={"Accept": "text/html"}),
              HttpCase("mcp.session=unknown", body=tools_list, headers={"mcp-session-id": "0" * 32}),
              HttpCase("mcp.session=path", body=tools_list, headers={"mcp-session-id": "../../x"}),
              HttpCase("mcp.session=10KB", body=tools_list, headers={"mcp-session-id": "s" * 10_000}),
              HttpCase("mcp.session=missing", body=tools_list, session=False)]
    cases += [HttpCase(f"mcp.method={method}", method=method, body=tools_list if method in ("PUT", "PATCH") else None,
                       session=method != "GET") for method in ("PUT", "PATCH", "HEAD")]
    cases += [HttpCase("mcp.method=DELETE-without-session", method="DELETE", session=False),
              HttpCase("mcp.method=GET-without-session", method="GET", session=False),
              HttpCase("mcp.method=OPTIONS", method="OPTIONS", expect="any")]
    return cases


def rest_cases(memory_id: str) -> list[HttpCase]:
    """Bad bodies, loose types and wrong methods on /v0/search and /v0/health."""

    def search(label: str, body: bytes, expect: str = "reject", ctype: str = "application/json") -> HttpCase:
        return HttpCase(f"search.{label}", path="/v0/search", body=body, expect=expect, headers={"Content-Type": ctype})

    def field_token(name: str, token: str) -> bytes:  # a JSON literal json.dumps cannot write (NaN, 1e400)
        return b'{"memoryId":"%s","query":"fuzz","%s":%s}' % (memory_id.encode(), name.encode(), token.encode())

    good = json.dumps({"memoryId": memory_id, "query": "fuzz", "topK": 3}).encode()
    cases = [search("control", good, "accept"), search("content-type=text/plain", good, "any", "text/plain"),
             search("malformed-json", b"{not json"), search("empty-body", b""),
             search("xff-in-string", b'{"memoryId":"x","query":"\xff"}'),
             search("nested-lists", b"[" * DEEP + b"]" * DEEP),
             search("nested-objects", b'{"a":' * DEEP + b"1" + b"}" * DEEP), search("list", b"[]"),
             search("null", b"null"), search("memoryId=int", b'{"memoryId":5,"query":"x"}'),
             search("memoryId=object", b'{"memoryId":{"$ne":null},"query":"x"}'),
             search("topK=string", field_token("topK", '"5"')), search("topK=true", field_token("topK", "true")),
             search("topK=NaN", field_token("topK", "NaN")), search("topK=1e400", field_token("topK", "1e400")),
             search("alpha=string", field_token("alpha", '"0.5"')), search("alpha=NaN", field_token("alpha", "NaN")),
             search("alpha=Infinity", field_token("alpha", "Infinity")),
             search("query=1MiB", json.dumps({"memoryId": memory_id, "query": "q" * (1 << 20)}).encode()),
             search("unknown-memory", b'{"memoryId":"no-such-memory","query":"x"}'),
             search("query=lone-surrogate", b'{"memoryId":"%s","query":"\\ud800"}' % memory_id.encode())]
    cases += [HttpCase(f"search.method={m}", method=m, path="/v0/search") for m in ("GET", "PUT", "DELETE")]
    cases += [HttpCase("health.control", method="GET", path="/v0/health", expect="accept"),
              HttpCase("health.query-string", method="GET", path="/v0/health?x=1", expect="accept"),
              HttpCase("health.get-with-body", method="GET", path="/v0/health", body=b"{}", expect="any")]
    cases += [HttpCase(f"health.method={m}", method=m, path="/v0/health") for m in ("POST", "PUT", "DELETE")]
    cases += [HttpCase(f"path={label}", method="GET", path=path) for label, path in (
        ("root", "/"), ("v0", "/v0"), ("mcp-subpath", "/mcp/extra"), ("dot-dot", "/%2e%2e/%2e%2e/etc/passwd"),
        ("20KB", "/" + "a" * 20_000))]
    cases += [HttpCase("header=100KB", method="GET", path="/v0/health", headers={"X-Big": "b" * 100_000}),
              HttpCase("header=1000-headers", method="GET", path="/v0/health", expect="any",
                       headers={f"X-H{i}": "v" for i in range(1000)})]
    return cases


def origin_cases(memory_id: str, host: str, port: int) -> list[HttpCase]:
    """DNS rebinding: foreign Host and Origin headers on every route (loopback names are the controls)."""
    init = _rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}})
    search = json.dumps({"memoryId": memory_id, "query": "fuzz"}).encode()
    routes = (("mcp", "POST", "/mcp", init), ("search", "POST", "/v0/search", search),
              ("health", "GET", "/v0/health", None))
    cases = []
    for name, method, path, body in routes:
        headers = {"Content-Type": "application/json"}
        for label, extra, expect in (
                ("host=evil", {"Host": "evil.example"}, "reject"),
                ("host=evil-with-port", {"Host": f"evil.example:{port}"}, "reject"),
                ("host=loopback-prefix", {"Host": f"{host}.evil.example:{port}"}, "reject"),
                ("host=localhost-prefix", {"Host": f"localhost.evil.example:{port}"}, "reject"),
                ("host=localhost", {"Host": f"localhost:{port}"}, "accept"),
                ("origin=evil", {"Origin": "http://evil.example"}, "reject"),
                ("origin=null", {"Origin": "null"}, "reject"),
                ("origin=loopback", {"Origin": f"http://{host}:{port}"}, "accept")):
            cases.append(HttpCase(f"{name}.{label}", method=method, path=path, body=body,
                                  headers={**headers, **extra}, expect=expect, session=False))
    return cases


def auth_cases(memory_id: str, key: str) -> list[HttpCase]:
    """No, wrong and mangled bearer keys on the routes that need one (health is public: "any")."""
    init = _rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}})
    search = json.dumps({"memoryId": memory_id, "query": "fuzz"}).encode()
    wrong = {"none": None, "wrong-key": "Bearer not-the-key", "scheme-only": "Bearer", "basic": "Basic Zm9vOmJhcg==",
             "key-plus-char": f"Bearer {key}x", "key-minus-char": f"Bearer {key[:-1]}", "key-without-scheme": key}
    cases = []
    for name, method, path, body in (("mcp", "POST", "/mcp", init), ("search", "POST", "/v0/search", search),
                                     ("mcp-session", "POST", "/mcp", _rpc("tools/list"))):
        for label, value in wrong.items():
            headers = {"Content-Type": "application/json", **({"Authorization": value} if value else {})}
            cases.append(HttpCase(f"{name}.auth={label}", method=method, path=path, body=body, headers=headers,
                                  auth=False, session=name == "mcp-session"))
        cases.append(HttpCase(f"{name}.auth=right-key", method=method, path=path, body=body, expect="accept",
                              headers={"Content-Type": "application/json"}, session=name == "mcp-session"))
    cases.append(HttpCase("health.auth=none", method="GET", path="/v0/health", auth=False, expect="any"))
    return cases


def socket_cases(host: str, port: int) -> list[HttpCase]:
    """Requests no HTTP client library would send, written to a socket verbatim."""
    h = f"Host: {host}:{port}\r\n".encode()
    post = b"POST /v0/search HTTP/1.1\r\n" + h
    raw = {
        "garbage-line": b"GARBAGE\r\n\r\n",
        "http11-without-host": b"GET /v0/health HTTP/1.1\r\n\r\n",
        "http-9.9": b"GET /v0/health HTTP/9.9\r\n" + h + b"\r\n",
        "cl-and-chunked": post + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "negative-content-length": post + b"Content-Length: -5\r\n\r\n",
        "bad-chunk-size": post + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
        "header-without-colon": b"GET /v0/health HTTP/1.1\r\n" + h + b"NoColonHere\r\n\r\n",
        "nul-in-header": b"GET /v0/health HTTP/1.1\r\n" + h + b"X-A: a\x00b\r\n\r\n",
        "100KB-request-line": b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n" + h + b"\r\n",
        "huge-content-length": post + b"Content-Length: 99999999999999999999\r\n\r\n",
    }
    cases = [HttpCase(f"socket.{label}", raw=data) for label, data in raw.items()]
    # a bare LF line ending is tolerated by many servers (RFC 9112 allows it): either answer is fine
    bare_lf = b"GET /v0/health HTTP/1.1\n" + h.replace(b"\r\n", b"\n") + b"\n"
    return cases + [HttpCase("socket.bare-lf", raw=bare_lf, expect="any")]
