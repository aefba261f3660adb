"""Local stand-ins for the hosted services the harness talks to, shared by every test suite.

Each fake is a real HTTP server on 127.0.0.1 (port 0 -> a free port) run by uvicorn in a
background thread, so the production clients (langchain-openai, the anthropic SDK, the MCP
client) are exercised over real sockets:

- `tests.fakes.openai_server.ScriptedOpenAIServer`: OpenAI-compatible chat completions,
  answers from a script (text, tool calls, HTTP errors), records every request.
- `tests.fakes.mcp_memory.FakeMemoryServer`: a tiny in-memory MCP server with Mycelian's 13
  tool names and argument names (streamable HTTP at /mcp).
- `tests.fakes.anthropic_server.AnthropicServer`: Anthropic's Messages API (JSON and SSE), same
  script specs, prompt-cache usage on (`tests.agent.fake_anthropic.ScriptedAnthropicServer` is the
  same server with fixed 100/20 usage unless asked).
- `tests.fakes.bedrock_server.ScriptedBedrockServer`: Bedrock Runtime Converse, same script specs.
- `tests.fakes.cache_model.PromptCache`: the prompt-cache simulator behind the LLM fakes' usage
  (Anthropic breakpoints, Bedrock cachePoints, OpenAI automatic prefix caching; `FakeClock` for TTLs).
  The OpenAI and Bedrock fakes report it with `simulate_usage=True` (or in brain mode).
- `tests.fakes.brain`: model-backed mode: `brain=offline_brain()` on any LLM fake answers every request
  with the harness's offline agent / reader, from the request rebuilt as LangChain messages.

`ThreadedUvicorn` is the shared runner: `with ThreadedUvicorn(app) as srv: srv.port`; `FakeServer` is
the fakes' shared base (start / stop / context manager around their runner).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Self

import uvicorn


class ThreadedUvicorn:
    """Serve an ASGI app on 127.0.0.1 in a daemon thread; a context manager (start/stop)."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, lifespan: str = "on"):
        self._config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                      lifespan=lifespan, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(self._config)
        self._thread: threading.Thread | None = None
        self.host = host
        self.port = 0

    def start(self, timeout_s: float = 10.0) -> "ThreadedUvicorn":
        self._thread = threading.Thread(target=self._server.run, name="fake-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("fake server did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> "ThreadedUvicorn":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


class FakeServer:
    """Start / stop and the context manager of a fake served by `self._runner` (a ThreadedUvicorn);
    `_bound(root)` sets the fake's URL attribute once the port is known."""

    _runner: ThreadedUvicorn

    def _bound(self, root: str) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        self._runner.start()
        self._bound(f"http://127.0.0.1:{self._runner.port}")
        return self

    def stop(self) -> None:
        self._runner.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
