"""A failing memory-agent turn traced over the real `langsmith` client to the local fake: the model's
base URL (user password, `api_key=` query value) must not reach any trace body, neither in the
middleware inputs (the model object inside the request) nor in the model's serialized kwargs."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest
from langchain_openai import ChatOpenAI

from benchmarker.agent.memory_agent import MemoryAgentContext, build_memory_agent
from benchmarker.agent.retry import RetryPolicy
from benchmarker.agent.tracing import RunTracing, langsmith_client
from tests.fakes.langsmith_server import FakeLangSmith

PASSWORD, QUERY_KEY, API_KEY, ENV_SECRET = "Pw0rd-in-url-123", "QueryKey-98765", "sk-model-key-555555", "env-secret-424242"


@pytest.mark.parametrize("compression", [False, True])
def test_a_failing_agent_turn_sends_no_credential(monkeypatch, compression: bool) -> None:
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test-key-0123456789")
    monkeypatch.setenv("SOME_SERVICE_TOKEN", ENV_SECRET)
    with FakeLangSmith(compression=compression) as ls:
        client, _ = langsmith_client(SimpleNamespace(endpoint=ls.url, api_key_env="LANGSMITH_API_KEY"))
        tracing = RunTracing(client=client, project="p", run_id="r")
        model = ChatOpenAI(model="gpt-4o-mini", base_url=f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api_key={QUERY_KEY}",
                           api_key=API_KEY, max_retries=0, timeout=5)
        agent = build_memory_agent(model, [], max_tool_calls_per_turn=3, retry_policy=RetryPolicy(max_attempts=1))
        context = MemoryAgentContext(system_prompt=f"system (token {ENV_SECRET})", run_id="r", case_id="c",
                                     question_id="q", vault_id="v", memory_id="m", session_id="s", session_date="d")
        with tracing.scope(case_id="c", role="agent", phase="ingest", run_name="turn"), \
                pytest.raises(Exception, match="Connection error"):
            asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "hi"}]}, context=context))
        tracing.flush()
        deadline = time.monotonic() + 10
        while not any(r["run_type"] == "llm" and r.get("end_time") for r in ls.runs.values()):
            assert time.monotonic() < deadline, "the model call never arrived"
            time.sleep(0.05)
        llm = [r for r in ls.runs.values() if r["run_type"] == "llm"]
        sent = repr([list(ls.runs.values()), ls.requests])
    assert llm and llm[0]["serialized"]["kwargs"]["openai_api_base"] == "http://***@127.0.0.1:9/v1?api_key=***"
    for secret in (PASSWORD, QUERY_KEY, API_KEY, ENV_SECRET):
        assert secret not in sent
