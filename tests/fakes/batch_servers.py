"""The providers' batch APIs on 127.0.0.1: OpenAI Batch, Anthropic Message Batches, Bedrock batch
inference (its control plane and the S3 it reads and writes).

Every fake answers each request of a batch with `answer(messages) -> text` (default: "ok") and
usage from `count_tokens` (one token per 4 characters, at least 1). A batch stays in progress while
`hold` is set (`release()` ends every held batch); `fail_next` makes the next batch end failed.
`created` lists the batches created (their custom ids), so a test can see a duplicate submission.

    with OpenAIBatchServer(answer=lambda msgs: "yes") as server:
        server.base_url      # "http://127.0.0.1:PORT/v1"
    with AnthropicBatchServer() as server:
        server.base_url      # "http://127.0.0.1:PORT"
    with BedrockBatchServer() as server:
        server.endpoint_url  # one URL for both the bedrock control plane and S3 (path style)
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import FakeServer, ThreadedUvicorn

Answer = Callable[[list[dict[str, Any]]], str]


def count_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _prompt_tokens(messages: list[dict[str, Any]], system: str = "") -> int:
    return count_tokens(system + "".join(str(m.get("content", "")) for m in messages))


class _BatchFake(FakeServer):
    def __init__(self, answer: Answer | None = None, *, hold: bool = False):
        self.answer: Answer = answer or (lambda messages: "ok")
        self.hold = hold
        self.fail_next = False
        self.mangle: Callable[[list[str]], list[str]] | None = None  # edits the next results file's lines
        self.created: list[list[str]] = []          # custom ids of each batch created, in order
        self.status_calls = 0
        self._batches: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._runner = ThreadedUvicorn(Starlette(routes=self.routes()), lifespan="off")

    def routes(self) -> list[Route]:
        raise NotImplementedError

    def release(self) -> None:
        self.hold = False

    def _new_batch(self, rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        with self._lock:
            batch_id = f"batch_{next(self._ids):04d}"
            batch = {"id": batch_id, "rows": rows, "failed": self.fail_next, **extra}
            self.fail_next = False
            self._batches[batch_id] = batch
            self.created.append([r["id"] for r in rows])
        return batch

    def _ended(self, batch: dict[str, Any]) -> bool:
        self.status_calls += 1
        return not self.hold


class OpenAIBatchServer(_BatchFake):
    """`POST /v1/files`, `POST /v1/batches` (with `metadata`), `GET /v1/batches` (newest first, `limit` and
    `after`), `GET /v1/batches/{id}`, `GET /v1/files/{id}/content`."""

    def routes(self) -> list[Route]:
        self._files: dict[str, str] = {}
        return [Route("/v1/files", self._upload, methods=["POST"]),
                Route("/v1/files/{file_id}/content", self._content, methods=["GET"]),
                Route("/v1/batches", self._create, methods=["POST"]),
                Route("/v1/batches", self._list, methods=["GET"]),
                Route("/v1/batches/{batch_id}", self._get, methods=["GET"])]

    async def _upload(self, request: Request) -> Response:
        form = await request.form()
        if form.get("purpose") != "batch":
            return JSONResponse({"error": {"message": "purpose must be batch"}}, status_code=400)
        upload: Any = form["file"]
        file_id = f"file-{next(self._ids):04d}"
        self._files[file_id] = (await upload.read()).decode()
        return JSONResponse({"id": file_id, "object": "file", "purpose": "batch"})

    async def _create(self, request: Request) -> Response:
        body = await request.json()
        lines = [json.loads(x) for x in self._files[body["input_file_id"]].splitlines() if x.strip()]
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return JSONResponse({"error": {"message": "bad endpoint or window"}}, status_code=400)
        batch = self._new_batch([{"id": line["custom_id"], "body": line["body"]} for line in lines],
                                input_file_id=body["input_file_id"], metadata=body.get("metadata"))
        return JSONResponse(self._view(batch, ended=False))

    async def _list(self, request: Request) -> Response:
        limit = min(100, int(request.query_params.get("limit", 20)))
        ids = sorted(self._batches, reverse=True)   # newest first
        if after := request.query_params.get("after"):
            ids = ids[ids.index(after) + 1:]
        page = [self._view(self._batches[i], ended=not self.hold) for i in ids[:limit]]
        return JSONResponse({"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                             "last_id": page[-1]["id"] if page else None, "has_more": len(ids) > limit})

    def _view(self, batch: dict[str, Any], *, ended: bool) -> dict[str, Any]:
        n = len(batch["rows"])
        status = ("failed" if batch["failed"] else "completed") if ended else "in_progress"
        done = n if ended and not batch["failed"] else 0
        return {"id": batch["id"], "object": "batch", "status": status, "endpoint": "/v1/chat/completions",
                "input_file_id": batch.get("input_file_id"), "metadata": batch.get("metadata"),
                "created_at": 1_700_000_000 + int(batch["id"].removeprefix("batch_")),
                "request_counts": {"total": n, "completed": done, "failed": 0},
                "output_file_id": f"out-{batch['id']}" if done else None, "error_file_id": None}

    async def _get(self, request: Request) -> Response:
        batch = self._batches.get(request.path_params["batch_id"])
        if batch is None:
            return JSONResponse({"error": {"message": "No such batch", "type": "invalid_request_error"}},
                                status_code=404)
        return JSONResponse(self._view(batch, ended=self._ended(batch)))

    async def _content(self, request: Request) -> Response:
        file_id = request.path_params["file_id"]
        if file_id in self._files:
            return Response(self._files[file_id])
        batch = self._batches[file_id.removeprefix("out-")]
        lines = []
        for row in batch["rows"]:
            text = self.answer(row["body"]["messages"])
            usage = {"prompt_tokens": _prompt_tokens(row["body"]["messages"]), "completion_tokens": count_tokens(text)}
            lines.append(json.dumps({"id": f"req_{row['id']}", "custom_id": row["id"], "error": None, "response": {
                "status_code": 200, "body": {"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                          "finish_reason": "stop"}], "usage": usage}}}))
        if self.mangle is not None:
            lines, self.mangle = self.mangle(lines), None
        return Response("\n".join(lines) + "\n")

    def _bound(self, root: str) -> None:
        self.base_url = f"{root}/v1"


class AnthropicBatchServer(_BatchFake):
    """`POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `GET .../{id}/results`."""

    def routes(self) -> list[Route]:
        return [Route("/v1/messages/batches", self._create, methods=["POST"]),
                Route("/v1/messages/batches/{batch_id}", self._get, methods=["GET"]),
                Route("/v1/messages/batches/{batch_id}/results", self._results, methods=["GET"])]

    async def _create(self, request: Request) -> Response:
        if not request.headers.get("x-api-key") or not request.headers.get("anthropic-version"):
            return JSONResponse({"type": "error", "error": {"type": "authentication_error"}}, status_code=401)
        body = await request.json()
        batch = self._new_batch([{"id": r["custom_id"], "params": r["params"]} for r in body["requests"]])
        return JSONResponse(self._view(batch, ended=False))

    def _view(self, batch: dict[str, Any], *, ended: bool) -> dict[str, Any]:
        n = len(batch["rows"])
        counts = {"processing": 0 if ended else n, "succeeded": n if ended and not batch["failed"] else 0,
                  "errored": n if ended and batch["failed"] else 0, "canceled": 0, "expired": 0}
        return {"id": batch["id"], "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts,
                "results_url": f"{self.base_url}/v1/messages/batches/{batch['id']}/results" if ended else None}

    async def _get(self, request: Request) -> Response:
        batch = self._batches[request.path_params["batch_id"]]
        return JSONResponse(self._view(batch, ended=self._ended(batch)))

    async def _results(self, request: Request) -> Response:
        batch = self._batches[request.path_params["batch_id"]]
        lines = []
        for row in batch["rows"]:
            if batch["failed"]:
                result: dict[str, Any] = {"type": "errored", "error": {"type": "api_error", "message": "fake failure"}}
            else:
                p = row["params"]
                text = self.answer(p["messages"])
                result = {"type": "succeeded", "message": {
                    "id": f"msg_{row['id']}", "type": "message", "role": "assistant", "model": p["model"],
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": _prompt_tokens(p["messages"], p.get("system", "")),
                              "output_tokens": count_tokens(text)}}}
            lines.append(json.dumps({"custom_id": row["id"], "result": result}))
        if self.mangle is not None:
            lines, self.mangle = self.mangle(lines), None
        return Response("\n".join(lines) + "\n")

    def _bound(self, root: str) -> None:
        self.base_url = root


class BedrockBatchServer(_BatchFake):
    """Bedrock's `CreateModelInvocationJob` / `GetModelInvocationJob` (rest-json) and path-style S3
    `PutObject` / `GetObject`, on one port. The job reads its input JSONL from the fake S3 and writes
    `<output uri>/<job id>/<input file>.out` there when it ends."""

    def routes(self) -> list[Route]:
        self.objects: dict[tuple[str, str], bytes] = {}
        self.jobs_requests: list[dict[str, Any]] = []
        return [Route("/model-invocation-job", self._create, methods=["POST"]),
                Route("/model-invocation-job/{job:path}", self._get, methods=["GET"]),
                Route("/{bucket}/{key:path}", self._object, methods=["PUT", "GET"])]

    async def _object(self, request: Request) -> Response:
        where = (request.path_params["bucket"], unquote(request.path_params["key"]))
        if request.method == "PUT":
            self.objects[where] = await request.body()
            return Response(headers={"ETag": '"fake"'})
        if where not in self.objects:
            return Response("<Error><Code>NoSuchKey</Code><Message>no such key</Message></Error>", status_code=404,
                            media_type="application/xml")
        return Response(self.objects[where], media_type="application/octet-stream")

    @staticmethod
    def _split(uri: str) -> tuple[str, str]:
        bucket, _, key = uri.removeprefix("s3://").partition("/")
        return bucket, key

    async def _create(self, request: Request) -> Response:
        body = await request.json()
        self.jobs_requests.append(body)
        bucket, key = self._split(body["inputDataConfig"]["s3InputDataConfig"]["s3Uri"])
        lines = [json.loads(x) for x in self.objects[(bucket, key)].decode().splitlines() if x.strip()]
        job_id = f"job{next(self._ids):04d}"
        arn = f"arn:aws:bedrock:us-west-2:123456789012:model-invocation-job/{job_id}"
        batch = self._new_batch([{"id": line["recordId"], "input": line["modelInput"]} for line in lines])
        batch.update(arn=arn, job_id=job_id, body=body, input_name=key.rsplit("/", 1)[-1], written=False)
        self._batches[arn] = batch
        return JSONResponse({"jobArn": arn})

    async def _get(self, request: Request) -> Response:
        batch = self._batches[unquote(request.path_params["job"])]
        ended = self._ended(batch)
        status = ("Failed" if batch["failed"] else "Completed") if ended else "InProgress"
        if ended and not batch["failed"] and not batch["written"]:
            self._write_output(batch)
        body = batch["body"]
        return JSONResponse({"jobArn": batch["arn"], "jobName": body["jobName"], "modelId": body["modelId"],
                             "roleArn": body["roleArn"], "status": status, "submitTime": "2026-01-01T00:00:00Z",
                             "inputDataConfig": body["inputDataConfig"], "outputDataConfig": body["outputDataConfig"],
                             **({"message": "fake failure"} if batch["failed"] else {})})

    def _write_output(self, batch: dict[str, Any]) -> None:
        bucket, prefix = self._split(batch["body"]["outputDataConfig"]["s3OutputDataConfig"]["s3Uri"])
        lines = []
        for row in batch["rows"]:
            model_input = row["input"]
            text = self.answer(model_input["messages"])
            lines.append(json.dumps({"recordId": row["id"], "modelInput": model_input, "modelOutput": {
                "id": f"msg_{row['id']}", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": _prompt_tokens(model_input["messages"], model_input.get("system", "")),
                          "output_tokens": count_tokens(text)}}}))
        key = f"{prefix.rstrip('/')}/{batch['job_id']}/{batch['input_name']}.out"
        self.objects[(bucket, key)] = ("\n".join(lines) + "\n").encode()
        batch["written"] = True

    def _bound(self, root: str) -> None:
        self.endpoint_url = root
