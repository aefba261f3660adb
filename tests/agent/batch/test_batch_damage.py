"""Damage the batch code must survive (issue 36, found by `make fuzz`'s batches group): a provider's
results line of the wrong shape, an error ahead of a request's good result, journal rows of the wrong
type, a whole last journal row without its newline. Each keeps every good answer and pays once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bench.fuzz import batch_attack
from bench.fuzz.outcome import Tally
from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.hub import BatchHub, BatchJournal
from benchmarker.agent.batch.model import BatchModel
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from tests.fakes.batch_servers import AnthropicBatchServer, OpenAIBatchServer

QUESTIONS = batch_attack.QUESTIONS
SERVERS = {"openai": (OpenAIBatchServer, OpenAIBatches), "anthropic": (AnthropicBatchServer, AnthropicBatches)}


def hub(api, run_dir: Path) -> BatchHub:
    return BatchHub(api, run_dir, poll_s=0.02, max_wait_s=30.0, max_requests=100, collect_s=0.05)


def model(h: BatchHub) -> BatchModel:
    return BatchModel(h, role="qa", model_id="m", temperature=0.0, max_tokens=64, ledger=None)


async def ask_all(server, api_type, run_dir: Path) -> list[object]:
    h = hub(api_type(server.base_url, "sk-test"), run_dir)
    try:
        return list(await asyncio.gather(*[model(h).ainvoke(q) for q in QUESTIONS], return_exceptions=True))
    finally:
        await h.aclose()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("damage", [batch_attack.wrong_shape, batch_attack.usage_not_a_number])
async def test_a_results_line_of_the_wrong_shape_costs_only_its_own_request(provider, damage, tmp_path, caplog):
    """Before: one such line raised inside results(), the batch was ended with every answer discarded,
    and the next run paid for all five again."""
    server_type, api_type = SERVERS[provider]
    with server_type(batch_attack.answer) as server:
        ids = [model(hub(api_type(server.base_url, "k"), tmp_path)).request(q).custom_id for q in QUESTIONS]
        server.mangle = lambda lines: damage(lines, ids)
        live = await ask_all(server, api_type, tmp_path)
        bad = 1 if damage is batch_attack.wrong_shape else 3
        assert [isinstance(r, Exception) for r in live] == [n == bad for n in range(5)]
        again = await ask_all(server, api_type, tmp_path)
    assert [r.content for r in again] == [batch_attack.answer([{"content": q}]) for q in QUESTIONS]
    assert server.created[1:] == [[ids[bad]]]   # only the damaged line's request is sent again
    assert f"line {bad + 1}: not a result of the expected shape" in caplog.text


async def test_an_error_ahead_of_a_good_result_keeps_the_good_one(tmp_path, caplog):
    """Before: the first result (the error) was kept, the answer in hand discarded and paid for again."""
    with OpenAIBatchServer(batch_attack.answer) as server:
        ids = [model(hub(OpenAIBatches(server.base_url, "k"), tmp_path)).request(q).custom_id for q in QUESTIONS]
        server.mangle = lambda lines: batch_attack.error_then_good(lines, ids)
        live = await ask_all(server, OpenAIBatches, tmp_path)
    assert [r.content for r in live] == [batch_attack.answer([{"content": q}]) for q in QUESTIONS]
    assert len(server.created) == 1 and "a second result for" in caplog.text
    journaled = [json.loads(x)["custom_id"] for x in (tmp_path / "batch_results.jsonl").read_text().splitlines()]
    assert sorted(journaled) == sorted(ids)


def test_journal_rows_of_the_wrong_type_are_named_and_skipped(tmp_path, caplog):
    """Before: custom_ids = 7 raised TypeError in every call; a results row with text null or usage "lots"
    became an answer that failed its question far from the line to blame."""
    journal = BatchJournal(tmp_path)
    journal.batches_path.write_text('[1]\n{"batch_id": "b1", "custom_ids": 7}\n{"batch_id": "b2", "custom_ids": ["x"]}\n')
    journal.results_path.write_text('null\n{"custom_id": "x", "text": null, "usage": "lots"}\n'
                                    '{"custom_id": "x", "text": "the answer", "usage": {"input": 3}}\n'
                                    '{"custom_id": "x", "text": "a later answer", "usage": {}}\n')
    assert list(journal.submitted()) == ["b2"]
    assert journal.answers()["x"].text == "the answer"
    for named in ("batches.jsonl:1: a JSON list", "batches.jsonl:2: custom_ids", "batch_results.jsonl:1: a JSON NoneType",
                  "batch_results.jsonl:2: not an answer", "batch_results.jsonl:4: a second answer for x"):
        assert named in caplog.text


def test_a_whole_last_journal_row_without_its_newline_survives_the_next_append(tmp_path):
    """Before: the writer cut the row off as torn, and the run after forgot batch b1 and paid again."""
    journal = BatchJournal(tmp_path)
    journal.batches_path.write_text('{"batch_id": "b1", "custom_ids": ["x"]}')
    journal.add_batch({"batch_id": "b2", "custom_ids": ["y"]})
    assert list(journal.submitted()) == ["b1", "b2"]
    journal.batches_path.write_text(journal.batches_path.read_text() + '{"batch_id": "b3", "cust')  # torn: cut off
    journal.end_batch("b2", "completed")
    assert journal.batches_path.read_text().endswith('"custom_ids": ["y"]}\n{"batch_id": "b2", "ended": "completed"}\n')


def test_the_fuzz_batches_group_loses_nothing_and_pays_once(tmp_path):
    """`make fuzz`'s batches group in quick mode: every case handled, named, nothing lost or paid twice."""
    tally = batch_attack.run(tmp_path, Tally("batches"), quick=True)
    assert tally.counts["ok"] >= 3 and tally.counts["clean"] >= 6, tally.examples
    assert tally.short() == {"tried": tally.tried, "refused": tally.counts["clean"], "crashed": 0, "lost": 0,
                             "leaked": 0}, tally.examples
    assert tally.counts["wrong"] == tally.counts["unclear"] == 0, tally.examples
