"""uvicorn for the service: a request-read deadline uvicorn lacks, its limits, and exit 0 on SIGTERM.

uvicorn's only timer is keep-alive, armed after a response and cancelled by the next byte, so a
connection that never sends a complete request (an idle socket, slowloris headers, a trickled
body) is held forever (https://github.com/encode/uvicorn/issues/157). This protocol closes a
connection whose current request has not fully arrived `request_timeout_s` after its first
byte (or after the connection opened). Long responses (an MCP GET stream, a slow tool call)
are never cut: the deadline ends once the request is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Iterator
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from embedded_memory.settings import ServiceSettings

log = logging.getLogger(__name__)
MAX_HEADER_BYTES = 16 * 1024  # one request head (h11's default, stated here so it is a decision)
LINGER_S = 2.0  # how long a connection answered with 400 keeps draining the client's bytes


def _deferred_close() -> None:
    """Stands in for transport.close while uvicorn writes its 400 (see send_400_response)."""


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol plus a request-read deadline (`config.request_timeout_s`)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.request_timeout_s: float = getattr(config, "request_timeout_s", 10.0)
        self._read_deadline: asyncio.TimerHandle | None = None
        self._lingering = False
        self._linger: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.request_timeout_s, self._on_deadline)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # the rest of a request already answered with 400 (send_400_response)
        if self._read_deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)

    def on_response_complete(self) -> None:
        self._disarm()  # until the next request starts, keep-alive's own timer applies
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._linger is not None:
            self._linger.cancel()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes h11 cannot parse (e.g. a head over MAX_HEADER_BYTES still arriving),
        closed the lingering way: closing at once with the client's bytes unread makes the kernel
        reset the connection, and the client never reads the 400. Half-close instead, discard what
        still arrives, and close once the client does or after LINGER_S."""
        transport = self.transport
        transport.close = _deferred_close  # type: ignore[method-assign]  # super() closes at the end
        try:
            super().send_400_response(msg)
        finally:
            del transport.close  # back to the class's close
        if transport.is_closing():
            return
        if transport.can_write_eof():
            transport.write_eof()
        self._lingering = True
        self._linger = self.loop.call_later(LINGER_S, transport.close)

    def _on_deadline(self) -> None:
        self._read_deadline = None
        if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            return  # the request is in; its response may take as long as it takes
        log.warning("closing a connection from %s: no complete request within %.0f s",
                    self.client[0] if self.client else "?", self.request_timeout_s)
        self.transport.close()


def uvicorn_config(app: Any, settings: ServiceSettings) -> uvicorn.Config:
    """uvicorn settings for the service: h11 with the read deadline, keep-alive, connection cap."""
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level=settings.log_level,
                            access_log=False, lifespan="on", timeout_graceful_shutdown=5,
                            http=DeadlineH11Protocol, timeout_keep_alive=settings.keep_alive_s,
                            limit_concurrency=settings.max_connections,
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES)
    config.request_timeout_s = settings.request_timeout_s  # type: ignore[attr-defined]
    return config


class GracefulServer(uvicorn.Server):
    """uvicorn re-raises SIGTERM/SIGINT after its graceful shutdown, so the process dies of the
    signal (exit -15); here a stop that was asked for and completed is exit 0."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)
