"""Each infrastructure fault, injected for real, turns into the validity verdict and its reason, and `run` exits 3.

The CLI runs as a subprocess on the offline models; the memory is the MCP fake (tests/fakes/mcp_memory.py) on
127.0.0.1, told to fail or empty searches or to return more hits than asked, or the embedded service whose
database is removed between an ingest-only run and a qa + eval run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import run_cli
from tests.fakes.mcp_memory import FakeMemoryServer

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
INVALID_EXIT = 3


def write_config(tmp_path: Path, name: str, memory: str, extra: str = "") -> Path:
    config = tmp_path / f"{name}.toml"
    config.write_text(f'''run_id = "{name}"
vault_title = "{name}"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[provider]
type = "offline"
[memory]
{memory}
[run]
output_dir = "runs"
max_failures_in_a_row = 100
{extra}''')
    return config


def fake_memory(url: str) -> str:
    return f'backend = "mcp"\nmcp_url = "{url}"'


def summary_of(tmp_path: Path, name: str) -> dict:
    return json.loads((tmp_path / "runs" / name / "summary.json").read_text())


def every_third(query: str) -> bool:
    return sum(map(ord, query)) % 3 == 0


def test_a_server_failing_a_share_of_searches_makes_the_run_invalid(tmp_path: Path):
    def fault(query: str, top_k: int) -> str | None:
        return "fail" if top_k != 100 and every_third(query) else None  # 100: the harness's own readiness probe

    with FakeMemoryServer(search_fault=fault) as server:
        done = run_cli("run", str(write_config(tmp_path, "failing", fake_memory(server.url))), cwd=ROOT)
    assert done.returncode == INVALID_EXIT, done.stdout + done.stderr
    validity = summary_of(tmp_path, "failing")["validity"]
    check = validity["checks"]["search_errors"]
    assert check["count"] >= 1 and not check["ok"]
    assert any("searches failed" in r and "HTTP 503 from the memory server" in r for r in validity["reasons"])
    assert "INVALID:" in done.stdout and "not a score" in done.stdout
    report = (tmp_path / "runs" / "failing" / "report.md").read_text()
    assert report.splitlines()[2].startswith("> **INVALID: ")


def test_a_server_whose_searches_come_back_empty_is_a_broken_index(tmp_path: Path):
    def fault(query: str, top_k: int) -> str | None:
        return "empty" if top_k != 100 else None

    with FakeMemoryServer(search_fault=fault) as server:
        done = run_cli("run", str(write_config(tmp_path, "empty", fake_memory(server.url))), cwd=ROOT)
    assert done.returncode == INVALID_EXIT, done.stdout + done.stderr
    checks = summary_of(tmp_path, "empty")["validity"]["checks"]
    assert checks["search_empty"]["count"] == checks["search_empty"]["of"] == 9
    assert checks["memory_replaced"]["count"] > 0


def test_a_server_returning_more_hits_than_top_k_is_counted_and_the_clean_run_is_valid(tmp_path: Path):
    with FakeMemoryServer(search_returns=30) as server:
        config = write_config(tmp_path, "greedy", fake_memory(server.url)).read_text()
        config += "[params]\ntop_k = 2\n"
        (tmp_path / "greedy.toml").write_text(config)
        done = run_cli("run", str(tmp_path / "greedy.toml"), cwd=ROOT)
    validity = summary_of(tmp_path, "greedy")["validity"]
    assert validity["checks"]["hits_above_top_k"]["count"] > 0
    assert validity["checks"]["reader_above_top_k"]["count"] == 0  # trimmed before the reader (graph/qa.py)
    assert done.returncode == 0 and validity["valid"] is True, done.stdout + done.stderr  # no fault: valid, exit 0
    assert validity["reasons"] == [] and validity["checks"]["search_errors"]["of"] == 9


def test_a_memory_database_removed_between_phases_is_a_replaced_memory(tmp_path: Path):
    embedded = 'backend = "embedded"\nembedder = "none"\nalpha = 0.0'
    ingest = write_config(tmp_path, "phases", embedded, 'phases = ["ingest"]')
    done = run_cli("run", str(ingest), cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary_of(tmp_path, "phases")["validity"]["valid"] is True  # nothing asked yet: nothing invalid
    for path in (tmp_path / "runs" / "phases").glob("memory.sqlite*"):
        path.unlink()
    ingest.write_text(ingest.read_text().replace('phases = ["ingest"]', 'phases = ["qa", "eval"]'))
    done = run_cli("run", str(ingest), cwd=ROOT)
    assert done.returncode == INVALID_EXIT, done.stdout + done.stderr
    validity = summary_of(tmp_path, "phases")["validity"]
    assert validity["reasons"][0].startswith("9 of 9 cases' memories were gone or emptied at question time")
    assert "no memory with id" in validity["reasons"][0]


READER_DATASET = [{
    "question_id": f"q-{city}", "question_type": "single-session-user", "question": f"Which city did I say, {city}?",
    "answer": city, "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": [f"s-{city}"],
    "haystack_dates": ["2023/05/20 (Sat) 10:00"],
    "haystack_sessions": [[{"role": "user", "content": f"My sister is flying in from {city}.", "has_answer": True}]],
    "answer_session_ids": [f"s-{city}"],
} for city in ("Osaka", "Lima")]


def test_a_reader_whose_calls_time_out_makes_the_run_invalid(tmp_path: Path):
    """The reader's replies come 3 s late and `[retry] request_timeout_s = 1` gives up on them (one attempt): the
    client times out, every question's reader call fails after its search, and the run is invalid, not 0%."""
    import os

    from benchmarker.agent.prompts import parse_memory_system_prompt
    from tests.fakes.openai_server import ScriptedOpenAIServer, reply, tool_call

    def policy(request: dict) -> dict:
        messages = request["messages"]
        if request.get("tools"):
            if messages[-1]["role"] == "tool":
                return reply("Recorded.")
            facts = parse_memory_system_prompt(messages[0]["content"])
            turn = messages[-1]["content"]
            return tool_call("add_entry", {"vault_id": facts.vault_id, "memory_id": facts.memory_id,
                                           "raw_entry": turn, "summary": turn[:200], "tags": {"by": "model"}})
        if "=== QUESTION ===" in messages[-1]["content"]:
            return reply("too late to matter", delay_s=3)
        return reply("yes")

    data = tmp_path / "lme.json"
    data.write_text(json.dumps(READER_DATASET), encoding="utf-8")
    with FakeMemoryServer() as memory, ScriptedOpenAIServer(policy) as llm:
        config = tmp_path / "reader.toml"
        config.write_text(f'''dataset_file = "{data}"
run_id = "reader"
[provider]
type = "openai"
[provider.openai]
base_url = "{llm.base_url}"
[models]
agent = "gpt-test-agent"
qa = "gpt-test-reader"
eval = "gpt-test-judge"
[memory]
{fake_memory(memory.url)}
[retry]
max_attempts = 1
request_timeout_s = 1
[run]
output_dir = "runs"
progress = false
''')
        done = run_cli("run", str(config), cwd=tmp_path, env=dict(os.environ, OPENAI_API_KEY="dummy-key"), timeout=300)
    assert done.returncode == INVALID_EXIT, done.stdout + done.stderr
    validity = summary_of(tmp_path, "reader")["validity"]
    reader_errors = validity["checks"]["reader_errors"]
    assert reader_errors["count"] == 2 and "timed out" in reader_errors["detail"], reader_errors
    assert validity["checks"]["search_errors"]["count"] == 0
    assert any(r.startswith("2 of 2 questions' reader calls failed after their search") for r in validity["reasons"])
