"""A request larger than the embedded memory service's body limit (4 MiB) fails that one call, and so that
one case, into errors.jsonl naming the server and the cause (issue 36): before, the service refused the
body mid-upload, the client saw httpx.ReadError, the MCP session died and the whole run stopped as if the
service had been lost (MemoryServerLost)."""

from __future__ import annotations

import asyncio
import json

import pytest

from benchmarker.config import load_config
from benchmarker.errors import MemoryToolError
from benchmarker.log.jsonl import read_jsonl
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from benchmarker.run.runner import execute_run
from benchmarker.suites.sample.data import generate_sample

BIG = "x" * (5 << 20)


@pytest.fixture
def embedded(tmp_path):
    settings = ServiceSettings(port=0, db_path=str(tmp_path / "memory.sqlite"), embedder="none", alpha=0.0)
    with EmbeddedMemoryService(settings, log_path=tmp_path / "service.log") as svc:
        yield svc, settings


async def _oversized_calls(svc, limit: int) -> list[str]:
    failures = []
    async with MemoryClient.connect(svc.mcp_url, headers=svc.auth_headers, max_request_bytes=limit) as client:
        vault_id = await client.ensure_vault("big")
        memory_id = (await client.create_memory(vault_id, "m"))["memoryId"]
        with pytest.raises(MemoryToolError) as harness_call:   # the harness's own search
            await client.search(memory_id, BIG)
        failures.append(str(harness_call.value))
        add_entry = next(t for t in client.tools if t.name == "add_entry")
        with pytest.raises(MemoryToolError) as agent_call:   # the memory agent's tool, through the interceptor
            await add_entry.ainvoke({"vault_id": vault_id, "memory_id": memory_id, "raw_entry": BIG,
                                     "summary": "s"})
        failures.append(str(agent_call.value))
        hits = await client.search(memory_id, "still here?")   # the session lives on
        assert isinstance(hits, dict)
    return failures


def test_a_call_over_the_body_limit_fails_alone_and_the_session_lives(embedded):
    svc, settings = embedded
    failures = asyncio.run(_oversized_calls(svc, settings.max_body_bytes))
    for text in failures:
        assert f"over the memory MCP server's body limit of {settings.max_body_bytes} bytes" in text
        assert svc.mcp_url in text


@pytest.mark.slow
def test_a_question_over_the_body_limit_fails_its_case_not_the_run(tmp_path):
    data = generate_sample(questions_per_type=1, sessions_per_question=3)[:3]
    data[1]["question"] = "What did I say about " + BIG + "?"
    (tmp_path / "lme" / "data").mkdir(parents=True)
    (tmp_path / "lme" / "data" / "longmemeval_s_cleaned.json").write_text(json.dumps(data), encoding="utf-8")
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'run_id = "big"\ndataset_repo_path = "lme"\ndataset = "s"\n'
                   f'[run]\noutput_dir = "{tmp_path}/runs"\nprogress = false\nconcurrency = 1\n', encoding="utf-8")
    config = load_config(cfg)
    outcome = asyncio.run(execute_run(config))   # no MemoryServerLost: the run finishes
    errors = list(read_jsonl(config.run_dir / "errors.jsonl"))
    assert [e["case_id"] for e in errors] == [data[1]["question_id"]], errors
    assert "body limit" in errors[0]["error"] and "/mcp" in errors[0]["error"]
    answered = {a["question_id"] for a in read_jsonl(config.run_dir / "answers.jsonl")}
    assert answered == {data[0]["question_id"], data[2]["question_id"]}
    assert outcome.skipped == [data[1]["question_id"]]
