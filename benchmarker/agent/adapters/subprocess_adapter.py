"""An agent under test run as a child process speaking JSON Lines (schemas/subprocess_agent.schema.json).

One request line out, one reply line back, one call at a time. Every request carries an `id` the
reply must echo (protocol version 2), so a reply written twice or late is always caught, never read
as the answer to the next question: without ids the harness, faster than the agent, would read each
stray line as the next reply and never see an extra one waiting. Output nobody asked for is also
caught before each request and right after each reply (and between cases, by the pool).

Anything that breaks the one-to-one pairing (a protocol violation, a timeout, a dead process)
retires the process; the pool starts a fresh one for the next case. Closing stops the agent's
whole process group and releases the pipes in the running event loop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import shlex
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from benchmarker.agent.adapters.contract import (
    ALL_CAPABILITIES,
    MAX_REPLY_BYTES,
    MAX_REPLY_TEXT,
    AdapterError,
    AgentReply,
    AgentResponse,
    LearnItem,
    ToolCall,
)
from benchmarker.agent.adapters.process_group import group_alive, signal_group
from benchmarker.agent.adapters.wire import first_problem
from benchmarker.log.lines import Json
from benchmarker.redact import redact_text

STDERR_TAIL_LINES = 20
STDERR_LINE_BYTES = 4096   # of a longer stderr line only its start is kept, with its length
STDERR_CHUNK_BYTES = 65536
EXCERPT_CHARS = 200
READY_TURNS = 3  # event-loop turns that let lines already in the pipe reach the queue before a check
POLL_S = 0.05


class _TooLong(Exception):
    """A reply line over MAX_REPLY_BYTES: the stdout reader stops there."""


Line = bytes | _TooLong  # b"" is end of stdout


class StderrTail:
    """The last lines an agent wrote to stderr, bounded in lines and in bytes a line, fed in chunks.

    Reading stderr by lines let one line without a newline stop the reader at the stream's limit: the
    pipe then filled, the agent blocked writing its log, the call timed out and the error said
    "stderr was empty". Chunks are read whatever their shape; what is kept never grows past
    STDERR_TAIL_LINES lines of STDERR_LINE_BYTES, however much the agent writes."""

    def __init__(self, lines: int = STDERR_TAIL_LINES, line_bytes: int = STDERR_LINE_BYTES):
        self._lines: collections.deque[str] = collections.deque(maxlen=lines)
        self._line_bytes = line_bytes
        self._partial = bytearray()   # the start of the line being written (at most line_bytes)
        self._partial_size = 0        # its whole length so far

    def feed(self, chunk: bytes) -> None:
        """Take one chunk of stderr: whole lines into the tail, the rest held (capped) for the next."""
        *complete, rest = chunk.split(b"\n")
        for piece in complete:
            self._extend(piece)
            self._lines.append(self._line())
            self._partial.clear()
            self._partial_size = 0
        self._extend(rest)

    def _extend(self, piece: bytes) -> None:
        room = self._line_bytes - len(self._partial)
        if room > 0:
            self._partial += piece[:room]
        self._partial_size += len(piece)

    def _line(self) -> str:
        text = self._partial.decode("utf-8", errors="replace").rstrip()
        if self._partial_size > self._line_bytes:
            text += f" ... [a line of {self._partial_size} bytes, cut at {self._line_bytes}]"
        return text

    def lines(self) -> list[str]:
        """The kept lines, the unfinished last one included (an agent that died mid-line)."""
        return [*self._lines, *([self._line()] if self._partial_size else [])]


class _Violation(Exception):
    """The agent broke the protocol: its process can no longer be trusted to pair replies."""


@dataclass(frozen=True)
class SubprocessAgentSettings:
    """How to start the agent and how long to wait (`[agent.subprocess]`)."""

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
        self._transport: asyncio.SubprocessTransport | None = None
        self._lines: asyncio.Queue[Line] = asyncio.Queue(maxsize=4)  # a flood waits in the pipe, not here
        self._stderr_tail = StderrTail()
        self._readers: list[asyncio.Task[None]] = []
        self._lock = asyncio.Lock()
        self._broken: str | None = None
        self._next_id = 0

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
    def problem(self) -> str | None:
        """Why this process must not take another case: it died, hung, broke the protocol, was closed,
        or wrote output between calls that nobody asked for."""
        if self._broken:
            return self._broken
        if self._process is not None and not self._lines.empty():
            return "it wrote output between calls that no request asked for (protocol violation), or exited"
        return None

    @property
    def usable(self) -> bool:
        """False once the process cannot take another case: a new adapter must take its place."""
        return self.problem is None

    async def start(self) -> None:
        """Start the process (the first call does this too); starting twice is a no-op."""
        if self._process is not None:
            return
        s = self.settings
        loop = asyncio.get_running_loop()
        try:
            # The low-level call hands back the transport, so close() can release the pipes itself
            # (a child still holding stdout would otherwise keep them open past the event loop).
            transport, protocol = await loop.subprocess_exec(
                lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=MAX_REPLY_BYTES, loop=loop),
                s.command, *s.args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, env={**os.environ, **s.env}, cwd=s.cwd, start_new_session=True)
        except OSError as exc:
            raise self._error("start", f"could not start the process: {exc}") from None
        self._transport = transport
        self._process = asyncio.subprocess.Process(transport, protocol, loop)
        self._readers = [asyncio.create_task(self._read_stdout()), asyncio.create_task(self._read_stderr())]

    async def learn(self, item: LearnItem) -> tuple[ToolCall, ...]:
        """Send one message; its idempotency key (case/attempt/session/turn, as the HTTP agent's Idempotency-Key)
        lets the agent take a message sent again within one learning attempt only once."""
        request = {"op": "learn", **item.fields(), **({"idempotency_key": item.key} if item.key else {})}
        return ToolCall.all_from_wire(await self._call("learn", request, "Ack"))

    async def answer(self, question: str, question_date: str = "") -> AgentResponse:
        reply = await self._call("answer", {"op": "answer", "question": question, "question_date": question_date},
                                 "AnswerReply")
        return AgentResponse.from_wire(reply)

    async def reset(self) -> None:
        await self._call("reset", {"op": "reset"}, "Ack")

    async def close(self) -> None:
        """Close stdin and let the agent exit; then SIGTERM, then SIGKILL, its whole process group."""
        await self._stop(polite=True)

    async def __aenter__(self) -> SubprocessAgentAdapter:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, operation: str, request: Mapping[str, Json], reply_definition: str) -> AgentReply:
        async with self._lock:
            if self._broken:
                raise self._error(operation, f"the agent process is no longer usable ({self._broken})")
            await self.start()
            process = self._process
            assert process is not None and process.stdin is not None
            self._next_id += 1
            request_id = self._next_id
            try:
                stray = await self._ready_line()
                if stray == b"":
                    raise EOFError
                if stray is not None:
                    raise _Violation(f"unsolicited output before request {request_id}: {self._describe(stray)}")
                process.stdin.write((json.dumps({"id": request_id, **request}, ensure_ascii=False) + "\n").encode())
                await process.stdin.drain()
                line = await asyncio.wait_for(self._lines.get(), self.settings.timeout_s)
                reply = self._paired(line, request_id)
                extra = await self._ready_line()
                if extra == b"":  # the reply stands; the process cannot take another call
                    self._broken = "the process closed stdout after its last reply"
                elif extra is not None:
                    raise _Violation(f"the agent wrote more than one reply line to request {request_id} "
                                     f"(unsolicited output: {self._describe(extra)})")
            except TimeoutError:
                await self._give_up(f"no reply within {self.settings.timeout_s:g}s")
                raise self._error(operation, f"no reply within {self.settings.timeout_s:g}s; the process was "
                                             f"stopped{self._tail()}") from None
            except (BrokenPipeError, ConnectionResetError) as exc:
                raise self._error(operation, await self._died(f"{type(exc).__name__}: {exc}")) from None
            except EOFError:
                raise self._error(operation, await self._died("it closed stdout")) from None
            except _Violation as violation:
                raise await self._retire(operation, str(violation)) from None
            if "error" in reply and not first_problem("subprocess", "ErrorReply", reply):
                # An error reply keeps the pairing intact, so the process stays in service.
                raise self._error(operation, f"the agent reported an error: {str(reply['error'])[:500]}")
            problem = first_problem("subprocess", reply_definition, reply)
            if problem:
                raise await self._retire(operation, f"the reply does not match {reply_definition} ({problem})")
            return cast(AgentReply, reply)   # checked against the published schema just above

    def _paired(self, line: Line, request_id: int) -> dict[str, Json]:
        """The reply to `request_id`, or why this line cannot be it."""
        if isinstance(line, _TooLong):
            raise _Violation(f"a reply line is longer than {MAX_REPLY_TEXT} ({MAX_REPLY_BYTES} bytes)")
        if not line:
            raise EOFError
        text = line.decode("utf-8", errors="replace").strip()
        try:
            reply = json.loads(text)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise _Violation(f"the reply is not a JSON object: {text[:EXCERPT_CHARS]!r}")
        echoed = reply.get("id")
        if echoed is None:
            raise _Violation(f"the reply to request {request_id} has no id (protocol version 2: every reply echoes "
                             "its request's id)")
        if type(echoed) is not int or echoed != request_id:
            raise _Violation(f"the reply carries id {echoed!r} but answers request {request_id}")
        return reply

    async def _ready_line(self) -> Line | None:
        """A line the agent has already written that no request is waiting for, if any."""
        for _ in range(READY_TURNS):
            await asyncio.sleep(0)
        if self._lines.empty():
            return None
        return self._lines.get_nowait()

    def _describe(self, line: Line) -> str:
        if isinstance(line, _TooLong):
            return f"a line longer than {MAX_REPLY_TEXT}"
        return repr(line.decode("utf-8", errors="replace").strip()[:EXCERPT_CHARS])

    async def _retire(self, operation: str, violation: str) -> AdapterError:
        """A process that broke the protocol is stopped at once: its next line could be anyone's."""
        self._broken = f"protocol violation: {violation}"
        tail = self._tail()
        await self._stop(polite=False)
        return self._error(operation, f"protocol violation: {violation}; the process was retired "
                                      f"(a fresh one takes the next case){tail}")

    async def _died(self, how: str) -> str:
        """Why the process stopped answering, with its exit code and last stderr lines."""
        process = self._process
        code = None
        if process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                code = await asyncio.wait_for(process.wait(), 2.0)
        if len(self._readers) > 1:  # let the stderr reader catch the last lines before quoting them
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._readers[1]), 1.0)
        exit_text = f"exited with code {code}" if code is not None else "stopped answering"
        self._broken = f"the process {exit_text}"
        await self.close()
        return f"the process {exit_text} ({how}){self._tail()}"

    async def _give_up(self, why: str) -> None:
        """A hung agent will not exit politely, so it is killed rather than waited for."""
        self._broken = why
        await self._stop(polite=False, first=signal.SIGKILL)

    async def _stop(self, *, polite: bool, first: signal.Signals = signal.SIGTERM) -> None:
        """Stop the process and its group, then release the pipes in this event loop."""
        process, transport = self._process, self._transport
        self._process, self._transport = None, None
        self._broken = self._broken or "the adapter was closed"
        if process is None or transport is None:
            return
        if process.stdin and not process.stdin.is_closing():
            process.stdin.close()
        grace = self.settings.close_grace_s
        if polite:
            await self._wait_stopped(process, grace)
        for sig in (signal.SIGTERM, signal.SIGKILL) if first == signal.SIGTERM else (signal.SIGKILL,):
            if process.returncode is not None and not group_alive(process.pid):
                break
            signal_group(process.pid, sig)
            await self._wait_stopped(process, grace)
        if process.returncode is None:
            await process.wait()  # after SIGKILL this returns promptly
        transport.close()
        for task in self._readers:  # the stderr tail was quoted already; a flood may block the stdout one
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _wait_stopped(self, process: asyncio.subprocess.Process, timeout_s: float) -> None:
        """Until the leader is reaped and no other process of its group runs, or `timeout_s` passed."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.returncode is None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(process.wait(), POLL_S)
            elif not group_alive(process.pid):
                return
            else:
                await asyncio.sleep(POLL_S)

    async def _read_stdout(self) -> None:
        """Every stdout line into the queue, b"" at the end: the caller sees what arrived unasked."""
        process = self._process
        if process is None or process.stdout is None:
            return
        try:
            while line := await process.stdout.readline():
                await self._lines.put(line)
        except ValueError:  # a line over MAX_REPLY_BYTES
            await self._lines.put(_TooLong())
            return
        await self._lines.put(b"")

    async def _read_stderr(self) -> None:
        """Drain stderr in chunks for as long as the process writes it (a pipe left full blocks the agent)."""
        process = self._process
        if process is None or process.stderr is None:
            return
        while chunk := await process.stderr.read(STDERR_CHUNK_BYTES):
            self._stderr_tail.feed(chunk)

    def _tail(self) -> str:
        lines = self._stderr_tail.lines()
        if not lines:
            return "; stderr was empty"
        return "; last stderr lines:\n" + redact_text("\n".join(lines))

    def _error(self, operation: str, detail: str) -> AdapterError:
        return AdapterError(self.name, f"command {self.target}", operation, detail)
