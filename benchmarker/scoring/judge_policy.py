"""The one retry policy of every LLM judge (yes/no judge, fact judge, rubric votes).

Transport failures (connection errors, 429, 5xx) are retried by the model wrapper
(`agent/retry.py`, `[retry] max_attempts`), never here: a judge that retried them again made
up to 6 x 4 calls for one answer. Here the judge only re-asks when the reply is unusable
(empty or unparsable), at most `retries` more times. An exception from the model means its
own retries are spent: judging stops at once and the answer is unjudged (reported, left out
of every denominator), never counted wrong.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from benchmarker.agent.messages import message_text

T = TypeVar("T")
JUDGE_CALL_FAILED = "judge call failed"  # starts every error of a model that raised (its retries spent)


@dataclass(frozen=True)
class Attempts(Generic[T]):
    """What asking a judge produced: the parsed value (None when there is none) and the cost."""

    value: T | None
    attempts: int  # model calls made
    reply: str  # the last raw reply ("" when the model raised before replying)
    error: str = ""  # why there is no value: the last reply's problem, or the model's exception
    failed: bool = False  # the model raised: stopped at once
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


def _problem(reply: str) -> str:
    text = reply.strip()
    return "empty judge reply" if not text else f"unparsable judge reply {text[:80]!r}"


async def ask_prompt_until_parsed(model: Any, prompt: str, parse: Callable[[str], T | None],
                                  retries: int) -> Attempts[T]:
    """`ask_until_parsed` for a one-message prompt: a re-ask carries why the previous reply was unusable."""
    from langchain_core.messages import HumanMessage

    return await ask_until_parsed(lambda problem: model.ainvoke([HumanMessage(
        prompt if not problem else f"{prompt}\n\nYour previous reply could not be used ({problem}).")]), parse, retries)


async def ask_until_parsed(call: Callable[[str], Awaitable[Any]], parse: Callable[[str], T | None],
                           retries: int) -> Attempts[T]:
    """Call the judge until `parse` accepts its reply, at most 1 + `retries` times (module docstring).

    `call(problem)` makes one model call; `problem` is "" the first time, then why the previous
    reply was unusable (a judge may tell the model). `parse(text)` returns the value, or None
    or raises ValueError (its message becomes the problem) when the reply is unusable.
    """
    used: dict[str, Any] = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    reply, problem, attempt = "", "", 0
    for attempt in range(1, max(0, retries) + 2):
        try:
            message = await call(problem)
        except Exception as exc:  # the wrapper's retries are spent: stop, unjudged
            error = f"{JUDGE_CALL_FAILED}: {type(exc).__name__}: {str(exc)[:200]}"
            return Attempts(None, attempt, reply, error, True, **used)
        usage = getattr(message, "usage_metadata", None) or {}
        for key in used:
            used[key] += int(usage.get(key) or 0)
        reply = message_text(message)
        try:
            value = parse(reply)
        except ValueError as exc:
            value, problem = None, str(exc) or _problem(reply)
        else:
            problem = "" if value is not None else _problem(reply)
        if value is not None:
            return Attempts(value, attempt, reply, **used)
    return Attempts(None, attempt, reply, problem, **used)
