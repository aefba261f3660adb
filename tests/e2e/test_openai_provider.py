"""End to end through the real langchain-openai client against a scripted OpenAI-compatible server.

The CLI runs as a subprocess with provider "openai" and backend "mcp" pointed at an embedded
service the test starts, so the test can compare what the model was sent with the server's
own MCP schemas.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from benchmarker.agent.prompts import parse_memory_system_prompt
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from benchmarker.token_count import count_tokens
from tests.e2e.cli import run_cli
from tests.fakes.openai_server import ScriptedOpenAIServer, http_error, reply, tool_call

pytestmark = pytest.mark.slow
DEFAULT_PROMPTS = Path(__file__).resolve().parents[2] / "embedded_memory/default_prompts/chat"

DATASET = [{
    "question_id": "q-osaka",
    "question_type": "single-session-user",
    "question": "Where is my sister flying in from?",
    "answer": "Osaka",
    "question_date": "2023/05/30 (Tue) 23:40",
    "haystack_session_ids": ["s-late", "s-early"],
    "haystack_dates": ["2023/05/20 (Sat) 10:00", "2023/05/02 (Tue) 09:15"],
    "haystack_sessions": [
        [{"role": "user", "content": "My sister is flying in from Osaka next week.", "has_answer": True},
         {"role": "assistant", "content": "How exciting, you must be looking forward to it."}],
        [{"role": "user", "content": "I bought a new kettle today."},
         {"role": "assistant", "content": "Nice, enjoy your tea."}],
    ],
    "answer_session_ids": ["s-late"],
}]


class Policy:
    """Scripted model: one add_entry per dataset turn, then 'Recorded.'; QA answers; judge says yes."""

    def __init__(self) -> None:
        self.first = True
        self.times: list[float] = []

    def __call__(self, request: dict) -> dict:
        self.times.append(time.monotonic())
        if self.first:  # the very first call is throttled once
            self.first = False
            return http_error(429, "rate limited", headers={"Retry-After": "1"}, error_type="rate_limit_error")
        messages = request["messages"]
        if request.get("tools"):
            if messages[-1]["role"] == "tool":
                return reply("Recorded.")
            facts = parse_memory_system_prompt(messages[0]["content"])
            turn = messages[-1]["content"]
            return tool_call("add_entry", {"vault_id": facts.vault_id, "memory_id": facts.memory_id,
                                           "raw_entry": turn, "summary": turn[:200], "tags": {"by": "model"}})
        text = messages[-1]["content"]
        if "=== QUESTION ===" in text:
            return reply("Your sister is flying in from Osaka.")
        return reply("yes")


def test_openai_provider_end_to_end(tmp_path: Path) -> None:
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(DATASET), encoding="utf-8")
    policy = Policy()
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(tmp_path / "mem.sqlite"), alpha=0.0,
                               embedder="none")
    with EmbeddedMemoryService(settings) as service, ScriptedOpenAIServer(policy) as llm:
        cfg = tmp_path / "run.toml"
        cfg.write_text(f"""
dataset_file = "{data}"
run_id = "openai-e2e"
[provider]
type = "openai"
[provider.openai]
base_url = "{llm.base_url}"
[models]
agent = "gpt-test-agent"
qa = "gpt-test-reader"
eval = "gpt-test-judge"
[memory]
backend = "mcp"
mcp_url = "{service.mcp_url}"
[retry]
initial_backoff_s = 0.1
[prices]
"gpt-test-agent" = {{ input = 1.0, output = 2.0 }}
[run]
output_dir = "{tmp_path / 'runs'}"
progress = false
""", encoding="utf-8")
        env = dict(os.environ, OPENAI_API_KEY="dummy-key", MYCELIAN_API_KEY=service.api_key)  # [memory].auth_token_env
        proc = run_cli("run", str(cfg), cwd=tmp_path, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-4000:]
        requests = list(llm.requests)
        import asyncio

        async def schemas() -> dict:
            async with MemoryClient.connect(service.mcp_url, headers=service.auth_headers) as client:
                return {t.name: t.args_schema if isinstance(t.args_schema, dict) else t.args_schema.model_json_schema()
                        for t in client.tools}

        server_schemas = asyncio.run(schemas())

    run_dir = tmp_path / "runs" / "openai-e2e"
    memory = [json.loads(l) for l in (run_dir / "memories.jsonl").read_text().splitlines()][-1]
    agent_calls = [r for r in requests if r.get("tools")]
    assert agent_calls, "the agent never called the model"

    # The system prompt carries Mycelian's default prompts and the ids.
    system = agent_calls[-1]["messages"][0]
    assert system["role"] == "system"
    for name in ("context_summary_rules.md", "entry_capture_prompt.md", "summary_prompt.md", "context_prompt.md"):
        first_line = next(l for l in (DEFAULT_PROMPTS / name).read_text().splitlines() if l.strip())
        assert first_line.strip() in system["content"], name
    assert memory["memory_id"] in system["content"] and memory["vault_id"] in system["content"]

    # The tools sent are the MCP server's schemas, only the [agent] tools subset (the default six).
    from benchmarker.config_schema import MEMORY_AGENT_TOOLS

    sent = {t["function"]["name"]: t["function"]["parameters"] for t in agent_calls[-1]["tools"]}
    assert set(sent) == set(MEMORY_AGENT_TOOLS) < set(server_schemas)
    # Prompt caching is on by default: one prompt_cache_key per case on every agent call.
    assert len({r.get("prompt_cache_key") for r in agent_calls}) == 1 and agent_calls[0]["prompt_cache_key"]
    for name, params in sent.items():
        assert set(params.get("properties", {})) == set(server_schemas[name].get("properties", {})), name
        assert set(params.get("required", [])) == set(server_schemas[name].get("required", [])), name

    # Session dates reach the agent, in date order (the early session first).
    turns = [r["messages"][-1]["content"] for r in agent_calls if r["messages"][-1]["role"] == "user"]
    assert "2023/05/02" in turns[0] and "kettle" in turns[0]
    assert any("2023/05/20" in t and "Osaka" in t for t in turns)

    # The question date reaches the reader; the judge got its own prompt.
    qa = [r for r in requests if not r.get("tools") and "=== QUESTION ===" in r["messages"][-1]["content"]]
    assert len(qa) == 1 and "2023/05/30 (Tue) 23:40" in qa[0]["messages"][-1]["content"]

    # The 429 was retried after its Retry-After, and the run finished with a judged answer.
    assert policy.times[1] - policy.times[0] >= 0.9
    result = json.loads((run_dir / "results.jsonl").read_text().splitlines()[0])
    assert result["label"] is True and result["grade"]["judge"] == "llm"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["tokens"]["roles"]["agent"]["input_tokens"] > 0
    assert manifest["tokens"]["roles"]["agent"]["cost_usd"] > 0

    # A number that defends itself: the run is valid, and what the reader saw (the context inside the prompt the
    # server got) is measured in cl100k_base tokens on its line and in the summary's budget block.
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["validity"]["valid"] is True and summary["validity"]["reasons"] == []
    answer = json.loads((run_dir / "answers.jsonl").read_text().splitlines()[0])
    assert answer["reader_context"] and answer["reader_context"] in qa[0]["messages"][-1]["content"]
    assert answer["context_tokens"] == count_tokens(answer["reader_context"])
    assert summary["budget"]["context_tokens"]["max"] == answer["context_tokens"]
