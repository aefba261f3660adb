"""Previews are masked whole, then cut (issue 42, item 2): a credential that a preview limit cuts through
leaves no prefix of itself in decisions.jsonl or a trace body (a cut prefix is no longer a credential
that masking recognises: 21 of 32 characters of an `sk-` key escaped)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.messages import ToolMessage

from benchmarker.agent.middleware import RESULT_PREVIEW_CHARS, HarnessToolMiddleware
from benchmarker.agent.tracing import RunTracing, langsmith_client
from benchmarker.graph import direct_ingest, search_log
from benchmarker.graph.agent_case import PREVIEW_CHARS, _preview
from benchmarker.log.records import FAILED_ARG_CHARS, DecisionRecord
from benchmarker.log.store import RunLog
from benchmarker.memory.client import MemoryClient
from benchmarker.redact import clean_cut, masked_preview
from tests.fakes.langsmith_server import FakeLangSmith
from tests.fakes.mcp_memory import FakeMemoryServer

SK = "sk-" + "Qz7Xk2Lm9Wp4Rt6Yv8Bn3Cd5Fg1Hj0Ks"      # an OpenAI-shaped key: sk- and 32 characters
LANGSMITH = "lsv2_pt_" + "Ab3De5Gh7Jk9Mn2Pq4St6Vw8Y"  # a LangSmith-shaped key, 33 characters
SECRETS = [SK, LANGSMITH]


def leaks(text: str, secret: str) -> bool:
    """Whether any prefix of `secret` of 8 characters or more is in `text`."""
    return any(secret[:n] in text for n in range(8, len(secret) + 1))


def straddling(secret: str, limit: int, lead: str = "") -> str:
    """A text whose cut at `limit` characters falls 12 characters into `secret`."""
    return lead + "x" * (limit - 13 - len(lead)) + " " + secret + " and the rest of the text"


def _decisions(tmp_path: Path, *records: DecisionRecord) -> str:
    log = RunLog(tmp_path)
    for record in records:
        log.append(record)
    log.close()
    return log.decisions_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("secret", SECRETS)
def test_the_helpers_never_keep_a_cut_prefix(secret: str) -> None:
    text = straddling(secret, 300)
    assert not leaks(masked_preview(text, 300, "..."), secret) and masked_preview("short", 300) == "short"
    kept = clean_cut(text, 300)
    assert not leaks(kept, secret) and text.startswith(kept) and len(kept) >= 300 - 13
    assert clean_cut(f"{secret} {secret}", len(secret) + 1) == f"{secret} "  # a whole one stays, verbatim


@pytest.mark.parametrize("secret", SECRETS)
def test_decision_previews_hold_no_cut_prefix(tmp_path: Path, secret: str) -> None:
    tool_call = {"name": "search_memories", "args": {}, "id": "call-1"}
    reply = ToolMessage(content=straddling(secret, RESULT_PREVIEW_CHARS), tool_call_id="call-1")
    _, agent_call = HarnessToolMiddleware()._finish(SimpleNamespace(tool_call=tool_call), reply, time.perf_counter())
    refused = DecisionRecord(case_id="c1", caller="agent", tool="add_entry", error="refused: too long",
                             args={"summary": straddling(secret, FAILED_ARG_CHARS)})
    reported = DecisionRecord(case_id="c1", caller="agent", tool="search",
                              result_preview=_preview(straddling(secret, PREVIEW_CHARS)))
    written = _decisions(tmp_path, DecisionRecord(case_id="c1", caller="agent", **agent_call), refused, reported)
    assert not leaks(written, secret) and written.count("***") == 3


@pytest.mark.parametrize("secret", SECRETS)
def test_a_retrieval_write_and_a_failed_search_hold_no_cut_prefix(tmp_path: Path, secret: str) -> None:
    log = RunLog(tmp_path)
    ctx = SimpleNamespace(log=log, progress=SimpleNamespace(add_tool_calls=lambda *_: None))

    async def reply() -> str:
        return straddling(secret, direct_ingest.RESULT_PREVIEW_CHARS)

    class Failing:
        searchable = True

        async def search(self, query: str, top_k: int, alpha: float | None) -> object:
            raise RuntimeError(straddling(secret, search_log.ERROR_CHARS - len("RuntimeError: ")))

    async def both() -> None:
        await direct_ingest.logged_call(ctx, "add_entry", {}, reply(), case_id="c1")  # type: ignore[arg-type]
        case = SimpleNamespace(case_id="c1", questions=[])
        with pytest.raises(RuntimeError):
            await search_log.failed_searches_logged(Failing(), log, case, "harness").search("q", 5, None)  # type: ignore[arg-type]

    asyncio.run(both())
    log.close()
    written = log.decisions_path.read_text(encoding="utf-8")
    assert not leaks(written, secret) and written.count("***") == 2


@pytest.mark.parametrize("secret", SECRETS)
def test_a_memory_calls_trace_body_holds_no_cut_prefix(monkeypatch, secret: str) -> None:
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test-key-0123456789")

    async def traced_call(url: str, tracing: RunTracing) -> None:
        async with MemoryClient.connect(url) as client:
            vault = await client.call("create_vault", {"title": "v", "description": ""})
            vault_id = json.loads(vault)["vaultId"]
            memory = await client.call("create_memory_in_vault", {"vault_id": vault_id, "title": "m",
                                                                  "memory_type": "NOTES", "description": ""})
            memory_id = json.loads(memory)["memoryId"]
            await client.call("put_context", {"vault_id": vault_id, "memory_id": memory_id,
                                              "content": straddling(secret, 4000)})
            with tracing.scope(case_id="c", role="qa", phase="qa", run_name="question"):
                await client.call("get_context", {"vault_id": vault_id, "memory_id": memory_id})

    with FakeLangSmith() as ls, FakeMemoryServer() as server:
        client, _ = langsmith_client(SimpleNamespace(endpoint=ls.url, api_key_env="LANGSMITH_API_KEY"))
        tracing = RunTracing(client=client, project="p", run_id="r")
        asyncio.run(traced_call(server.url, tracing))
        tracing.flush()
        deadline = time.monotonic() + 10
        while not any(r["run_type"] == "tool" and r.get("end_time") for r in ls.runs.values()):
            assert time.monotonic() < deadline, "the traced call never arrived"
            time.sleep(0.05)
        sent = repr([list(ls.runs.values()), ls.requests])
    assert "xxxxxxxx" in sent and not leaks(sent, secret)


@pytest.mark.parametrize("secret", SECRETS)
def test_the_other_cuts_of_written_text_keep_no_prefix(secret: str) -> None:
    """A judge's reply, an evidence turn, a self-improve question row, a harness-filled raw entry."""
    from benchmarker.agent.harness_entry import message_raw_entry
    from benchmarker.datasets.schema import Case, Message, Session
    from benchmarker.graph.qa import EVIDENCE_CHARS, evidence_text
    from benchmarker.graph.self_improve.evaluate import TEXT_CHARS, question_row
    from benchmarker.memory.limits import RAW_ENTRY_CHARS
    from benchmarker.scoring.grade import Grade

    turn = Message(role="user", content=straddling(secret, EVIDENCE_CHARS))
    case = Case(case_id="c1", kind="longmemeval", sessions=(Session("s1", "2023/05/01", (turn,)),), questions=())
    header = "[2023/05/01] user: "
    written = [Grade(label=False, judge="llm", model="m", reason="no", reply=straddling(secret, 200)).line_fields(),
               evidence_text(case, [["s1", 0]]),
               question_row({"question_id": "q1", "label": False, "hypothesis": straddling(secret, TEXT_CHARS)}, "agent"),
               message_raw_entry("user", straddling(secret, RAW_ENTRY_CHARS, lead=header)[len(header):], "2023/05/01")]
    for value in written:
        text = json.dumps(value)
        assert "xxxxxxxx" in text and not leaks(text, secret), text[-200:]
