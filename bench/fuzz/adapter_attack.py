"""Group "adapters": outside agents that misbehave, through the real adapters (issue 26).

The subprocess agent is bench/fuzz/outside_agent.py (a real child process); the HTTP agent is a
real server on 127.0.0.1 in a thread. Every case drives the adapter the way a case does (reset,
learn, answer) and judges what the harness would record:
  clean    the violation failed the call with an AdapterError (a case failing into errors.jsonl)
  ok       every answer matched its own question (nothing went wrong that mattered)
  lost     an answer was attributed to the wrong question, silently
  accepted a 60 MB HTTP answer or a >16 MiB reply line was taken as an answer
  crash    no result within the documented deadline (timeout_s), or an unexpected exception
  leaked   a child left running after close, or a credential the agent printed is in the error
A `setsid` grandchild escapes the process group; issue 26 accepts that it may survive a close (the
docs say so): it is counted under extra.setsid_grandchild_survived, not as a leak, and killed here.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.fuzz.outcome import Tally, reset_peak, rss_kb

AGENT = Path(__file__).with_name("outside_agent.py")
KEY_ENV = "FUZZ_AGENT_API_KEY"


def _subprocess(mode: str, *extra: str, timeout_s: float = 10.0) -> Any:
    from benchmarker.agent.adapters import SubprocessAgentAdapter, SubprocessAgentSettings

    return SubprocessAgentAdapter(SubprocessAgentSettings(command=sys.executable, args=(str(AGENT), "--mode", mode, *extra),
                                                          name=f"fuzz-{mode}", timeout_s=timeout_s, close_grace_s=2.0))


async def _ask(adapter: Any, questions: list[str], learn_first: bool) -> tuple[list[str], list[str]]:
    """(misattributed answers, refusals) over reset, an optional learn, then each question."""
    from benchmarker.agent.adapters import AdapterError, LearnItem

    wrong, refused = [], []
    calls: list[tuple[str, Callable[[], Awaitable[Any]]]] = [("reset", adapter.reset)]
    if learn_first:
        item = LearnItem(content="[2023/05/20] session s1 user: I adopted a cat", role="user", session_id="s1",
                         date="2023/05/20")
        calls.append(("learn", lambda: adapter.learn(item)))
    for question in questions:
        calls.append((question, lambda q=question: adapter.answer(q)))
    for label, call in calls:
        try:
            got = await asyncio.wait_for(call(), 20.0)
        except AdapterError as err:
            refused.append(f"{label}: {err.detail[:120]}")
            continue
        if label.startswith("Q") and getattr(got, "answer", None) != f"A:{label}":
            wrong.append(f"{label} got {str(getattr(got, 'answer', got))[:40]!r}")
    return wrong, refused


async def _pairing(mode: str, learn_first: bool) -> tuple[str, str]:
    adapter = _subprocess(mode)
    try:
        wrong, refused = await _ask(adapter, ["Q1 where?", "Q2 when?", "Q3 who?"], learn_first)
    finally:
        await adapter.close()
    if wrong:
        return "lost", "; ".join(wrong) + (f" (refused: {refused[0]})" if refused else " (no error)")
    return ("clean", "") if refused else ("ok", "")


async def answer_twice() -> tuple[str, str]:
    return await _pairing("answer-twice", learn_first=False)


async def learn_twice() -> tuple[str, str]:
    return await _pairing("learn-twice", learn_first=True)


async def huge_line() -> tuple[str, str]:
    from benchmarker.agent.adapters import AdapterError

    adapter = _subprocess("huge-line")
    try:
        await adapter.reset()
        got = await asyncio.wait_for(adapter.answer("Q1"), 30.0)
    except AdapterError:
        return "clean", ""
    finally:
        await adapter.close()
    return "accepted", f"a {len(got.answer) >> 20} MiB answer line was taken"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[-1][:1] not in ("Z", "X")
    except OSError:
        return False


async def children(workdir: Path, extra: dict[str, Any]) -> tuple[str, str]:
    pids_file = workdir / "agent-pids.json"
    adapter = _subprocess("spawn", "--pids", str(pids_file))
    try:
        await adapter.reset()
    finally:
        await adapter.close()
    await asyncio.sleep(0.5)
    pids = json.loads(pids_file.read_text(encoding="utf-8"))
    survived = {name: pid for name, pid in pids.items() if _alive(pid)}
    extra["setsid_grandchild_survived"] = "setsid_grandchild" in survived
    for pid in survived.values():  # the fuzzer cleans up after itself either way
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if "child" in survived:
        return "leaked", f"the agent's child (pid {survived['child']}) was still running after close"
    return "ok", ""


async def credentials() -> tuple[str, str]:
    from benchmarker.agent.adapters import AdapterError

    key = "sk-fuzz-" + secrets.token_hex(16)
    previous = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = key  # the harness's own credential, inherited by the agent
    adapter = _subprocess("creds")
    try:
        await adapter.reset()
        return "wrong", "the agent was meant to fail"
    except AdapterError as err:
        text = str(err)
    finally:
        await adapter.close()
        if previous is None:
            os.environ.pop(KEY_ENV, None)
        else:
            os.environ[KEY_ENV] = previous
    shown = [name for name, value in (("api key", key), ("url password", key[::-1])) if value in text]
    return ("leaked", f"the error message holds the {', '.join(shown)}") if shown else ("clean", "")


# -- HTTP ---------------------------------------------------------------------------------------------

class _Agent(BaseHTTPRequestHandler):
    mode = "normal"
    dribble_bytes = 24
    huge_mb = 60

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path.endswith("/answer") and self.mode == "huge":
            body = json.dumps({"answer": "x" * (self.huge_mb << 20)}).encode()
        elif self.path.endswith("/answer"):
            body = json.dumps({"answer": f"A:{request.get('question', '')}"}).encode()
        else:
            body = b'{"ok": true}'
        if self.path.endswith("/answer") and self.mode == "dribble":
            body = body.ljust(self.dribble_bytes)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if self.path.endswith("/answer") and self.mode == "dribble":
                for index in range(len(body)):
                    self.wfile.write(body[index:index + 1])
                    self.wfile.flush()
                    time.sleep(0.5)
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _serve(mode: str, **sizes: int) -> ThreadingHTTPServer:
    handler = type("Agent", (_Agent,), {"mode": mode, **sizes})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _http(server: ThreadingHTTPServer, timeout_s: float) -> Any:
    from benchmarker.agent.adapters import HttpAgentAdapter, HttpAgentSettings

    host, port = server.server_address[:2]
    assert isinstance(host, str) and socket.inet_aton(host)
    return HttpAgentAdapter(HttpAgentSettings(base_url=f"http://{host}:{port}", name="fuzz-http", timeout_s=timeout_s,
                                              max_attempts=1))


async def dribble(extra: dict[str, Any], dribble_bytes: int) -> tuple[str, str]:
    from benchmarker.agent.adapters import AdapterError

    timeout_s = 3.0
    server = _serve("dribble", dribble_bytes=dribble_bytes)
    adapter = _http(server, timeout_s)
    started = time.perf_counter()
    try:
        await asyncio.wait_for(adapter.answer("Q1"), dribble_bytes * 0.5 + 10)
        outcome = "ok"
    except AdapterError:
        outcome = "clean"
    except TimeoutError:
        outcome = "crash"
    finally:
        await adapter.close()
        server.shutdown()
    took = round(time.perf_counter() - started, 1)
    extra["dribble_seconds"] = {"timeout_s": timeout_s, "took_s": took}
    if took > timeout_s + 2.0:
        return "crash", f"one answer took {took} s with timeout_s = {timeout_s:g} ({outcome}): no deadline"
    return ("clean", "") if outcome == "clean" else (outcome, f"took {took} s")


async def huge_http(extra: dict[str, Any]) -> tuple[str, str]:
    from benchmarker.agent.adapters import AdapterError

    server = _serve("huge")
    adapter = _http(server, 30.0)
    pid = os.getpid()
    reset_peak(pid)
    before = rss_kb(pid)["rss"] or 0
    try:
        got = await adapter.answer("Q1")
        outcome, detail = "accepted", f"a {len(got.answer) >> 20} MiB answer was taken"
        del got
    except AdapterError as err:
        outcome, detail = "clean", err.detail[:100]
    finally:
        await adapter.close()
        server.shutdown()
    peak = rss_kb(pid)["peak"] or 0
    extra["http_60mb_rss_growth_mib"] = round((peak - before) / 1024) if peak and before else None
    return outcome, "" if outcome == "clean" else detail


async def run_all(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    cases: list[tuple[str, Callable[[], Awaitable[tuple[str, str]]]]] = [
        ("subprocess.answer-twice", answer_twice),
        ("subprocess.learn-twice", learn_twice),
        ("subprocess.line-over-16mib", huge_line),
        ("subprocess.child-and-setsid-grandchild-on-close", lambda: children(workdir, tally.extra)),
        ("subprocess.credentials-on-stderr", credentials),
        ("http.dribble-1-byte-per-0.5s", lambda: dribble(tally.extra, 24 if quick else 60)),
        ("http.60mb-answer", lambda: huge_http(tally.extra)),
    ]
    for label, case in cases:
        try:
            outcome, detail = await case()
        except Exception as err:
            outcome, detail = "crash", f"{type(err).__name__}: {str(err)[:200]}"
        tally.add(outcome, f"adapter.{label}", detail)
    return tally


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(run_all(workdir, tally, quick=quick))
