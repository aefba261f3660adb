"""A search hit's preview is masked whole, then cut (issue 42, item 2): a credential that the 300-character
preview limit cuts through leaves no prefix of itself in answers.jsonl or results.jsonl (21 of 32 characters
of an `sk-` key escaped there)."""

from __future__ import annotations

import pytest

from benchmarker.graph.qa import qa
from benchmarker.graph.scoring import score_answers
from benchmarker.memory.client import MemoryClient
from benchmarker.memory.drivers.mycelian import PREVIEW_CHARS
from tests.fakes.mcp_memory import FakeMemoryServer
from tests.graph.support import SAMPLE, cases_of, created_memory, node_context, runtime, smallest
from tests.log.test_mask_before_cut import SECRETS, leaks, straddling


@pytest.mark.parametrize("secret", SECRETS)
async def test_a_key_cut_by_the_hit_preview_leaves_no_prefix_in_the_run_files(write_config, secret: str):
    config = write_config(SAMPLE, run='mode = "retrieval"')
    with FakeMemoryServer() as server:
        async with MemoryClient.connect(server.url) as client:
            ctx = node_context(config, None, client)
            case = smallest(cases_of(config))
            state = await created_memory(ctx, case)
            memory = state["memory"]
            raw = straddling(secret, PREVIEW_CHARS, lead=case.questions[0].question + " ")
            await client.call("add_entry", {"vault_id": memory.vault_id, "memory_id": memory.memory_id,
                                            "raw_entry": raw, "summary": "a note",
                                            "tags": {"session_id": "s1", "turn_index": 0, "role": "user"}})
            state |= await qa(state, runtime(ctx))
            await score_answers(state, runtime(ctx))
    ctx.log.close()
    answers = ctx.log.path_of("answers.jsonl").read_text(encoding="utf-8")
    results = ctx.log.path_of("results.jsonl").read_text(encoding="utf-8")
    assert '"raw_preview": "' in answers and "xxxxxxxx" in answers
    assert not leaks(answers, secret) and not leaks(results, secret)
