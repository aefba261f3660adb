"""MemoryClient: one long-lived MCP session to a memory server (Mycelian's tool contract).

The same session serves two callers: the memory agent, through `client.tools` (LangChain tools
loaded once with langchain-mcp-adapters, schemas unmodified), and the harness itself, through
the typed calls below (vault and memory setup, consistency, search, entry listing).

    async with MemoryClient.connect(url, headers=auth_headers(token)) as client:
        vault_id = await client.ensure_vault("longmemeval")

Open and close the client in the SAME asyncio task: the MCP transport runs in an anyio task
group that refuses to be exited from another task (so no pytest-asyncio yield fixtures that
hold one across tests). Any number of concurrent tasks may call through an open client.

Two limits bound a tool call's reply (`[memory] call_timeout_s`, `await_timeout_s`): `timeout_s` for an
ordinary call, and `waits` for the tools that block until writes are searchable (await_consistency, a
mapping's consistency tool), which may take the whole await limit on a slow embedder. Every path honours
them: the harness's calls, the memory agent's LangChain tools (an interceptor) and the HTTP read timeout.
The session's own default (at least HANDSHAKE_S) bounds only start-up and keepalive pings.

Servers end MCP sessions that sit idle (the embedded one after --session-idle-s, 600 s), and an
expired session cannot be resumed, so an open client pings every KEEPALIVE_S: a long QA or
judging phase without memory calls does not cost the run its session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from benchmarker.errors import MemoryServerLost, MemoryToolError
from benchmarker.log.lines import Json
from benchmarker.memory.contract import EntryRow, MemoryRow, entry_rows
from benchmarker.redact import masked_preview


class _ResponseAfterClose(logging.Filter):
    """The MCP client logs "Error parsing JSON response" with a ClosedResourceError traceback when a reply
    arrives after this side closed the session (a Ctrl-C or a cancelled case tearing it down): nothing was
    lost, and the traceback would sit above the run's one "interrupted" line (issue 44, item 4)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (type(exc).__name__ == "ClosedResourceError" and "Error parsing JSON response" in str(record.msg))


logging.getLogger("mcp.client.streamable_http").addFilter(_ResponseAfterClose())

log = logging.getLogger(__name__)

LOCAL_DEV_TOKEN = "LOCAL_DEV_MODE_NOT_FOR_PRODUCTION"
KEEPALIVE_S = 60.0  # well inside any server's session idle expiry
CALL_TIMEOUT_S = 60.0  # an ordinary tool call ([memory] call_timeout_s)
AWAIT_TIMEOUT_S = 600.0  # the longest consistency wait ([memory] await_timeout_s)
WAIT_MARGIN_S = 30.0  # past the await limit, so the server's own "still queued" error arrives first
HTTP_READ_FLOOR_S = 300.0  # the MCP SDK's stream read timeout, kept as the least
HANDSHAKE_S = 60.0  # initialize / list_tools (a stdio server may be slow to start) and keepalive pings
ENVELOPE_BYTES = 1024  # the JSON-RPC envelope around a tool call's arguments, with room to spare
PROMPT_TEMPLATE_KEYS = ("entry_capture_prompt", "summary_prompt", "context_prompt")

# on_call(tool, args, result_text, latency_ms, error): error is None on success
CallObserver = Callable[[str, dict[str, Json], str, float, "str | None"], None]


def auth_headers(token: str | None = None) -> dict[str, str]:
    """Bearer header for Mycelian; no token means Mycelian's local development token."""
    return {"Authorization": f"Bearer {token or LOCAL_DEV_TOKEN}"}


def tool_result_text(result: Any) -> str:
    """Flatten any tool result shape to text: str, content blocks, ToolMessage, CallToolResult."""
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    if isinstance(result, tuple) and len(result) == 2:  # (content, artifact) from content_and_artifact tools
        return tool_result_text(result[0])
    content = getattr(result, "content", None)
    if content is not None and not isinstance(result, dict):  # ToolMessage, CallToolResult
        return tool_result_text(content)
    if isinstance(result, dict):
        if "text" in result:
            return str(result["text"])
        return json.dumps(result)
    if isinstance(result, (list, tuple)):
        return "\n".join(part for part in (tool_result_text(b) for b in result) if part)
    text = getattr(result, "text", None)
    return str(text) if text is not None else str(result)


@dataclass(frozen=True)
class WaitLimit:
    """The tools that block until writes are searchable, and how long the client waits for their reply."""

    seconds: float = AWAIT_TIMEOUT_S + WAIT_MARGIN_S
    tools: frozenset[str] = frozenset({"await_consistency"})

    @classmethod
    def of(cls, await_timeout_s: float, tools: frozenset[str] | set[str]) -> WaitLimit:
        """The configured await limit plus the margin, for these tools."""
        return cls(await_timeout_s + WAIT_MARGIN_S, frozenset(tools))

    def for_tool(self, tool: str, default: float) -> float:
        return max(self.seconds, default) if tool in self.tools else default


class MemoryClient:
    """Tools for the agent and typed calls for the harness, over one MCP session."""

    def __init__(self, session: Any, tools: list[Any], *, url: str = "", on_call: CallObserver | None = None,
                 timeout_s: float = CALL_TIMEOUT_S, waits: WaitLimit | None = None,
                 max_request_bytes: int | None = None, lost: _Lost | None = None):
        self.session = session
        self.tools = tools
        self.url = url
        self.on_call = on_call
        self.timeout_s = timeout_s
        self.waits = waits or WaitLimit()
        self.max_request_bytes = max_request_bytes   # the server's request-body limit, when known
        self.lost = lost   # a stdio server: how its connection closing mid-run is reported (MemoryServerLost)

    @classmethod
    @asynccontextmanager
    async def connect(cls, url: str, *, headers: dict[str, str] | None = None, timeout_s: float = CALL_TIMEOUT_S,
                      waits: WaitLimit | None = None, on_call: CallObserver | None = None,
                      keepalive_s: float | None = KEEPALIVE_S,
                      max_request_bytes: int | None = None) -> AsyncIterator[MemoryClient]:
        """Open the session, load the tools once, yield the client; close on exit (same task!).
        `max_request_bytes` is the server's request-body limit when known (the embedded service's
        --max-body-bytes): a call above it fails alone instead of breaking the session."""
        import httpx
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        waits = waits or WaitLimit()
        # A reply streams back on the POST's response: no byte arrives while a wait blocks, so the read
        # timeout must outlast the longest wait (else httpx ends it first).
        http = create_mcp_http_client(
            headers=auth_headers() if headers is None else headers,
            timeout=httpx.Timeout(timeout_s, read=max(timeout_s, waits.seconds + WAIT_MARGIN_S, HTTP_READ_FLOOR_S)))

        @asynccontextmanager
        async def streams():
            async with http, streamable_http_client(url, http_client=http) as (read, write, _):
                yield read, write

        async with cls._open(streams(), url, timeout_s=timeout_s, waits=waits, on_call=on_call,
                             keepalive_s=keepalive_s, max_request_bytes=max_request_bytes) as client:
            yield client

    @classmethod
    @asynccontextmanager
    async def connect_stdio(cls, command: str, args: list[str] | tuple[str, ...] = (), *,
                            env: dict[str, str] | None = None, cwd: str | None = None,
                            stderr_path: str | None = None, timeout_s: float = CALL_TIMEOUT_S,
                            waits: WaitLimit | None = None,
                            on_call: CallObserver | None = None) -> AsyncIterator[MemoryClient]:
        """Start `command args` as an MCP server on stdio (its stderr to `stderr_path`), yield the
        client; on exit the SDK closes stdin and ends the process. No keepalive: a stdio session
        lives as long as the process."""
        import os

        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        target = " ".join([command, *args])
        params = StdioServerParameters(command=command, args=list(args), env={**os.environ, **(env or {})},
                                       cwd=cwd)
        errlog = open(stderr_path, "a", encoding="utf-8") if stderr_path else open(os.devnull, "w")  # noqa: SIM115

        @asynccontextmanager
        async def streams():
            try:
                async with stdio_client(params, errlog=errlog) as (read, write):
                    yield read, write
            except FileNotFoundError as err:
                raise ConnectionError(f"cannot start the memory MCP server {target!r}: {err.strerror or err}") from err

        try:
            async with cls._open(streams(), target, timeout_s=timeout_s, waits=waits, on_call=on_call,
                                 keepalive_s=None, stderr_path=stderr_path,
                                 lost=_Lost(target, stderr_path)) as client:
                yield client
        finally:
            errlog.close()

    @classmethod
    @asynccontextmanager
    async def _open(cls, streams: Any, target: str, *, timeout_s: float, waits: WaitLimit | None,
                    on_call: CallObserver | None, keepalive_s: float | None,
                    stderr_path: str | None = None,
                    max_request_bytes: int | None = None,
                    lost: _Lost | None = None) -> AsyncIterator[MemoryClient]:
        import anyio
        import httpx
        from langchain_mcp_adapters.tools import load_mcp_tools
        from mcp import ClientSession
        from mcp.shared.exceptions import McpError

        unreachable = (httpx.ConnectError, httpx.ConnectTimeout)
        waits = waits or WaitLimit()
        opened = False  # after this, a connection error is the caller's, not "server unreachable"
        finished = False  # the caller's body returned: nothing waits for a response any more
        handshake = timedelta(seconds=max(timeout_s, HANDSHAKE_S))  # every tool call passes its own limit
        try:
            async with streams as (read, write), \
                    ClientSession(read, write, read_timeout_seconds=handshake) as session, \
                    anyio.create_task_group() as background:
                await session.initialize()
                tools = await load_mcp_tools(session, tool_interceptors=[
                    _limits_for(session, waits, timeout_s, _SizeLimit(target, max_request_bytes), lost)])
                opened = True
                if keepalive_s:
                    background.start_soon(_keep_alive, session, keepalive_s)
                try:
                    yield cls(session, tools, url=target, on_call=on_call, timeout_s=timeout_s, waits=waits,
                              max_request_bytes=max_request_bytes, lost=lost)
                    finished = True
                finally:
                    background.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            # The transport's task group wraps whatever escapes the body (a MemoryToolError, a
            # KeyError in the caller's code): hand the caller its own exception back.
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # Ctrl-C cancels the run's task; a request in flight then fails in the transport
                # (ClosedResourceError), and that leaf must not replace the cancellation (exit 130).
                raise asyncio.CancelledError() from group
            leaf = _only_leaf(group)
            if finished and isinstance(leaf, (anyio.ClosedResourceError, anyio.BrokenResourceError)):
                # A response that arrived after the session closed, to a request given up on earlier
                # (a wait that timed out): the work is done and recorded; failing the run now would
                # only lose its ending (seen under heavy load on a 2-core machine).
                log.debug("memory MCP session %s: a late response after close was dropped: %r", target, leaf)
                return
            if isinstance(leaf, (*unreachable, ConnectionError)) and not opened:
                raise ConnectionError(f"cannot reach the memory MCP server at {target}: {leaf}") from leaf
            if isinstance(leaf, McpError) and not opened:  # a stdio server that exited during start-up
                where = f"; its stderr is in {stderr_path}" if stderr_path else ""
                raise ConnectionError(f"the memory MCP server {target!r} did not start: {leaf}{where}") from leaf
            if _is_auth_refusal(leaf) and not opened:
                raise ConnectionError(f"the memory MCP server at {target} refused the API key (HTTP 401); the "
                                      "embedded service's key comes from its launcher, Mycelian's from the "
                                      "variable named by [memory].auth_token_env") from leaf
            if opened and not finished and isinstance(leaf, httpx.TransportError):  # this session's own transport
                raise _lost(target, leaf, stderr_path) from leaf
            if opened and not finished and lost is not None and leaf is not None and _connection_closed(leaf):
                raise lost(leaf) from leaf  # a stdio server that exited mid-run
            if leaf is None:
                raise
            raise leaf from None
        except unreachable as exc:
            if opened:
                raise _lost(target, exc, stderr_path) from exc
            raise ConnectionError(f"cannot reach the memory MCP server at {target}: {exc}") from exc

    def with_observer(self, on_call: CallObserver | None) -> MemoryClient:
        """A view on the same session that reports harness calls to another observer (per case)."""
        return MemoryClient(self.session, self.tools, url=self.url, on_call=on_call, timeout_s=self.timeout_s,
                            waits=self.waits, max_request_bytes=self.max_request_bytes, lost=self.lost)

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    async def call(self, tool: str, args: dict[str, Json] | None = None, *, timeout_s: float | None = None) -> str:
        """Call a tool; return its text. Raises MemoryToolError when the server sets isError. Without
        `timeout_s`, a wait tool gets the await limit and any other tool the session's call limit."""
        args = dict(args or {})
        started = time.perf_counter()
        error: str | None = None
        text = ""
        try:
            _SizeLimit(self.url, self.max_request_bytes).check(tool, args)
            limit = timeout_s or self.waits.for_tool(tool, self.timeout_s)
            timeout = timedelta(seconds=limit)
            with _traced_call(tool, args) as run:
                result = await self.session.call_tool(tool, args, read_timeout_seconds=timeout)
                text = tool_result_text(result.content)
                if run is not None:
                    run.end(outputs={"result": masked_preview(text, 4000)}, error=text if result.isError else None)
            if result.isError:
                error = text or "tool returned an error without text"
                raise MemoryToolError(tool, error)
            return text
        except MemoryToolError:
            raise
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            if self.lost is not None and _connection_closed(exc):
                raise self.lost(exc) from exc
            raise
        finally:
            if self.on_call is not None:
                self.on_call(tool, args, text, (time.perf_counter() - started) * 1000.0, error)

    async def call_json(self, tool: str, args: dict[str, Json] | None = None, **kw: Any) -> Any:
        """Call a tool whose result is JSON and parse it."""
        text = await self.call(tool, args, **kw)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise MemoryToolError(tool, f"expected JSON, got: {text[:200]!r}") from None

    async def ensure_vault(self, title: str, description: str = "") -> str:
        """The id of the vault with this title, created when missing."""
        for vault in _as_list(await self.call_json("list_vaults"), "vaults"):
            if vault.get("title") == title:
                return str(vault["vaultId"])
        created = await self.call_json("create_vault", {"title": title, "description": description})
        return str(created["vaultId"])

    async def create_memory(self, vault_id: str, title: str, memory_type: str = "NOTES",
                            description: str = "") -> MemoryRow:
        return cast(MemoryRow, await self.call_json("create_memory_in_vault", {
            "vault_id": vault_id, "title": title, "memory_type": memory_type, "description": description}))

    async def find_memory(self, vault_id: str, title: str) -> MemoryRow | None:
        for mem in _as_list(await self.call_json("list_memories", {"vault_id": vault_id}), "memories"):
            if mem.get("title") == title:
                return cast(MemoryRow, mem)
        return None

    async def get_default_prompts(self, memory_type: str = "chat") -> dict[str, Json]:
        """Mycelian's prompts; raises MemoryToolError when any text is missing or empty."""
        prompts = await self.call_json("get_default_prompts", {"memory_type": memory_type})
        templates = prompts.get("templates") if isinstance(prompts, dict) else None
        missing = [] if isinstance(templates, dict) else ["templates"]
        if isinstance(prompts, dict) and not str(prompts.get("context_summary_rules") or "").strip():
            missing.append("context_summary_rules")
        if isinstance(templates, dict):
            missing += [k for k in PROMPT_TEMPLATE_KEYS if not str(templates.get(k) or "").strip()]
        if missing:
            raise MemoryToolError("get_default_prompts",
                                  f"the server returned empty or missing prompt texts: {', '.join(missing)}")
        return prompts

    async def await_consistency(self, memory_id: str, *, timeout_s: float | None = None) -> str:
        return await self.call("await_consistency", {"memory_id": memory_id}, timeout_s=timeout_s)

    async def search(self, memory_id: str, query: str, top_k: int = 10, alpha: float | None = None) -> dict[str, Json]:
        """search_memories' answer as sent (a reader reads its contexts; `entry_rows` its hits); `alpha` is
        only sent when set (Mycelian's alpha is service-wide)."""
        args: dict[str, Json] = {"memory_id": memory_id, "query": query, "top_k": top_k}
        if alpha is not None:
            args["alpha"] = alpha
        return await self.call_json("search_memories", args)

    async def list_all_entries(self, vault_id: str, memory_id: str, page_size: int = 50) -> list[EntryRow]:
        """Every entry of a memory, oldest first (pages of `page_size` walked with `before`)."""
        seen: dict[str, EntryRow] = {}
        before: str | None = None
        while True:
            args: dict[str, Json] = {"vault_id": vault_id, "memory_id": memory_id, "limit": page_size}
            if before:
                args["before"] = before
            page = await self.call_json("list_entries", args)
            entries = entry_rows(page.get("entries"))
            fresh = [e for e in entries if e.get("entryId") not in seen]
            for entry in fresh:
                seen[entry["entryId"]] = entry
            cursor = page.get("next_before") or min((e.get("creationTime", "") for e in entries), default="")
            if len(entries) < page_size or not fresh or not cursor or cursor == before:
                break
            before = cursor
        return sorted(seen.values(), key=lambda e: e.get("creationTime", ""))

    async def get_context(self, vault_id: str, memory_id: str) -> str:
        return await self.call("get_context", {"vault_id": vault_id, "memory_id": memory_id})

    async def put_context(self, vault_id: str, memory_id: str, content: str) -> str:
        return await self.call("put_context", {"vault_id": vault_id, "memory_id": memory_id, "content": content})

    async def add_entry(self, vault_id: str, memory_id: str, raw_entry: str, summary: str,
                        tags: dict[str, Json] | None = None) -> str:
        args: dict[str, Json] = {"vault_id": vault_id, "memory_id": memory_id, "raw_entry": raw_entry,
                                "summary": summary}
        if tags:
            args["tags"] = tags
        return await self.call("add_entry", args)


@dataclass(frozen=True)
class _SizeLimit:
    """The server's request-body limit. Over streamable HTTP a body above it is refused (413) or the
    connection reset before the reply, and either one ends the whole MCP session (the SDK's transport
    fails its task group): the run would stop as if the server had died. Refused here instead, that one
    call fails with a MemoryToolError, so only its case goes to errors.jsonl."""

    target: str
    max_bytes: int | None

    def check(self, tool: str, args: dict[str, Json]) -> None:
        if self.max_bytes is None:
            return
        size = len(json.dumps(args, ensure_ascii=False, default=str).encode("utf-8")) + ENVELOPE_BYTES
        if size > self.max_bytes:
            raise MemoryToolError(tool, f"the request is {size} bytes, over the memory MCP server's body limit of "
                                        f"{self.max_bytes} bytes ({self.target}; the embedded service's "
                                        "--max-body-bytes); not sent: this case fails, the run goes on")


@dataclass(frozen=True)
class _Lost:
    """A stdio server's connection closing after the session opened (the process exited): the SDK fails
    the calls in flight with McpError "Connection closed" and any later call with anyio's
    ClosedResourceError / BrokenResourceError. Either one is a MemoryServerLost naming the command."""

    target: str
    stderr_path: str | None

    def __call__(self, err: BaseException) -> MemoryServerLost:
        return _lost(self.target, err, self.stderr_path, stdio=True)


def _connection_closed(exc: BaseException) -> bool:
    """The MCP session's streams are gone: the SDK's own "Connection closed" error (sent to every request
    pending when the read stream ends) or a closed / broken stream on a later send."""
    import anyio
    from mcp.shared.exceptions import McpError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(exc, McpError):
        return exc.error.code == CONNECTION_CLOSED and exc.error.message == "Connection closed"
    return isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream))


def _limits_for(session: Any, waits: WaitLimit, call_s: float, size: _SizeLimit | None = None,
                lost: _Lost | None = None) -> Any:
    """A langchain-mcp-adapters interceptor: each of the memory agent's tool calls gets its own limit (the
    await limit for a wait tool, else the call limit), as the harness's calls do; the adapter would use the
    session's default, which only bounds the handshake. A call over the server's body limit is not sent; a
    stdio server gone mid-call is MemoryServerLost, as in `MemoryClient.call`."""

    async def intercept(request: Any, handler: Any) -> Any:
        if size is not None:
            size.check(request.name, dict(request.args or {}))
        limit = timedelta(seconds=waits.for_tool(request.name, call_s))
        try:
            return await session.call_tool(request.name, request.args, read_timeout_seconds=limit)
        except Exception as exc:
            if lost is not None and _connection_closed(exc):
                raise lost(exc) from exc
            raise

    return intercept


async def _keep_alive(session: Any, every_s: float) -> None:
    """Ping so the server never sees the session idle; a failed ping is left to the next real call."""
    import anyio

    while True:
        await anyio.sleep(every_s)
        with contextlib.suppress(Exception):
            await session.send_ping()


def _is_auth_refusal(exc: BaseException | None) -> bool:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None) == 401


def _lost(target: str, err: BaseException, stderr_path: str | None, *, stdio: bool = False) -> MemoryServerLost:
    where = (f" (its stderr: {stderr_path})" if stderr_path
             else "" if stdio else " (the embedded service logs to memory-service.log in the run directory)")
    server = f"the memory MCP server {target!r}" if stdio else f"the memory MCP server at {target}"
    return MemoryServerLost(f"{server} stopped answering mid-run ({type(err).__name__}: "
                            f"{err or 'connection lost'}){where}; the cases in flight are in errors.jsonl; bring the "
                            "server back and run the same command again to resume")


def _only_leaf(group: BaseExceptionGroup) -> BaseException | None:
    """The single exception inside (nested) groups, or None when there are several."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        exc = stack.pop()
        if isinstance(exc, BaseExceptionGroup):
            stack.extend(exc.exceptions)
        else:
            leaves.append(exc)
    return leaves[0] if len(leaves) == 1 else None


def _as_list(value: Json, key: str) -> list[dict[str, Json]]:
    """JSON arrays may come bare, wrapped ({"vaults": [...]}) or as null."""
    if isinstance(value, dict):
        value = value.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _traced_call(tool: str, args: dict[str, Json]):
    """A LangSmith tool run for a harness call, inside a traced scope (agent/tracing.py) only: the
    memory agent's own calls are LangChain tools, traced by LangChain."""
    from langsmith.run_helpers import get_tracing_context

    context = get_tracing_context()
    if context.get("enabled") is not True:
        return contextlib.nullcontext(None)
    from langsmith import trace

    return trace(tool, run_type="tool", inputs={"args": args}, client=context.get("client"),
                 project_name=context.get("project_name"))
