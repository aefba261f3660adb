"""`mycelian-longmemeval serve-memory` and `python -m embedded_memory`: flags -> settings -> uvicorn.

The database and the embedder are opened before the server binds, so a bad flag, a locked
database or a missing model is one clear line on stderr and exit code 2, not a traceback.
SIGINT / SIGTERM stop the server gracefully and exit 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from embedded_memory.settings import (
    API_KEY_ENV,
    DEFAULT_ALPHA,
    DEFAULT_DB_PATH,
    DEFAULT_EMBEDDER,
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEVICES,
    EMBEDDERS,
    ServiceSettings,
)

_DEFAULTS = ServiceSettings()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The serve-memory flags (shared by the main CLI and `python -m embedded_memory`)."""
    parser.add_argument("--host", default=DEFAULT_HOST, help="bind address (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port (default 11546, like Mycelian's MCP)")
    parser.add_argument("--db", default=DEFAULT_DB_PATH, help="SQLite file (default ./mycelian-embedded.sqlite)")
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                        help="hybrid weight: 0 = BM25 only, 1 = vectors only (default 0.6, Mycelian's SEARCH_ALPHA)")
    parser.add_argument("--embedder", choices=EMBEDDERS, default=DEFAULT_EMBEDDER,
                        help=f"dense embedder (default {DEFAULT_EMBEDDER}; 'none' = BM25 only, needs --alpha 0)")
    parser.add_argument("--index-lag-ms", type=int, default=0,
                        help="delay before writes become searchable (to test a lagging index)")
    parser.add_argument("--no-placeholder-context", dest="placeholder_context", action="store_false",
                        help="start new memories without Mycelian's placeholder context")
    parser.add_argument("--lenient-titles", dest="strict_titles", action="store_false",
                        help="accept any title up to 50 characters (Mycelian allows only letters, digits, hyphen)")
    parser.add_argument("--store-secrets", action="store_true",
                        help="store entries and contexts as written, credentials included (default: credentials in "
                             "them are masked as *** before they are stored, like every file a run writes)")
    parser.add_argument("--max-raw-entry-bytes", type=int, default=_DEFAULTS.max_raw_entry_bytes,
                        help="largest add_entry raw_entry in UTF-8 bytes; a larger one is refused "
                             f"(default {_DEFAULTS.max_raw_entry_bytes}; Mycelian's REST API allows 9,000 characters)")
    parser.add_argument("--max-summary-bytes", type=int, default=_DEFAULTS.max_summary_bytes,
                        help=f"largest add_entry summary in bytes (default {_DEFAULTS.max_summary_bytes})")
    parser.add_argument("--max-context-bytes", type=int, default=_DEFAULTS.max_context_bytes,
                        help=f"largest put_context document in bytes (default {_DEFAULTS.max_context_bytes})")
    parser.add_argument("--max-query-bytes", type=int, default=_DEFAULTS.max_query_bytes,
                        help=f"largest search_memories query in bytes (default {_DEFAULTS.max_query_bytes})")
    parser.add_argument("--max-tags-bytes", type=int, default=_DEFAULTS.max_tags_bytes,
                        help=f"largest add_entry tags, as JSON bytes (default {_DEFAULTS.max_tags_bytes})")
    parser.add_argument("--max-batch-entries", type=int, default=_DEFAULTS.max_batch_entries,
                        help="most entries in one add_entries call; a longer list is refused "
                             f"(default {_DEFAULTS.max_batch_entries})")
    parser.add_argument("--embed-batch-size", type=int, default=_DEFAULTS.embed_batch_size,
                        help=f"entry texts embedded per batch (default {_DEFAULTS.embed_batch_size}); "
                             "does not change results")
    parser.add_argument("--device", choices=DEVICES, default=_DEFAULTS.device,
                        help="where --embedder minilm runs: auto (default: CUDA when torch sees a device, else "
                             "CPU), cpu, or cuda (exit 2 when no device is seen); does not change results")
    parser.add_argument("--await-timeout-s", type=float, default=_DEFAULTS.await_timeout_s,
                        help="longest await_consistency wait for a memory's writes to become searchable, in "
                             f"seconds (default {_DEFAULTS.await_timeout_s:.0f})")
    parser.add_argument("--vector-cache-mb", type=int, default=_DEFAULTS.vector_cache_mb,
                        help="RAM for per-memory vector matrices, least recently used dropped first "
                             f"(default {_DEFAULTS.vector_cache_mb}); does not change results")
    parser.add_argument("--transport", choices=("streamable_http", "stdio"), default="streamable_http",
                        help="streamable_http (default: serve /mcp on --host:--port) or stdio (one MCP client on "
                             "stdin/stdout, started by that client; no HTTP routes, no key)")
    _add_http_arguments(parser)
    parser.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"),
                        help="service log level, on stderr (default warning)")
    parser.add_argument("--exit-with-parent", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--parent-pid", type=int, default=None, help=argparse.SUPPRESS)  # the launcher's PID


def _add_http_arguments(parser: argparse.ArgumentParser) -> None:
    http = parser.add_argument_group("access and limits")
    http.add_argument("--api-key", default=None,
                      help=f"require Authorization: Bearer KEY on /mcp and /v0/search (default ${API_KEY_ENV}; "
                           "prefer the variable: arguments show in ps). Needed to bind a non-loopback --host")
    http.add_argument("--allowed-host", action="append", default=[], metavar="NAME[:PORT]",
                      help="a Host name this service answers to besides IP addresses and localhost (repeatable)")
    http.add_argument("--allowed-origin", action="append", default=[], metavar="SCHEME://HOST[:PORT]",
                      help="a browser Origin to accept besides loopback and allowed hosts (repeatable)")
    http.add_argument("--max-body-bytes", type=int, default=_DEFAULTS.max_body_bytes,
                      help=f"largest request body on any route (default {_DEFAULTS.max_body_bytes}; 413 above)")
    http.add_argument("--session-idle-s", type=float, default=_DEFAULTS.session_idle_s,
                      help="end an MCP session with no request in flight and no open stream after this many "
                           f"seconds (default {_DEFAULTS.session_idle_s:.0f})")
    http.add_argument("--max-sessions", type=int, default=_DEFAULTS.max_sessions,
                      help=f"concurrent MCP sessions (default {_DEFAULTS.max_sessions}; 503 above)")
    http.add_argument("--request-timeout-s", type=float, default=_DEFAULTS.request_timeout_s,
                      help="close a connection whose request (headers and body) has not arrived within this "
                           f"(default {_DEFAULTS.request_timeout_s:.0f})")
    http.add_argument("--keep-alive-s", type=int, default=_DEFAULTS.keep_alive_s,
                      help=f"close an idle kept-alive connection after this (default {_DEFAULTS.keep_alive_s})")
    http.add_argument("--max-connections", type=int, default=_DEFAULTS.max_connections,
                      help=f"open connections + running requests before 503 (default {_DEFAULTS.max_connections})")


def settings_from_args(args: argparse.Namespace) -> ServiceSettings:
    api_key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV, "")
    return ServiceSettings(
        host=args.host, port=args.port, db_path=args.db, alpha=args.alpha, embedder=args.embedder,
        index_lag_ms=args.index_lag_ms, placeholder_context=args.placeholder_context,
        strict_titles=args.strict_titles, store_secrets=args.store_secrets, max_raw_entry_bytes=args.max_raw_entry_bytes,
        max_summary_bytes=args.max_summary_bytes, max_context_bytes=args.max_context_bytes,
        max_query_bytes=args.max_query_bytes, max_tags_bytes=args.max_tags_bytes,
        max_batch_entries=args.max_batch_entries,
        embed_batch_size=args.embed_batch_size, device=args.device, await_timeout_s=args.await_timeout_s,
        vector_cache_mb=args.vector_cache_mb, log_level=args.log_level, exit_with_parent=args.exit_with_parent,
        api_key=api_key, allowed_hosts=tuple(args.allowed_host), allowed_origins=tuple(args.allowed_origin),
        max_body_bytes=args.max_body_bytes, session_idle_s=args.session_idle_s, max_sessions=args.max_sessions,
        request_timeout_s=args.request_timeout_s, keep_alive_s=args.keep_alive_s,
        max_connections=args.max_connections)


class _ClosedStreamNoise(logging.Filter):
    """The MCP SDK logs a traceback when a client closes its session while the GET stream is open."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (type(exc).__name__ == "ClosedResourceError" and "standalone SSE" in str(record.msg))


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; 0 on a clean stop, 2 on bad settings, 1 when serving failed."""
    if args.exit_with_parent and not _watch_launcher(args.parent_pid):
        return 1
    settings = settings_from_args(args)
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # see service.limit_blas_threads
        os.environ.setdefault(var, "1")
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("mcp.server.streamable_http").addFilter(_ClosedStreamNoise())
    if getattr(args, "transport", "streamable_http") == "stdio":
        try:
            settings.validate()
        except ValueError as err:
            print(f"serve-memory: {err}", file=sys.stderr)
            return 2
        return serve_stdio(settings)
    if settings.port == 0:
        print("serve-memory: --port 0 is for the launcher; give a port, e.g. --port 11546", file=sys.stderr)
        return 2
    try:
        settings.validate()  # before the model loads: a refused setting costs no startup time
    except ValueError as err:
        print(f"serve-memory: {err}", file=sys.stderr)
        return 2
    return serve(settings)


def _watch_launcher(parent_pid: int | None) -> bool:
    """Before anything slow (the database lock, the model): stop as soon as the launcher is gone, and
    do not start at all when it already is. False = gone. Without --parent-pid the parent at start
    is the launcher, and PID 1 there means it died before we looked."""
    from embedded_memory.lifeline import launcher_gone, stop_self, watch

    parent = parent_pid if parent_pid is not None else os.getppid()
    if launcher_gone(parent) or (parent_pid is None and parent == 1):
        print(f"serve-memory: the launcher (PID {parent}) is gone; not starting", file=sys.stderr, flush=True)
        return False

    def gone() -> None:
        print(f"serve-memory: the launcher (PID {parent}) is gone; shutting down", file=sys.stderr, flush=True)
        stop_self()

    watch(parent, gone)
    return True


def serve(settings: ServiceSettings) -> int:
    from embedded_memory.app import build_app
    from embedded_memory.connections import GracefulServer, uvicorn_config
    from embedded_memory.errors import EmbedderError
    from embedded_memory.service import MemoryService

    try:
        svc = MemoryService.open(settings)
    except (ValueError, RuntimeError, EmbedderError, OSError) as err:
        print(f"serve-memory: {err}", file=sys.stderr)
        return 2
    base = f"http://{settings.host}:{settings.port}"
    device = getattr(svc.embedder, "device", None)  # minilm's resolved device ("auto" chose it)
    print(f"serve-memory: MCP {base}/mcp, health {base}/v0/health, search {base}/v0/search | "
          f"db {settings.db_path} | embedder {settings.embedder}{f' on {device}' if device else ''} | alpha {settings.alpha} | "
          f"index lag {settings.index_lag_ms} ms | auth {'bearer key' if settings.api_key else 'none (loopback)'}",
          file=sys.stderr, flush=True)
    server = GracefulServer(uvicorn_config(build_app(svc), settings))
    try:
        asyncio.run(server.serve())
    except KeyboardInterrupt:
        pass
    if not server.started:
        print(f"serve-memory: could not serve on {base} (see the messages above)", file=sys.stderr)
        return 1
    return 0



def serve_stdio(settings: ServiceSettings) -> int:
    """The same tools over stdio: the client that started this process is its only client, so the
    HTTP guards (key, Host/Origin, body and session limits) have nothing to guard."""
    from embedded_memory.errors import EmbedderError
    from embedded_memory.service import MemoryService
    from embedded_memory.tools import build_mcp

    try:
        svc = MemoryService.open(settings)
    except (ValueError, RuntimeError, EmbedderError, OSError) as err:
        print(f"serve-memory: {err}", file=sys.stderr)
        return 2
    device = getattr(svc.embedder, "device", None)
    print(f"serve-memory: MCP on stdio | db {settings.db_path} | embedder {settings.embedder}"
          f"{f' on {device}' if device else ''} | alpha {settings.alpha}", file=sys.stderr, flush=True)

    async def main() -> None:
        await svc.start()
        try:
            await build_mcp(svc).run_stdio_async()
        finally:
            await svc.close()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0
