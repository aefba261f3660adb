"""A minimal OpenAI-compatible chat server for judge tests: scripted replies, recorded requests.

Starlette under uvicorn in a thread on 127.0.0.1, port 0 (the OS picks a free one), run by the
fakes' shared `ThreadedUvicorn`.
`replies` are consumed in order; a reply of None answers HTTP 500; when the list runs out
the last reply repeats. Each reply reports usage 50 prompt / 1 completion tokens.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes import FakeServer, ThreadedUvicorn


class FakeJudgeServer(FakeServer):
    def __init__(self, replies: list[str | None]):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])
        self._runner = ThreadedUvicorn(app, lifespan="off")
        self.base_url = ""

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

    def _bound(self, root: str) -> None:
        self.base_url = f"{root}/v1"

    def prompts(self) -> list[str]:
        return [r["messages"][-1]["content"] for r in self.requests]
