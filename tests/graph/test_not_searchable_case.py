"""A case whose index never became searchable within `[params] consistency_timeout_s` fails into
errors.jsonl instead of being answered against an empty index (scored as recall 0, silently); re-running
reuses its ingested memory and answers it once the index has caught up.

The embedded service runs with index_lag_ms = LAG_MS: await_consistency returns when the queue drains,
but nothing is searchable until the lag has passed (Mycelian's outbox-fed search index)."""

from __future__ import annotations

import asyncio
import time

import pytest

from benchmarker.graph.build import run_cases
from benchmarker.memory.client import MemoryClient
from embedded_memory.launcher import EmbeddedMemoryService
from embedded_memory.settings import ServiceSettings
from tests.graph.support import SAMPLE, cases_of, lines, node_context, setup_state, smallest

LAG_MS = 2500


@pytest.fixture(scope="module")
def lagging_service(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lagging")
    settings = ServiceSettings(host="127.0.0.1", port=0, db_path=str(tmp / "memory.sqlite"), embedder="none",
                               alpha=0.0, index_lag_ms=LAG_MS)
    with EmbeddedMemoryService(settings, log_path=tmp / "service.log") as service:
        yield service


async def test_an_index_that_is_not_searchable_in_time_fails_the_case_and_resume_answers_it(write_config,
                                                                                           lagging_service):
    config = write_config(SAMPLE, run='mode = "retrieval"', params="consistency_timeout_s = 0.2")
    case = smallest(cases_of(config))
    async with MemoryClient.connect(lagging_service.mcp_url, headers=lagging_service.auth_headers) as client:
        first = node_context(config, None, client)
        setup = (await setup_state(first))["setup"]
        assert await run_cases([case], first, setup) == ([], [case.case_id])
        written = time.monotonic()
        first.log.close()
        log = first.log
        (error,) = lines(log.path_of("errors.jsonl"))
        assert error["case_id"] == case.case_id
        assert error["error"].startswith("IndexNotSearchableError: ")
        assert "consistency_timeout_s = 0.2 s" in error["error"] and "retries" in error["error"]
        assert lines(log.answers_path) == [] and lines(log.results_path) == []  # nothing scored as a miss
        memories = lines(log.memories_path)
        assert [m["status"] for m in memories] == ["created", "ingested"]

        await asyncio.sleep(max(0.0, LAG_MS / 1000 + 0.5 - (time.monotonic() - written)))
        second = node_context(config, None, client)  # the same command again: the case is retried
        assert await run_cases([case], second, setup) == ([case.case_id], [])
        second.log.close()
    answers = lines(log.answers_path)
    assert sorted(a["question_id"] for a in answers) == sorted(q.question_id for q in case.questions)
    assert all(a["index_searchable"] for a in answers)
    assert all(a["retrieved"] for a in answers if not a["is_abstention"])
    assert lines(log.memories_path) == memories  # the ingested memory was reused, not written again
