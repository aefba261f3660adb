"""An agent under test run as a child process speaking JSON Lines (schemas/subprocess_agent.schema.json).

One request line out, one reply line back, one call at a time. Anything that breaks the
one-to-one pairing (a timeout, a dead process) stops the process: a late reply would otherwise
be read as the answer to the next question.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarker.agent.adapters.contract import ALL_CAPABILITIES, AdapterError, AgentResponse, LearnItem, ToolCall
from benchmarker.agent.adapters.wire import first_problem
from benchmarker.redact import redact_text

STDERR_TAIL_LINES = 20
LINE_LIMIT_BYTES = 16 * 1024 * 1024  # an answer with a long reasoning trace is still one line


@dataclass(frozen=True)
class SubprocessAgentSettings:
    """How to start the agent and how long to wait; mirrors a future `[agent.subprocess]` table."""

    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # added to the harness's own environment
    cwd: str | None = None
    name: str = "subprocess"
    timeout_s: float = 120.0
    close_grace_s: float = 5.0


class SubprocessAgentAdapter:
    """The AgentAdapter contract over a child process's stdin/stdout."""

    def __init__(self, settings: SubprocessAgentSettings):
        self.settings = settings
        self._process: asyncio.subprocess.Process | None = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._broken: str | None = None

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def capabilities(self) -> frozenset[str]:
        return ALL_CAPABILITIES

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def target(self) -> str:
        return shlex.join([self.settings.command, *self.settings.args])

    @property
    def usable(self) -> bool:
        """False once the process died, hung or was closed: a new adapter must take its place."""
        return self._broken is None

    async def start(self) -> None:
        """Start the process (the first call does this too); starting twice is a no-op."""
        if self._process is not None:
            return
        s = self.settings
        try:
            self._process = await asyncio.create_subprocess_exec(
                s.command, *s.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env={**os.environ, **s.env}, cwd=s.cwd, limit=LINE_LIMIT_BYTES)
        except OSError as exc:
            raise self._error("start", f"could not start the process: {exc}") from None
        self._stderr_task = asyncio.create_task(self._read_stderr())

    async def learn(self, item: LearnItem) -> tuple[ToolCall, ...]:
        return ToolCall.all_from_wire(await self._call("learn", {"op": "learn", **item.fields()}, "Ack"))

    async def answer(self, question: str, question_date: str = "") -> AgentResponse:
        reply = await self._call("answer", {"op": "answer", "question": question, "question_date": question_date},
                                 "AnswerReply")
        return AgentResponse.from_wire(reply)

    async def reset(self) -> None:
        await self._call("reset", {"op": "reset"}, "Ack")

    async def close(self) -> None:
        """Close stdin and let the agent exit; terminate, then kill, if it does not."""
        process, self._process = self._process, None
        self._broken = self._broken or "the adapter was closed"
        if process is None:
            return
        if process.stdin and not process.stdin.is_closing():
            process.stdin.close()
        for stop in (None, process.terminate, process.kill):
            if process.returncode is not None:
                break
            if stop is not None:
                with contextlib.suppress(ProcessLookupError):
                    stop()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), self.settings.close_grace_s)
        if process.returncode is None:
            await process.wait()  # after SIGKILL this returns promptly
        if self._stderr_task:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._stderr_task, 1.0)

    async def __aenter__(self) -> SubprocessAgentAdapter:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, operation: str, request: dict[str, Any], reply_definition: str) -> dict[str, Any]:
        async with self._lock:
            if self._broken:
                raise self._error(operation, f"the agent process is no longer usable ({self._broken})")
            await self.start()
            process = self._process
            assert process is not None and process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write((json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8"))
                await process.stdin.drain()
                line = await asyncio.wait_for(process.stdout.readline(), self.settings.timeout_s)
            except TimeoutError:
                await self._give_up(f"no reply within {self.settings.timeout_s:g}s")
                raise self._error(operation, f"no reply within {self.settings.timeout_s:g}s; the process was "
                                             f"stopped{self._tail()}") from None
            except (BrokenPipeError, ConnectionResetError, ValueError) as exc:
                # ValueError: a reply line longer than LINE_LIMIT_BYTES.
                raise self._error(operation, await self._died(f"{type(exc).__name__}: {exc}")) from None
            if not line:
                raise self._error(operation, await self._died("it closed stdout"))
            return self._parse(operation, line, reply_definition)

    def _parse(self, operation: str, line: bytes, reply_definition: str) -> dict[str, Any]:
        text = line.decode("utf-8", errors="replace").strip()
        try:
            reply = json.loads(text)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise self._error(operation, f"the reply is not a JSON object: {text[:200]!r}{self._tail()}")
        if "error" in reply and not first_problem("subprocess", "ErrorReply", reply):
            raise self._error(operation, f"the agent reported an error: {str(reply['error'])[:500]}")
        problem = first_problem("subprocess", reply_definition, reply)
        if problem:
            raise self._error(operation, f"the reply does not match {reply_definition} ({problem})")
        return reply

    async def _died(self, how: str) -> str:
        """Why the process stopped answering, with its exit code and last stderr lines."""
        process = self._process
        code = None
        if process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                code = await asyncio.wait_for(process.wait(), 2.0)
        if self._stderr_task:  # let the stderr reader catch the last lines before quoting them
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        exit_text = f"exited with code {code}" if code is not None else "stopped answering"
        self._broken = f"the process {exit_text}"
        await self.close()
        return f"the process {exit_text} ({how}){self._tail()}"

    async def _give_up(self, why: str) -> None:
        """A hung agent will not exit politely, so it is killed rather than waited for."""
        self._broken = why
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        await self.close()

    async def _read_stderr(self) -> None:
        process = self._process
        if process is None or process.stderr is None:
            return
        with contextlib.suppress(ValueError):  # a single stderr line over the limit ends the tail
            async for raw in process.stderr:
                self._stderr_tail.append(raw.decode("utf-8", errors="replace").rstrip())

    def _tail(self) -> str:
        if not self._stderr_tail:
            return "; stderr was empty"
        return "; last stderr lines:\n" + redact_text("\n".join(self._stderr_tail))

    def _error(self, operation: str, detail: str) -> AdapterError:
        return AdapterError(self.name, f"command {self.target}", operation, detail)
