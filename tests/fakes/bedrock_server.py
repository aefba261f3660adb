"""ScriptedBedrockServer: the Bedrock Runtime Converse API (`POST /model/{modelId}/converse`) on 127.0.0.1.

The real `langchain_aws.ChatBedrockConverse` + boto3/botocore client talks to it through
`endpoint_url` (`make_chat_model(..., base_url=server.endpoint_url)`), so request serialisation,
SigV4 signing, response parsing and error parsing are all botocore's own. The wire format follows
botocore's service model (`botocore/data/bedrock-runtime/2023-09-30/service-2.json`, protocol
rest-json):

- request: `modelId` is the URI label (URL-encoded by botocore: `...-v1%3A0`); the JSON body has
  `messages`, `system`, `inferenceConfig`, `toolConfig`, ...
- response: `{"output": {"message": {"role": "assistant", "content": [{"text": ..} | {"toolUse": ..}]}},
  "stopReason": "end_turn" | "tool_use", "usage": {"inputTokens", "outputTokens", "totalTokens"},
  "metrics": {"latencyMs": ..}}`
- errors: the modelled HTTP status, header `x-amzn-ErrorType: <Code>:http://internal.amazon.com/coral/...`
  and body `{"message": ...}`; botocore raises `ClientError` with `Error.Code == <Code>`.

    with ScriptedBedrockServer([tool_call("add_entry", {...}), throttling(), reply("Recorded.")]) as server:
        model = make_chat_model("bedrock", MODEL, role="agent", region="us-west-2", base_url=server.endpoint_url)
        ...
        server.requests    # request JSON bodies, in arrival order (rejected ones included)
        server.model_ids   # the decoded modelId of each request; server.raw_paths the paths as sent

Script specs are those of `tests.fakes.openai_server` (`reply`, `tool_call`, `tool_calls`, a bare
string, a callable script) plus `aws_error(code, message, status=None)` / `throttling()` /
`validation_error(message)`; an `http_error(status, ...)` spec is mapped to the AWS error code
Bedrock uses for that status. Usage may be given as `{"prompt_tokens", "completion_tokens"}` or
`{"inputTokens", "outputTokens"}` (default 100 / 20). An exhausted list script answers 418.

With `validate=True` (the default) the server also applies Bedrock's request rules before the
script is consulted, and answers `ValidationException` (400) without consuming a spec when one is
broken: non-empty `messages` starting with a user turn and alternating roles; no blank text
blocks; no trailing whitespace at the end of the last message's text (Bedrock enforces this for
final assistant content; modelled on user and assistant text alike, so a missing normaliser is
caught); `toolConfig` present whenever toolUse / toolResult blocks are sent; every toolUse answered
by a toolResult with the same id in the next user message.

Prompt caching and model-backed mode: with `simulate_usage=True` (the default when a `brain` is
given) usage comes from the prompt-cache simulator (`tests.fakes.cache_model`, Bedrock's
`cachePoint` breakpoints, 20-block lookback, `min_cacheable_tokens`, TTL): `inputTokens` is the
uncached rest, `cacheReadInputTokens` / `cacheWriteInputTokens` (+ `cacheDetails` by TTL) the
cache parts, `outputTokens` the token count of the emitted content blocks; a spec's explicit usage
still wins. More than 4 cachePoint blocks is a ValidationException. `brain=offline_brain()`
(`tests.fakes.brain`) answers every request; `server.usages` holds the usage of every 200 answer.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import FakeServer, ThreadedUvicorn
from tests.fakes.brain import bedrock_request_messages, brain_spec
from tests.fakes.cache_model import CacheRequestError, PromptCache, count_blocks
from tests.fakes.openai_server import Script, Spec, reply, tool_call, tool_calls  # noqa: F401  (re-exported)

CORAL = "http://internal.amazon.com/coral/com.amazon.bedrock/"
DEFAULT_USAGE = {"inputTokens": 100, "outputTokens": 20}

# HTTP status of each Converse error shape in the service model.
ERROR_STATUS = {
    "AccessDeniedException": 403, "ResourceNotFoundException": 404, "ModelTimeoutException": 408,
    "ThrottlingException": 429, "ModelNotReadyException": 429, "InternalServerException": 500,
    "ServiceUnavailableException": 503, "ValidationException": 400, "ModelErrorException": 424,
}
STATUS_CODE = {400: "ValidationException", 403: "AccessDeniedException", 404: "ResourceNotFoundException",
               408: "ModelTimeoutException", 424: "ModelErrorException", 429: "ThrottlingException",
               500: "InternalServerException", 503: "ServiceUnavailableException"}


def aws_error(code: str, message: str = "error", *, status: int | None = None,
              headers: dict[str, str] | None = None, **extra: Any) -> Spec:
    """An AWS-style error answer (status defaults to the one the service model gives `code`)."""
    return {"aws_error": {"code": code, "message": message, "status": status or ERROR_STATUS.get(code, 400),
                          "headers": headers or {}}, **extra}


def throttling(message: str = "Too many requests, please wait before trying again.", **extra: Any) -> Spec:
    return aws_error("ThrottlingException", message, **extra)


def validation_error(message: str = "Malformed input request", **extra: Any) -> Spec:
    return aws_error("ValidationException", message, **extra)


CACHE_USAGE_KEYS = ("cacheReadInputTokens", "cacheWriteInputTokens", "cacheDetails")


def _usage(spec: Spec, simulated: dict[str, Any] | None = None) -> dict[str, Any]:
    given = spec.get("usage") or {}
    base = simulated or {}
    inp = given.get("inputTokens", given.get("prompt_tokens", base.get("inputTokens", DEFAULT_USAGE["inputTokens"])))
    out = given.get("outputTokens", given.get("completion_tokens",
                                              base.get("outputTokens", DEFAULT_USAGE["outputTokens"])))
    usage: dict[str, Any] = {"inputTokens": int(inp), "outputTokens": int(out)}
    for key in CACHE_USAGE_KEYS:
        if key in given or key in base:
            usage[key] = given.get(key, base.get(key))
    usage["totalTokens"] = (usage["inputTokens"] + usage["outputTokens"] + int(usage.get("cacheReadInputTokens") or 0)
                            + int(usage.get("cacheWriteInputTokens") or 0))
    return {k: usage[k] for k in ("inputTokens", "outputTokens", "totalTokens", *CACHE_USAGE_KEYS) if k in usage}


START_USER = ("A conversation must start with a user message. "
              "Try again with a conversation that starts with a user message.")


def bedrock_request_problem(body: dict[str, Any]) -> str | None:
    """The ValidationException message Bedrock would give this Converse request, or None."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return START_USER
    has_tool_blocks = False
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: member must satisfy enum value set: [user, assistant]"
        if i == 0 and role != "user":
            return START_USER
        if i > 0 and role == messages[i - 1].get("role"):
            return ("A conversation must alternate between user and assistant roles. "
                    "Make sure the conversation alternates between user and assistant roles and try again.")
        content = message.get("content")
        if not isinstance(content, list) or not content:
            return (f"The content field in the Message object at messages.{i} is empty. "
                    "Add a ContentBlock object to the content field and try again.")
        for j, block in enumerate(content):
            if "text" in block and not str(block["text"]).strip():
                return (f"The text field in the ContentBlock object at messages.{i}.content.{j} is blank. "
                        "Add text to the text field, and try again.")
            has_tool_blocks = has_tool_blocks or "toolUse" in block or "toolResult" in block
        uses = [b["toolUse"]["toolUseId"] for b in content if "toolUse" in b]
        if uses:
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            results = {b["toolResult"]["toolUseId"] for b in (nxt or {}).get("content", []) if "toolResult" in b}
            if nxt is not None and not set(uses) <= results:
                return (f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                        + ", ".join(u for u in uses if u not in results))
    if has_tool_blocks and not body.get("toolConfig"):
        return "The toolConfig field must be defined when using toolUse and toolResult content blocks."
    last = messages[-1]
    texts = [b["text"] for b in last.get("content", []) if "text" in b]
    if texts and texts[-1] != texts[-1].rstrip():
        who = "assistant" if last.get("role") == "assistant" else "user"
        return f"messages: final {who} content cannot end with trailing whitespace"
    return None


class ScriptedBedrockServer(FakeServer):
    """Bedrock Runtime Converse fake; `.endpoint_url` is "http://127.0.0.1:PORT" (pass it as base_url)."""

    SIMULATE_BY_DEFAULT = False

    def __init__(self, script: list[Spec | str] | Callable[[dict[str, Any]], Spec | str] | None = None, *,
                 validate: bool = True, brain: Callable[[list[Any], list[str]], Any] | None = None,
                 cache: PromptCache | None = None, min_cacheable_tokens: int = 1024, ttl_s: float = 300.0,
                 clock: Callable[[], float] | None = None, simulate_usage: bool | None = None):
        """script: specs / callable (ignored when `brain` is given); brain: `(messages, tool_names) -> AIMessage`;
        cache: a `PromptCache` to use (else one from min_cacheable_tokens / ttl_s / clock);
        simulate_usage: report the cache simulator's usage (default: only in brain mode)."""
        self.script = Script(script if script is not None else [])
        self.validate = validate
        self.brain = brain
        self.cache = cache if cache is not None else PromptCache(min_cacheable_tokens=min_cacheable_tokens,
                                                                 ttl_s=ttl_s, clock=clock)
        self.simulate_usage = (simulate_usage if simulate_usage is not None
                               else self.SIMULATE_BY_DEFAULT or brain is not None)
        self.usages: list[dict[str, Any]] = []
        self.brain_errors: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.model_ids: list[str] = []
        self.raw_paths: list[str] = []
        self.request_times: list[float] = []
        self.responses: list[tuple[int, dict[str, Any]]] = []   # (status, body) as answered
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        app = Starlette(routes=[Route("/model/{model_id:path}/converse", self._converse, methods=["POST"])])
        self._runner = ThreadedUvicorn(app, lifespan="off")
        self.endpoint_url = ""

    async def _converse(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            self.model_ids.append(request.path_params["model_id"])
            self.raw_paths.append(request.scope.get("raw_path", b"").decode("latin-1"))
            self.request_times.append(time.monotonic())
        problem = bedrock_request_problem(body) if self.validate else None
        if problem is not None:
            return self._error("ValidationException", problem, 400, {})
        prompt = None
        if self.simulate_usage:
            try:
                prompt = self.cache.parse_bedrock(body, request.path_params["model_id"])
            except CacheRequestError as exc:
                return self._error("ValidationException", str(exc), 400, {})
        if self.brain is not None:
            spec: Spec | None = await brain_spec(self.brain, bedrock_request_messages, body, self.brain_errors)
        else:
            spec = self.script.next(body)
        if spec is None:
            return self._error("ScriptExhaustedException", "ScriptedBedrockServer: script exhausted", 418, {})
        if spec.get("delay_s"):
            await asyncio.sleep(spec["delay_s"])
        if "aws_error" in spec:
            err = spec["aws_error"]
            return self._error(err["code"], err["message"], err["status"], err.get("headers") or {})
        if "error" in spec:  # an openai_server.http_error spec
            err = spec["error"]
            code = err.get("type") or STATUS_CODE.get(err["status"], "InternalServerException")
            return self._error(code, err["message"], err["status"], err.get("headers") or {})
        content: list[dict[str, Any]] = []
        if spec.get("text"):
            content.append({"text": spec["text"]})
        for name, args, *rest in spec.get("tool_calls", []):
            ident = rest[0] if rest and rest[0] else f"tooluse_{next(self._ids):04d}"
            content.append({"toolUse": {"toolUseId": ident, "name": name, "input": args}})
        simulated = None
        if prompt is not None:
            output = count_blocks({"toolUse": {k: v for k, v in b["toolUse"].items() if k != "toolUseId"}}
                                  if "toolUse" in b else b for b in content)
            simulated = self.cache.apply(prompt).bedrock_usage(output)
        usage = _usage(spec, simulated)
        payload = {"output": {"message": {"role": "assistant", "content": content}},
                   "stopReason": "tool_use" if spec.get("tool_calls") else "end_turn",
                   "usage": usage, "metrics": {"latencyMs": 1}}
        with self._lock:
            self.responses.append((200, payload))
            self.usages.append(usage)
        return JSONResponse(payload, headers={"x-amzn-RequestId": str(uuid.uuid4())})

    def _error(self, code: str, message: str, status: int, headers: dict[str, str]) -> Response:
        payload = {"message": message}
        self.responses.append((status, {"code": code, **payload}))
        return JSONResponse(payload, status_code=status,
                            headers={"x-amzn-ErrorType": f"{code}:{CORAL}", "x-amzn-RequestId": str(uuid.uuid4()),
                                     **headers})

    def _bound(self, root: str) -> None:
        self.endpoint_url = f"{root}"


def use_local_aws(monkeypatch, tmp_path) -> None:
    """Dummy static AWS credentials for a local server: no profile, config file, bearer token, proxy or metadata
    service of the machine can leak into a test."""
    for name in ("AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
                 "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
                 "AWS_ENDPOINT_URL_BEDROCK", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CA_BUNDLE",
                 "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                 "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
                 "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDLOCALTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local-test-secret")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
