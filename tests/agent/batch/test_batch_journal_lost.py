"""A journal that lost its own batch's row must not pay for the batch twice (issue 42, 5): the row torn by a
kill during its write, the journal emptied, `custom_ids` that is no list. OpenAI batches carry the run in
their metadata, so a resume finds the batch at the provider and waits on it; Anthropic's carry none, so
the resume refuses in one line naming the journal's line and how to go on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bench.fuzz import batch_attack
from benchmarker.agent.batch.anthropic_batches import AnthropicBatches
from benchmarker.agent.batch.hub import BatchHub, BatchJournal, BatchJournalDamaged
from benchmarker.agent.batch.model import BatchModel
from benchmarker.agent.batch.openai_batches import OpenAIBatches
from tests.fakes.batch_servers import AnthropicBatchServer, OpenAIBatchServer

QUESTIONS = batch_attack.QUESTIONS
DAMAGE = {"own-row-torn": (batch_attack.journal_own_row_torn, "batches.jsonl:1 (not valid JSON)"),
          "emptied": (batch_attack.journal_emptied, "batches.jsonl is empty"),
          "custom-ids-not-a-list": (batch_attack.journal_own_ids_not_a_list,
                                    "batches.jsonl:1 (custom_ids is not a list of request ids)")}


def hub(api, run_dir: Path) -> BatchHub:
    return BatchHub(api, run_dir, poll_s=0.02, max_wait_s=30.0, max_requests=100, collect_s=0.05)


def model(h: BatchHub) -> BatchModel:
    return BatchModel(h, role="qa", model_id="m", temperature=0.0, max_tokens=64, ledger=None)


async def killed_while_waiting(api, run_dir: Path) -> None:
    """Every question asked, the batch submitted and journaled, then the process stopped."""
    h = hub(api, run_dir)
    tasks = [asyncio.create_task(model(h).ainvoke(q)) for q in QUESTIONS]
    while not (run_dir / "batches.jsonl").exists() or '"custom_ids"' not in (run_dir / "batches.jsonl").read_text():
        await asyncio.sleep(0.01)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await h.aclose()


async def ask_all(api, run_dir: Path) -> list[str]:
    h = hub(api, run_dir)
    try:
        return [str(r.content) for r in await asyncio.gather(*[model(h).ainvoke(q) for q in QUESTIONS])]
    finally:
        await h.aclose()


@pytest.mark.parametrize("damage", list(DAMAGE))
async def test_openai_finds_the_batch_its_journal_lost_by_its_metadata(damage, tmp_path, caplog):
    """Before: the resume submitted a second batch for the same five requests, with only a warning."""
    edit, named = DAMAGE[damage]
    with OpenAIBatchServer(batch_attack.answer, hold=True) as server:
        api = OpenAIBatches(server.base_url, "sk-test")
        await killed_while_waiting(api, tmp_path)
        ids = [model(hub(api, tmp_path)).request(q).custom_id for q in QUESTIONS]
        edit(tmp_path, ids)
        server.release()
        answers = await ask_all(api, tmp_path)
        again = await ask_all(api, tmp_path)   # the journal holds the found batch now: nothing looked up or sent
    assert answers == again == [batch_attack.answer([{"content": q}]) for q in QUESTIONS]
    assert server.created == [ids]   # one batch, paid once
    assert named in caplog.text and "1 batches of run" in caplog.text and "found at openai by their metadata" in caplog.text


@pytest.mark.parametrize("damage", list(DAMAGE))
async def test_anthropic_refuses_in_one_line_naming_the_journal_and_how_to_go_on(damage, tmp_path):
    """Anthropic's batches carry no metadata to find them by: the resume sends nothing and says what to do."""
    edit, named = DAMAGE[damage]
    with AnthropicBatchServer(batch_attack.answer, hold=True) as server:
        api = AnthropicBatches(server.base_url, "sk-ant-test")
        await killed_while_waiting(api, tmp_path)
        edit(tmp_path, [])
        server.release()
        with pytest.raises(BatchJournalDamaged) as refused:
            await ask_all(api, tmp_path)
    message = str(refused.value)
    assert named in message and str(tmp_path / "batches.jsonl") in message and "\n" not in message
    assert "delete the damaged line" in message and "run the same command again" in message
    assert refused.value.exit_code == 2 and len(server.created) == 1


async def test_deleting_the_damaged_line_as_the_refusal_says_sends_the_requests_again(tmp_path):
    with AnthropicBatchServer(batch_attack.answer, hold=True) as server:
        api = AnthropicBatches(server.base_url, "sk-ant-test")
        await killed_while_waiting(api, tmp_path)
        batch_attack.journal_own_row_torn(tmp_path, [])
        server.release()
        (tmp_path / "batches.jsonl").write_text("")   # the user deletes the torn line ...
        with pytest.raises(BatchJournalDamaged, match="is empty"):
            await ask_all(api, tmp_path)
        (tmp_path / "batches.jsonl").unlink()          # ... and the journal left empty
        answers = await ask_all(api, tmp_path)
    assert answers == [batch_attack.answer([{"content": q}]) for q in QUESTIONS] and len(server.created) == 2


def test_a_torn_ended_row_of_a_recorded_batch_is_no_damage(tmp_path):
    """A kill while writing a batch's `ended` row loses nothing: its submission row is whole."""
    journal = BatchJournal(tmp_path)
    journal.batches_path.write_text('{"batch_id": "b1", "provider": "anthropic", "custom_ids": ["x"]}\n'
                                    '{"batch_id": "b1", "ende')
    assert journal.damage() == []
    journal.batches_path.write_text('{"batch_id": "b1", "provider": "anthropic", "custom_ids": ["x"]}\n'
                                    '{"batch_id": "b2", "provider": "anthro')
    assert journal.damage() == [f"{journal.batches_path}:2 (not valid JSON)"]


async def test_a_failed_look_up_sends_nothing_and_names_the_journal(tmp_path):
    with OpenAIBatchServer(batch_attack.answer, hold=True) as server:
        api = OpenAIBatches(server.base_url, "sk-test")
        await killed_while_waiting(api, tmp_path)
        batch_attack.journal_emptied(tmp_path, [])
        server.release()
        api._base = api._base.replace("/v1", "/nowhere")   # the listing answers 404
        h = hub(api, tmp_path)
        replies = await asyncio.gather(*[model(h).ainvoke(q) for q in QUESTIONS], return_exceptions=True)
        await h.aclose()
    assert all("batches.jsonl is empty: looking this run's batches up at openai failed" in str(r) for r in replies)
    assert len(server.created) == 1
