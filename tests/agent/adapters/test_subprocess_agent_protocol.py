"""The subprocess wire cannot pair a reply with the wrong request: request ids, unsolicited output, size
cap, and a violating process is retired (closed, its whole process group with it)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarker.agent.adapters import AdapterError, AgentPool, SubprocessAgentAdapter
from benchmarker.agent.adapters.contract import MAX_REPLY_BYTES, MAX_REPLY_TEXT
from benchmarker.agent.adapters.wire import problems, schema
from tests.agent.adapters.test_subprocess_agent_adapter import ITEMS, SCRIPT, adapter, is_gone

ROOT = Path(__file__).resolve().parents[3]


def script_agent(tmp_path: Path, body: str, **overrides) -> SubprocessAgentAdapter:
    """An agent whose loop body (one request `r` per line, `say(obj)` writes a line) the test writes."""
    path = tmp_path / "agent.py"
    path.write_text("import json, os, subprocess, sys, time\n"
                    "def say(obj):\n    sys.stdout.write(json.dumps(obj) + '\\n'); sys.stdout.flush()\n"
                    "n = 0\nfor line in sys.stdin:\n    r = json.loads(line)\n    n += 1\n"
                    + textwrap.indent(textwrap.dedent(body), "    "), encoding="utf-8")
    return adapter(args=[str(path)], **overrides)


async def test_requests_carry_increasing_ids_and_the_example_agent_echoes_them(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    async with adapter(env={"EXAMPLE_AGENT_TRANSCRIPT": str(transcript)}) as agent:
        await agent.reset()
        await agent.learn(ITEMS[0])
        await agent.answer("What did I adopt?")
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [line["request"]["id"] for line in lines] == [1, 2, 3]
    assert [line["reply"]["id"] for line in lines] == [1, 2, 3]
    for line in lines:
        assert problems("subprocess", "Request", line["request"]) == []


async def test_an_answer_written_twice_with_ids_fails_the_next_call_and_retires_the_process():
    answers = []
    async with adapter("double") as agent:
        pid = agent.pid
        with pytest.raises(AdapterError, match="protocol violation") as caught:  # on the first or second call
            answers.append(await agent.answer("What did I adopt?"))
            answers.append(await agent.answer("Where did my sister move?"))  # before: the first one's answer
        assert "retired" in str(caught.value) and not agent.usable
        assert pid is not None and is_gone(pid)
        with pytest.raises(AdapterError, match="no longer usable"):
            await agent.reset()
    assert len(answers) <= 1


async def test_a_version_1_agent_fails_at_once_saying_what_to_echo():
    async with adapter(args=[str(SCRIPT), "--no-id"]) as agent:
        with pytest.raises(AdapterError, match=r"protocol violation: the reply to request 1 has no id \(protocol "
                                               r"version 2: every reply echoes its request's id\)"):
            await agent.reset()
        assert not agent.usable


async def test_a_stray_line_between_calls_is_caught_before_the_next_request(tmp_path):
    agent = script_agent(tmp_path, """
        say({"id": r["id"], "ok": True})
        if n == 1:
            time.sleep(0.05); say({"id": r["id"], "ok": True})
    """)
    async with agent:
        await agent.learn(ITEMS[0])
        for _ in range(1000):  # until the stray line has arrived (no fixed sleep to race a loaded machine)
            if not agent._lines.empty():
                break
            await asyncio.sleep(0.01)
        with pytest.raises(AdapterError, match=r"protocol violation: unsolicited output before request 2: "
                                               r"'\{\"id\": 1, \"ok\": true\}'"):
            await agent.learn(ITEMS[1])
        assert not agent.usable


async def test_a_learn_ack_written_twice_fails_the_next_call_not_some_later_one(tmp_path):
    agent = script_agent(tmp_path, """
        say({"id": r["id"], "ok": True})
        if n == 1:
            say({"id": r["id"], "ok": True})
    """)
    async with agent:
        with pytest.raises(AdapterError, match="protocol violation") as caught:
            await agent.learn(ITEMS[0])
            await agent.learn(ITEMS[1])  # before: took the first learn's second ack, and every reply shifted
        assert "request 2" in str(caught.value) or "request 1" in str(caught.value)
        assert not agent.usable


async def test_a_wrong_id_and_a_dropped_id_are_violations(tmp_path):
    wrong = script_agent(tmp_path, 'say({"id": r["id"] + 1, "ok": True})\n')
    async with wrong:
        with pytest.raises(AdapterError, match=r"protocol violation: the reply carries id 2 but answers request 1"):
            await wrong.reset()
    dropped = script_agent(tmp_path, 'say({"id": r.get("id"), "ok": True} if n == 1 else {"ok": True})\n')
    async with dropped:
        await dropped.reset()
        with pytest.raises(AdapterError, match="protocol violation: the reply to request 2 has no id"):
            await dropped.reset()


async def test_a_reply_that_is_not_json_retires_the_process():
    async with adapter("bad-json") as agent:
        with pytest.raises(AdapterError, match="protocol violation: the reply is not a JSON object"):
            await agent.answer("anything?")
        assert not agent.usable


async def test_an_error_reply_keeps_the_process():
    async with adapter("refuse") as agent:
        with pytest.raises(AdapterError, match="the agent reported an error"):
            await agent.answer("anything?")
        assert agent.usable
        await agent.reset()


async def test_a_reply_line_over_the_cap_is_a_violation_naming_the_limit(tmp_path):
    # The line never ends and the process never exits on its own: an adapter that waited for the newline or
    # for EOF would hang here until pytest's timeout (no clock in the check: a loaded machine passes too).
    agent = script_agent(tmp_path, f'sys.stdout.write("x" * {MAX_REPLY_BYTES + 10}); sys.stdout.flush(); time.sleep(3600)\n')
    async with agent:
        with pytest.raises(AdapterError, match=f"protocol violation: a reply line is longer than {MAX_REPLY_TEXT}"):
            await agent.reset()
        assert not agent.usable


def test_the_published_schemas_state_the_same_limit_and_the_protocol_version():
    for protocol in ("subprocess", "http"):
        assert MAX_REPLY_TEXT in schema(protocol)["description"]
    assert schema("subprocess")["version"] == 2
    readme = (ROOT / "benchmarker" / "agent" / "adapters" / "schemas" / "README.md").read_text()
    assert MAX_REPLY_TEXT in readme and '"id"' in readme


async def test_the_pool_replaces_an_idle_process_that_wrote_unsolicited_output(tmp_path):
    agent_script = tmp_path / "late.py"
    agent_script.write_text(textwrap.dedent("""
        import json, sys, threading, time
        for n, line in enumerate(sys.stdin, start=1):
            r = json.loads(line)
            print(json.dumps({"id": r.get("id"), "ok": True}), flush=True)
            if n == 1:
                threading.Timer(0.1, lambda: print('{"ok": true}', flush=True)).start()
    """), encoding="utf-8")
    pool = AgentPool(lambda: adapter(args=[str(agent_script)]), size=1)
    async with pool.lease() as first:
        await first.reset()
        first_pid = first.pid  # type: ignore[attr-defined]
    await asyncio.sleep(0.4)
    async with pool.lease() as second:
        await second.reset()  # a fresh process: this case does not pay for the last one's stray line
        assert second.pid != first_pid  # type: ignore[attr-defined]
    await pool.close()
    assert is_gone(first_pid)


CHILD_AGENT = """
import json, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(20)"])
open(sys.argv[1], "w").write(str(child.pid))
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps({"id": r.get("id"), "ok": True}), flush=True)
"""


async def test_close_ends_the_agents_children_too(tmp_path):
    script, pid_file = tmp_path / "parent.py", tmp_path / "child.pid"
    script.write_text(CHILD_AGENT, encoding="utf-8")
    agent = adapter(args=[str(script), str(pid_file)], close_grace_s=0.5)
    await agent.reset()
    child = int(pid_file.read_text())
    assert not is_gone(child)
    await agent.close()
    for _ in range(40):  # the child is not ours to reap: wait until init has
        if is_gone(child) or _is_zombie(child):
            break
        await asyncio.sleep(0.05)
    assert is_gone(child) or _is_zombie(child)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def test_closing_an_agent_leaves_no_event_loop_noise(tmp_path):
    """A child holding the agent's stdout open kept the pipe transport alive past the loop:
    'Exception ignored ... RuntimeError: Event loop is closed' on stderr at exit."""
    script = tmp_path / "parent.py"
    script.write_text(CHILD_AGENT, encoding="utf-8")
    program = textwrap.dedent(f"""
        import asyncio, sys
        from benchmarker.agent.adapters import SubprocessAgentAdapter, SubprocessAgentSettings
        async def main():
            agent = SubprocessAgentAdapter(SubprocessAgentSettings(sys.executable, [{str(script)!r},
                                           {str(tmp_path / "child.pid")!r}], close_grace_s=0.5))
            await agent.reset()
            await agent.close()
        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-X", "dev", "-c", program], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "Event loop is closed" not in done.stderr and "unclosed" not in done.stderr, done.stderr



async def test_a_stderr_line_without_a_newline_neither_blocks_the_agent_nor_fills_memory(tmp_path, monkeypatch):
    """Issue 36: a stderr line longer than the stream's limit stopped the line reader, the pipe filled,
    the agent blocked writing its log and the call timed out "stderr was empty". The limit is lowered
    to 1 MiB here so 3 MB make the point fast; the reader reads chunks, so no size can stop it."""
    from benchmarker.agent.adapters import subprocess_adapter

    monkeypatch.setattr(subprocess_adapter, "MAX_REPLY_BYTES", 1 << 20)
    size = 3 * (1 << 20)
    agent = script_agent(tmp_path, f"""
        if r["op"] == "answer":
            sys.stderr.write("thinking " * ({size} // 9)); sys.stderr.flush()
            say({{"id": r["id"], "answer": "Biscuit"}})
        elif r["op"] == "reset":
            sys.stderr.write("x" * {size}); sys.stderr.flush()
            sys.exit(3)
        else:
            say({{"id": r["id"], "ok": True}})
    """, timeout_s=30.0)
    async with agent:
        assert (await agent.answer("What did I adopt?")).answer == "Biscuit"
        assert (await agent.answer("And again?")).answer == "Biscuit"   # the pipe kept draining
        with pytest.raises(AdapterError, match="exited with code 3") as caught:
            await agent.reset()
    message = str(caught.value)
    written = 2 * (size // 9 * 9) + size   # one line: the agent never wrote a newline
    assert "stderr was empty" not in message and f"a line of {written} bytes, cut at 4096]" in message
    kept = agent._stderr_tail.lines()
    assert sum(len(line) for line in kept) < 64 * 1024   # capped, whatever the agent wrote


def test_the_stderr_tail_keeps_its_last_lines_and_caps_each():
    from benchmarker.agent.adapters.subprocess_adapter import StderrTail

    tail = StderrTail(lines=2, line_bytes=8)
    for chunk in (b"one\ntw", b"o\nthree-is-long", b"er-still\nfo", b"ur"):
        tail.feed(chunk)
    assert tail.lines() == ["two", "three-is ... [a line of 21 bytes, cut at 8]", "four"]


async def test_every_learn_carries_the_messages_idempotency_key(tmp_path):
    """Issue 36 (7), the subprocess side: the same `<case>/<attempt>/<session>/<turn>` key an HTTP agent gets as
    Idempotency-Key, in the learn line as `idempotency_key`, valid against the published schema."""
    from dataclasses import replace

    transcript = tmp_path / "transcript.jsonl"
    keyed = replace(ITEMS[0], key="q1/1/s1/0")
    async with adapter(env={"EXAMPLE_AGENT_TRANSCRIPT": str(transcript)}) as agent:
        await agent.learn(keyed)
        await agent.learn(keyed)   # sent again (a retried case): the same key
        await agent.learn(ITEMS[1])
    requests = [json.loads(line)["request"] for line in transcript.read_text().splitlines()]
    assert [r.get("idempotency_key") for r in requests] == ["q1/1/s1/0", "q1/1/s1/0", None]
    assert all(problems("subprocess", "Request", r) == [] for r in requests)
    assert problems("subprocess", "Request", {**requests[0], "idempotency_key": 7})  # a string, as documented
