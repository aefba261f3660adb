"""Who may talk to the service: Host/Origin checks (DNS rebinding) and the bearer API key.

Both are plain ASGI middleware around the whole app, so /mcp, /v0/search and /v0/health get
the same checks (the MCP SDK's own Host check covers /mcp only and is off for non-loopback binds).

Host rule: an IP literal, `localhost` / `*.localhost`, the bound host name, or an --allowed-host
(a name on any port, or name:port). A DNS-rebinding page always sends its own domain name as
Host, so only names need listing. Origin rule (browsers only; absent is fine): http(s) on a
loopback address, the bound host or an allowed host, or an exact --allowed-origin.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from embedded_memory.settings import is_loopback

PUBLIC_PATHS = frozenset({"/v0/health"})  # Mycelian's health is public: liveness probes carry no key


async def send_json(send: Send, status: int, body: object, headers: dict[str, str] | None = None) -> None:
    """A complete JSON response straight on the ASGI channel (middleware answers without the app)."""
    payload = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


def split_host(value: str) -> tuple[str, str]:
    """`host[:port]` or `[v6]:port` -> (lowercase host without brackets, port or "")."""
    value = value.strip().lower()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else ""
    if value.count(":") == 1:
        host, _, port = value.partition(":")
        return host, port
    return value, ""  # a bare name, or a bare IPv6 address


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class HostOriginGuard:
    """421 for a Host that is not ours, 403 for a foreign Origin, on every HTTP route."""

    def __init__(self, app: ASGIApp, bound_host: str, allowed_hosts: Iterable[str] = (),
                 allowed_origins: Iterable[str] = ()):
        self.app = app
        self.names: set[tuple[str, str]] = {split_host(h) for h in allowed_hosts}
        bound = split_host(bound_host)[0]
        if bound and not _is_ip(bound):
            self.names.add((bound, ""))
        self.origins = {o.strip().lower().rstrip("/") for o in allowed_origins}

    def _named(self, host: str, port: str) -> bool:
        return (host, "") in self.names or (host, port) in self.names

    def host_ok(self, value: str) -> bool:
        host, port = split_host(value)
        if not host:
            return False
        return _is_ip(host) or host == "localhost" or host.endswith(".localhost") or self._named(host, port)

    def origin_ok(self, value: str) -> bool:
        origin = value.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False  # includes the opaque "null" origin of sandboxed pages and file://
        host, port = parts.hostname, str(parts.port or "")
        return is_loopback(host) or host.endswith(".localhost") or self._named(host, port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self.host_ok(host):
            await send_json(send, 421, {"error": f"Host {host!r} is not served here; a deployment behind a name "
                                                 "must list it with --allowed-host"})
            return
        origin = headers.get("origin")
        if origin is not None and not self.origin_ok(origin):
            await send_json(send, 403, {"error": f"Origin {origin!r} is not allowed; list it with --allowed-origin"})
            return
        await self.app(scope, receive, send)


class BearerAuth:
    """401 unless `Authorization: Bearer <key>` matches (constant-time); /v0/health stays public."""

    def __init__(self, app: ASGIApp, api_key: str):
        self.app = app
        self.key = api_key.encode()

    def _refusal(self, header: str | None) -> tuple[str, str] | None:
        """(message, WWW-Authenticate challenge) when the header does not carry our key."""
        if not header:
            return "missing Authorization header; send Authorization: Bearer <key>", 'Bearer realm="memory"'
        scheme, _, token = header.partition(" ")
        invalid = 'Bearer realm="memory", error="invalid_token"'
        if scheme.lower() != "bearer" or not token.strip():
            return "Authorization must be Bearer <key>", invalid
        if not hmac.compare_digest(token.strip().encode(), self.key):
            return "wrong API key (serve-memory's --api-key / MEMORY_API_KEY)", invalid
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(Headers(scope=scope).get("authorization"))
        if refusal is not None:
            message, challenge = refusal
            await send_json(send, 401, {"error": f"unauthorized: {message}"}, {"WWW-Authenticate": challenge})
            return
        await self.app(scope, receive, send)
