"""A minimal OpenAI-compatible chat server for judge tests: scripted replies, recorded requests.

Starlette under uvicorn in a thread on 127.0.0.1, port 0 (the OS picks a free one).
`replies` are consumed in order; a reply of None answers HTTP 500; when the list runs out
the last reply repeats. Each reply reports usage 50 prompt / 1 completion tokens.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


class FakeJudgeServer:
    def __init__(self, replies: list[str | None]):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.requests.append(body)
        index = min(len(self.requests) - 1, len(self.replies) - 1)
        text = self.replies[index]
        if text is None:
            return JSONResponse({"error": {"message": "boom", "type": "server_error"}}, status_code=500)
        return JSONResponse({
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", "judge"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51},
        })

    @property
    def base_url(self) -> str:
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    def prompts(self) -> list[str]:
        return [r["messages"][-1]["content"] for r in self.requests]

    def __enter__(self) -> "FakeJudgeServer":
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake judge server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
