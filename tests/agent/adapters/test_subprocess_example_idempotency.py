"""The example subprocess agent deduplicates learn lines on `idempotency_key` (issue 36, 7), as the HTTP
example does on its Idempotency-Key header: a message sent again with the same key is acknowledged and
stored once; a line without a key is always stored; a reset forgets the keys with the memory."""

from __future__ import annotations

import json
from dataclasses import replace

from benchmarker.agent.adapters.wire import problems
from tests.agent.adapters.test_subprocess_agent_adapter import ITEMS, adapter


async def test_the_example_agent_stores_a_keyed_message_once(tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    keyed = replace(ITEMS[0], key="q1/1/s1/0")
    async with adapter(env={"EXAMPLE_AGENT_TRANSCRIPT": str(transcript)}) as agent:
        await agent.learn(keyed)
        await agent.learn(keyed)     # a retry after a timeout: the agent already took it
        await agent.learn(ITEMS[1])  # no key: stored each time
        await agent.learn(ITEMS[1])
        await agent.reset()
        await agent.learn(keyed)     # after a reset the key is new again
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    learns = [(line["request"].get("idempotency_key"), "tool_calls" in line["reply"]) for line in lines
              if line["request"]["op"] == "learn"]
    assert learns == [("q1/1/s1/0", True), ("q1/1/s1/0", False), (None, True), (None, True), ("q1/1/s1/0", True)]
    assert all(problems("subprocess", "Ack", line["reply"]) == [] for line in lines)
