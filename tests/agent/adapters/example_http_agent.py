"""An example HTTP agent for the adapter tests, on 127.0.0.1 in a thread (no `benchmarker` import).

Tests script its misbehaviour: `fail_next` holds statuses to return before behaving,
`answer_delay_s` makes /answer slow, and `requests` records every call for schema checks.
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.agent.adapters.keyword_memory import KeywordMemory


class ExampleHttpAgent:
    def __init__(self) -> None:
        self.memory = KeywordMemory()
        self.fail_next: list[int] = []
        self.answer_delay_s = 0.0
        self.slow_learns: list[float] = []  # seconds to stall the next /learn replies after storing the message
        self.keys: set[str] = set()         # Idempotency-Key values taken since the last /reset
        self.answer_body: bytes | None = None  # overrides the /answer reply when set
        self.requests: list[dict] = []  # {"path", "body", "headers"}
        self.replies: list[dict] = []  # JSON bodies of 2xx /answer replies
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.server.handle_error = self._handle_error  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ExampleHttpAgent:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def handle(self, path: str, body: dict, headers: dict[str, str]) -> tuple[int, bytes]:
        with self.lock:
            self.requests.append({"path": path, "body": body, "headers": headers})
            if self.fail_next:
                status = self.fail_next.pop(0)
                return status, json.dumps({"error": f"scripted {status}", "saw_headers": headers}).encode()
        if path == "/learn":
            key = {k.lower(): v for k, v in headers.items()}.get("idempotency-key", "")
            if key and key in self.keys:  # a retry of a message already taken: success, stored once
                return 200, b""
            self.keys.add(key)
            reply = json.dumps(self.memory.learn(body)).encode()
            if self.slow_learns:
                self.stopping.wait(self.slow_learns.pop(0))  # the reply is lost to the harness's timeout
            return 200, reply
        if path == "/reset":
            self.memory.reset()
            self.keys.clear()
            return 204, b""
        if path == "/answer":
            if self.answer_delay_s:
                self.stopping.wait(self.answer_delay_s)
            if self.answer_body is not None:
                return 200, self.answer_body
            reply = self.memory.answer(body["question"], body["question_date"])
            self.replies.append(reply)
            return 200, json.dumps(reply).encode()
        return 404, b'{"error": "no such path"}'

    def _handle_error(self, request: object, client_address: object) -> None:
        """A client that timed out and hung up is expected here; anything else is still printed."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            traceback.print_exc()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        agent = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with agent.lock:
                    agent.in_flight += 1
                    agent.max_in_flight = max(agent.max_in_flight, agent.in_flight)
                try:
                    status, payload = agent.handle(self.path, json.loads(raw or b"null"), dict(self.headers))
                finally:
                    with agent.lock:
                        agent.in_flight -= 1
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if payload:
                    self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
