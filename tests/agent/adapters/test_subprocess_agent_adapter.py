"""The subprocess adapter against the example JSON Lines agent: the happy path and every way it breaks."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from benchmarker.agent.adapters import (
    AdapterError,
    AgentAdapter,
    LearnItem,
    SubprocessAgentAdapter,
    SubprocessAgentSettings,
)
from benchmarker.agent.adapters.wire import problems

SCRIPT = Path(__file__).with_name("example_subprocess_agent.py")
ITEMS = [
    LearnItem("[2023/05/20 (Sat) 02:21] session s1 user: I adopted a beagle called Biscuit last week.",
              "user", "s1", "2023/05/20 (Sat) 02:21"),
    LearnItem("[2023/06/02 (Fri) 10:00] session s2 user: My sister moved to Lisbon for work.",
              "user", "s2", "2023/06/02 (Fri) 10:00"),
]
REPLY_DEFS = {"learn": "Ack", "reset": "Ack", "answer": "AnswerReply"}


def adapter(mode: str = "normal", **overrides) -> SubprocessAgentAdapter:
    base = {"command": sys.executable, "args": [str(SCRIPT), "--mode", mode], "name": "example-subprocess",
            "timeout_s": 5.0, "close_grace_s": 2.0}
    return SubprocessAgentAdapter(SubprocessAgentSettings(**{**base, **overrides}))


def is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_learns_answers_forgets_and_every_line_matches_the_schema(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    async with adapter(env={"EXAMPLE_AGENT_TRANSCRIPT": str(transcript)}) as agent:
        assert isinstance(agent, AgentAdapter)
        reported = [await agent.learn(item) for item in ITEMS]
        reply = await agent.answer("Which city did my sister move to?", "2023/07/01 (Sat) 09:00")
        assert "Lisbon" in reply.answer and reply.tool_calls[0].output == "s2"
        assert [calls[0].name for calls in reported] == ["add_entry", "add_entry"]  # learn-time tool calls
        assert reported[1][0].arguments["raw_entry"] == ITEMS[1].content
        await agent.reset()
        assert (await agent.answer("Which city did my sister move to?")).answer == "I don't know."
        pid = agent.pid
    assert pid is not None and is_gone(pid)
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [line["request"]["op"] for line in lines] == ["learn", "learn", "answer", "reset", "answer"]
    for line in lines:
        assert problems("subprocess", "Request", line["request"]) == []
        assert problems("subprocess", REPLY_DEFS[line["request"]["op"]], line["reply"]) == []


async def test_a_reply_that_is_not_json_fails_clearly():
    async with adapter("bad-json") as agent:
        await agent.learn(ITEMS[0])
        with pytest.raises(AdapterError, match=r"not a JSON object: 'thinking\.\.\. \{not json'") as caught:
            await agent.answer("anything?")
    message = str(caught.value)
    assert "example-subprocess" in message and "answer failed" in message and str(SCRIPT) in message
    assert "learned 1 items" in message  # the stderr tail


async def test_a_process_that_dies_mid_call_fails_with_its_stderr_tail():
    async with adapter("die") as agent:
        await agent.learn(ITEMS[0])
        with pytest.raises(AdapterError, match="exited with code 3") as caught:
            await agent.answer("anything?")
        assert "fatal: simulated crash while answering" in str(caught.value)
        with pytest.raises(AdapterError, match="no longer usable"):
            await agent.reset()


async def test_a_timeout_stops_the_process_and_later_calls_fail():
    async with adapter("hang", timeout_s=0.3) as agent:
        pid = agent.pid
        with pytest.raises(AdapterError, match=r"no reply within 0.3s; the process was stopped") as caught:
            await agent.answer("anything?")
        assert "example agent started in mode hang" in str(caught.value)
        assert pid is not None and is_gone(pid)
        with pytest.raises(AdapterError, match="no longer usable"):
            await agent.learn(ITEMS[0])


async def test_close_kills_a_process_that_ignores_stdin_and_sigterm():
    agent = adapter("stubborn", close_grace_s=0.2)
    await agent.learn(ITEMS[0])
    pid = agent.pid
    await agent.close()
    await agent.close()  # twice is harmless
    assert pid is not None and is_gone(pid)


async def test_an_error_reply_and_a_missing_command_fail_clearly(tmp_path):
    async with adapter("refuse") as agent:
        with pytest.raises(AdapterError, match="answer failed: the agent reported an error: no model configured"):
            await agent.answer("anything?")
        await agent.reset()  # an error reply leaves the pairing intact, so the agent stays usable
    missing = str(tmp_path / "no-such-agent")
    with pytest.raises(AdapterError, match="could not start the process") as caught:
        await adapter(command=missing, args=[]).learn(ITEMS[0])
    assert caught.value.operation == "start" and missing in str(caught.value)


async def test_a_learn_ack_with_malformed_tool_calls_fails_clearly(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text("import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'id': json.loads(line)['id'], "
                      "'ok': True, 'tool_calls': [{'args': 1}]}), flush=True)\n")
    async with adapter(args=[str(script)]) as agent:
        with pytest.raises(AdapterError,
                           match=r"learn failed: protocol violation: the reply does not match Ack \(\$.tool_calls\[0\]"):
            await agent.learn(ITEMS[0])
