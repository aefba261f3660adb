"""The learn idempotency key is scoped to the case's learning attempt (issue 42, 8): a case that a resumed
run resets and learns again sends every message under a new key, and a retry within one attempt keeps its
key. Before, the key was `<case>/<session>/<turn>` in every attempt: an agent that remembers the keys it
took (a durable store, across a reset) skipped every message of the relearn and answered from nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from benchmarker.agent.adapters import HttpAgentAdapter, HttpAgentSettings
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.graph.agent_case import _learn
from benchmarker.log.store import RunLog
from benchmarker.subjects import OutsideAgentSubject
from tests.agent.adapters.example_http_agent import ExampleHttpAgent

CASE = Case("case-1", "longmemeval", (
    Session("s1", "2023/05/20 (Sat) 02:21", (Message("user", "I adopted a beagle called Biscuit."),
                                             Message("assistant", "Congratulations!"))),),
    (Question("case-1", "single-session-user", "What is my dog called?", "Biscuit"),))


def process(run_dir: Path) -> SimpleNamespace:
    """What `_learn` reads of a run's context, as a new process over `run_dir` has it."""
    quiet = SimpleNamespace(set_phase=lambda *a: None, add_tool_calls=lambda *a: None)
    subject = OutsideAgentSubject(pool=SimpleNamespace(name="example-http"), agent_type="http", config_path="run.toml")
    return SimpleNamespace(log=RunLog(run_dir), progress=quiet, subject=subject)


async def test_a_case_learnt_again_after_a_reset_sends_new_keys_and_a_retry_keeps_its_key(tmp_path):
    settings = HttpAgentSettings(base_url="", name="example-http", timeout_s=0.3, max_attempts=3,
                                 initial_backoff_s=0.0, max_backoff_s=0.0)
    with ExampleHttpAgent() as agent:
        agent.slow_learns = [1.0]   # the first reply is lost to the timeout: that message is sent again
        for _ in range(2):          # the first process stops before its questions; a resumed one learns again
            ctx = process(tmp_path)
            async with HttpAgentAdapter(HttpAgentSettings(**{**settings.__dict__, "base_url": agent.url})) as adapter:
                await _learn(ctx, adapter, CASE)  # type: ignore[arg-type]
            ctx.log.close()
    keys = [{k.lower(): v for k, v in r["headers"].items()}.get("idempotency-key") for r in agent.requests]
    paths = [r["path"] for r in agent.requests]
    assert paths == ["/reset", "/learn", "/learn", "/learn", "/reset", "/learn", "/learn"]
    first, second = keys[1:4], keys[5:]
    assert first == ["case-1/1/s1/0", "case-1/1/s1/0", "case-1/1/s1/1"]   # a retry within the attempt: same key
    assert second == ["case-1/2/s1/0", "case-1/2/s1/1"] and not set(first) & set(second)
