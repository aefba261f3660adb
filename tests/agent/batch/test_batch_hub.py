"""[batch]: the reader's and the judge's calls through the providers' batch APIs, against local fakes
of those APIs (tests/fakes/batch_servers.py): one batch for the calls waiting together, the batch id
durable before the wait, a restarted run picking the same batch up, and batch prices in the ledger."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.bedrock_batches import BedrockBatches
from benchmarker.agent.batch.hub import BatchFailed, BatchHub
from benchmarker.agent.batch.model import BatchModel
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from benchmarker.agent.batch.slot import case_slot
from benchmarker.agent.ledger import TokenLedger
from tests.fakes.batch_servers import AnthropicBatchServer, BedrockBatchServer, OpenAIBatchServer, count_tokens

PRICE = {"m": {"input": 0.80, "output": 4.00}}
QUESTIONS = ["Where did I park?", "What is my dog's name?", "When is the dentist?"]


def answer(messages: list[dict]) -> str:
    text = messages[-1]["content"]
    return f"answer to: {text if isinstance(text, str) else text[0]['text']}"


def api_for(server, name: str):
    if name == "openai":
        return OpenAIBatches(server.base_url, "sk-test")
    if name == "anthropic":
        return AnthropicBatches(server.base_url, "sk-ant-test")
    return BedrockBatches(region="us-west-2", role_arn="arn:aws:iam::123456789012:role/Batch",
                          s3_uri="s3://bucket-1/batches", endpoint_url=server.endpoint_url,
                          s3_endpoint_url=server.endpoint_url)


SERVERS = {"openai": OpenAIBatchServer, "anthropic": AnthropicBatchServer, "bedrock": BedrockBatchServer}


@pytest.fixture(autouse=True)
def aws_env(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def hub(api, run_dir: Path, **kw) -> BatchHub:
    return BatchHub(api, run_dir, **({"poll_s": 0.02, "max_wait_s": 30.0, "max_requests": 100, "collect_s": 0.05} | kw))


def reader(h: BatchHub, ledger: TokenLedger | None = None) -> BatchModel:
    return BatchModel(h, role="qa", model_id="m", temperature=0.0, max_tokens=64, ledger=ledger)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "bedrock"])
async def test_calls_waiting_together_go_in_one_batch_at_half_price(provider: str, tmp_path: Path):
    with SERVERS[provider](answer) as server:
        ledger = TokenLedger(PRICE)
        h = hub(api_for(server, provider), tmp_path)
        model = reader(h, ledger)
        replies = await asyncio.gather(*[model.ainvoke([SystemMessage("Be brief."), HumanMessage(q)])
                                         for q in QUESTIONS])
        await h.aclose()
    assert [r.content for r in replies] == [f"answer to: {q}" for q in QUESTIONS]
    assert len(server.created) == 1 and len(server.created[0]) == 3   # one batch, three requests
    # The ledger: batch-priced tokens under "m (batch)", equal to a hand calculation at half the price.
    tokens_in = sum(count_tokens("Be brief." + q) for q in QUESTIONS)
    tokens_out = sum(count_tokens(f"answer to: {q}") for q in QUESTIONS)
    snap = ledger.snapshot()
    row = snap["roles"]["qa"]["models"]["m (batch)"]
    assert (row["calls"], row["input_tokens"], row["output_tokens"]) == (3, tokens_in, tokens_out)
    assert row["cost_usd"] == pytest.approx((tokens_in * 0.40 + tokens_out * 2.00) / 1e6, abs=1e-12)
    assert snap["total"]["cost_usd"] == pytest.approx(row["cost_usd"], abs=1e-12)
    rows = [json.loads(line) for line in (tmp_path / "batches.jsonl").read_text().splitlines()]
    submitted, ended = [r for r in rows if "provider" in r], [r for r in rows if "ended" in r]
    assert [b["provider"] for b in submitted] == [provider] and len(submitted[0]["custom_ids"]) == 3
    assert [r["batch_id"] for r in ended] == [submitted[0]["batch_id"]]


async def test_the_same_request_twice_is_one_batch_line(tmp_path: Path):
    with OpenAIBatchServer(answer) as server:
        h = hub(api_for(server, "openai"), tmp_path)
        model = reader(h)
        a, b = await asyncio.gather(model.ainvoke("same?"), model.ainvoke("same?"))
        await h.aclose()
    assert a.content == b.content and server.created == [[server.created[0][0]]]


async def test_max_requests_sends_a_batch_without_waiting_for_the_window(tmp_path: Path):
    with AnthropicBatchServer(answer) as server:
        h = hub(api_for(server, "anthropic"), tmp_path, max_requests=2, collect_s=60.0)
        model = reader(h)
        await asyncio.wait_for(asyncio.gather(model.ainvoke("a"), model.ainvoke("b")), timeout=10)
        await h.aclose()
    assert len(server.created) == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic", "bedrock"])
async def test_a_run_stopped_after_submitting_resumes_the_same_batch(provider: str, tmp_path: Path):
    with SERVERS[provider](answer, hold=True) as server:
        first = hub(api_for(server, provider), tmp_path)
        model = reader(first)
        tasks = [asyncio.create_task(model.ainvoke(q)) for q in QUESTIONS[:2]]
        while not (tmp_path / "batches.jsonl").exists():   # submitted and written down, still in progress
            await asyncio.sleep(0.01)
        for task in tasks:   # the process is stopped while it waits
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await first.aclose()
        (batch_id,) = [json.loads(x)["batch_id"] for x in (tmp_path / "batches.jsonl").read_text().splitlines()]
        assert "ended" not in (tmp_path / "batches.jsonl").read_text()

        server.release()
        second = hub(api_for(server, provider), tmp_path)   # a new process over the same run directory
        replies = await asyncio.gather(*[reader(second).ainvoke(q) for q in QUESTIONS[:2]])
        await second.aclose()
        assert [r.content for r in replies] == [f"answer to: {q}" for q in QUESTIONS[:2]]   # no answer lost
        assert len(server.created) == 1 and second.submitted_batches == []   # no duplicate request
        assert all(r.response_metadata["custom_id"] in server.created[0] for r in replies)
        statuses = server.status_calls

        third = hub(api_for(server, provider), tmp_path)   # answers already fetched come from batch_results.jsonl
        again = await reader(third).ainvoke(QUESTIONS[0])
        await third.aclose()
    assert again.content == replies[0].content and server.status_calls == statuses and len(server.created) == 1
    assert batch_id in {json.loads(x)["batch_id"] for x in (tmp_path / "batches.jsonl").read_text().splitlines()}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "bedrock"])
async def test_a_failed_batch_fails_its_calls_and_a_new_call_is_sent_again(provider: str, tmp_path: Path):
    with SERVERS[provider](answer) as server:
        server.fail_next = True
        h = hub(api_for(server, provider), tmp_path)
        with pytest.raises(BatchFailed):
            await reader(h).ainvoke("will fail")
        await h.aclose()
        restarted = hub(api_for(server, provider), tmp_path)   # the failed batch is not waited on again
        assert (await reader(restarted).ainvoke("will fail")).content == "answer to: will fail"   # a new batch
        await restarted.aclose()
    assert len(server.created) == 2


async def test_a_batch_longer_than_max_wait_fails_the_call_and_keeps_its_id(tmp_path: Path):
    with OpenAIBatchServer(answer, hold=True) as server:
        h = hub(api_for(server, "openai"), tmp_path, max_wait_s=0.2)
        with pytest.raises(BatchFailed, match="run again to pick it up"):
            await reader(h).ainvoke("slow")
        await h.aclose()
    assert (tmp_path / "batches.jsonl").read_text().count("batch_id") == 1


async def test_a_case_waiting_on_a_batch_gives_its_place_to_another_case(tmp_path: Path):
    """With [run] concurrency = 1, a second case runs while the first waits on its batch."""
    with OpenAIBatchServer(answer, hold=True) as server:
        h = hub(api_for(server, "openai"), tmp_path)
        slots = asyncio.Semaphore(1)
        order: list[str] = []

        async def case(name: str) -> None:
            await slots.acquire()
            case_slot.set(slots)
            try:
                order.append(f"{name} start")
                await reader(h).ainvoke(name)
                order.append(f"{name} answered")
            finally:
                slots.release()

        first = asyncio.create_task(case("one"))
        second = asyncio.create_task(case("two"))
        while len(order) < 2:
            await asyncio.sleep(0.01)
        server.release()
        await asyncio.gather(first, second)
        await h.aclose()
    assert order[:2] == ["one start", "two start"]
    assert len(server.created) == 1   # both cases' calls went in one batch


def _damaged(lines: list[str]) -> list[str]:
    """The provider's results file with a line cut in half, a second answer to the first request and an
    answer to a request nobody sent."""
    first = json.loads(lines[0])
    twice = json.loads(lines[0])
    twice["response"]["body"]["choices"][0]["message"]["content"] = "a second, different answer"
    stranger = json.loads(lines[0]) | {"custom_id": "never-sent"}
    return [lines[0], lines[1][: len(lines[1]) // 2], json.dumps(twice), json.dumps(stranger), *lines[2:]] if first else lines


async def test_a_damaged_results_file_keeps_every_good_line_and_names_the_bad_one(tmp_path: Path, caplog):
    with OpenAIBatchServer(answer) as server:
        server.mangle = _damaged
        h = hub(api_for(server, "openai"), tmp_path)
        model = reader(h)
        replies = await asyncio.gather(*[model.ainvoke(q) for q in QUESTIONS], return_exceptions=True)
        await h.aclose()
        (batch,) = server.created
        assert [r.content for r in replies if not isinstance(r, BaseException)] == [
            f"answer to: {QUESTIONS[0]}", f"answer to: {QUESTIONS[2]}"]  # the first answer, kept, not the second
        assert isinstance(replies[1], BatchFailed)  # its line was damaged: only that request is sent again
        journaled = [json.loads(x) for x in (tmp_path / "batch_results.jsonl").read_text().splitlines()]
        assert sorted(r["custom_id"] for r in journaled) == sorted([batch[0], batch[2]])  # once each, none unsent
        warned = caplog.text
        batch_id = json.loads((tmp_path / "batches.jsonl").read_text().splitlines()[0])["batch_id"]
        assert f"batch {batch_id} output_file_id" in warned and "line 2: not valid JSON" in warned
        assert "never-sent, a request it was not sent" in warned and "a second result" in warned
        again = await reader(hub(api_for(server, "openai"), tmp_path)).ainvoke(QUESTIONS[1])
        assert again.content == f"answer to: {QUESTIONS[1]}" and server.created[1] == [batch[1]]  # only that one


async def test_a_damaged_line_in_the_batch_journal_loses_nothing_else(tmp_path: Path, caplog):
    with OpenAIBatchServer(answer, hold=True) as server:
        first = hub(api_for(server, "openai"), tmp_path)
        tasks = [asyncio.create_task(reader(first).ainvoke(q)) for q in QUESTIONS[:2]]
        while not (tmp_path / "batches.jsonl").exists():
            await asyncio.sleep(0.01)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await first.aclose()
        journal = tmp_path / "batches.jsonl"
        journal.write_text('{"batch_id": "old", "custom_ids": ["x"]}\n{"batch_id": "torn", "cust\n'
                           + journal.read_text(), encoding="utf-8")  # damage in the middle, not at the end
        server.release()
        second = hub(api_for(server, "openai"), tmp_path)
        replies = await asyncio.gather(*[reader(second).ainvoke(q) for q in QUESTIONS[:2]])
        await second.aclose()
    assert [r.content for r in replies] == [f"answer to: {q}" for q in QUESTIONS[:2]]
    assert len(server.created) == 1 and second.submitted_batches == []  # picked up, not sent again
    assert "batches.jsonl:2: not valid JSON" in caplog.text
