"""The providers' batch JSON, one TypedDict per object the harness writes or reads (*_batches.py).

What we send is built whole (`total=True` where every key is always there). What a provider sends back
is read with `.get` and may lack any key or hold the wrong type (`total=False`): results_file.py names and skips
such a line rather than trusting it. Field names are the providers' own:
OpenAI Batch API (`/v1/batches`, its input and output JSONL files, chat completions bodies);
Anthropic Message Batches (`/v1/messages/batches`, its results JSONL);
Bedrock batch inference (`CreateModelInvocationJob`'s `recordId` / `modelInput` lines and the `.out` file).
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from benchmarker.log.lines import Json


class ChatMessage(TypedDict):
    """One message of a request: role system | user | assistant."""

    role: str
    content: str


class RequestContent(TypedDict):
    """What a request's custom id is the hash of (hub.custom_id)."""

    model: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float


# --- OpenAI --------------------------------------------------------------------------------------

class OpenAIChatBody(TypedDict):
    model: str
    messages: list[ChatMessage]
    max_tokens: int
    temperature: float


class OpenAIRequestLine(TypedDict):
    """A line of the uploaded input file."""

    custom_id: str
    method: str
    url: str
    body: OpenAIChatBody


class OpenAIRequestCounts(TypedDict, total=False):
    total: int
    completed: int
    failed: int


class OpenAIBatch(TypedDict, total=False):
    """A batch object (`GET /batches/{id}`, the rows of `GET /batches`)."""

    id: str
    status: str
    metadata: dict[str, str] | None
    input_file_id: str
    output_file_id: str | None
    error_file_id: str | None
    created_at: float
    request_counts: OpenAIRequestCounts


class OpenAIBatchPage(TypedDict, total=False):
    """`GET /batches`: a page of batches, newest first."""

    data: list[OpenAIBatch]
    last_id: str | None
    has_more: bool


class OpenAITokenDetails(TypedDict, total=False):
    cached_tokens: int


class OpenAIUsage(TypedDict, total=False):
    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_details: OpenAITokenDetails | None


class OpenAIAnswer(TypedDict, total=False):
    role: str
    content: str | None


class OpenAIChoice(TypedDict, total=False):
    message: OpenAIAnswer


class OpenAIResponseBody(TypedDict, total=False):
    """A chat completion, or an error body (`error`)."""

    choices: list[OpenAIChoice]
    usage: OpenAIUsage
    error: Json


class OpenAIResponse(TypedDict, total=False):
    status_code: int
    body: OpenAIResponseBody


class OpenAIResultLine(TypedDict, total=False):
    """A line of a batch's output or error file."""

    custom_id: str
    response: OpenAIResponse | None
    error: Json


# --- Anthropic (and Bedrock's model input / output, the same Messages form) --------------------------

class AnthropicParams(TypedDict):
    """A Messages request: the system text apart from the turns."""

    model: str
    max_tokens: int
    temperature: float
    messages: list[ChatMessage]
    system: NotRequired[str]


class AnthropicRequest(TypedDict):
    custom_id: str
    params: AnthropicParams


class AnthropicBatch(TypedDict, total=False):
    """A message batch (`GET /v1/messages/batches/{id}`); request_counts: processing, succeeded, errored, ..."""

    processing_status: str
    request_counts: dict[str, int]
    results_url: str | None


class ContentBlock(TypedDict, total=False):
    type: str
    text: str


class AnthropicUsage(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int | None
    cache_creation_input_tokens: int | None


class AnthropicMessage(TypedDict, total=False):
    content: list[ContentBlock]
    usage: AnthropicUsage


class AnthropicResult(TypedDict, total=False):
    """`{"type": "succeeded", "message": ...}`, or errored / canceled / expired with an `error`."""

    type: str
    message: AnthropicMessage
    error: Json


class AnthropicResultLine(TypedDict, total=False):
    custom_id: str
    result: AnthropicResult | None


class BedrockModelInput(TypedDict):
    """InvokeModel's Anthropic body: the Messages request without `model` (the job names it)."""

    anthropic_version: str
    max_tokens: int
    temperature: float
    messages: list[ChatMessage]
    system: NotRequired[str]


class BedrockRecord(TypedDict):
    """A line of the job's input file."""

    recordId: str
    modelInput: BedrockModelInput


class BedrockResultLine(TypedDict, total=False):
    """A line of the job's `.out` file: the model's message, or the record's error."""

    recordId: str
    modelOutput: AnthropicMessage | None
    error: Json
