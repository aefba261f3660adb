"""An outside agent that reports its reader's context (protocol v2's optional `context_tokens`) above
`[run] context_budget_tokens` is recorded and flagged on its lines and in summary.json's `budget` block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.agent.adapters.example_http_agent import ExampleHttpAgent
from tests.agent.adapters.test_agent_runs import SAMPLE, http_config, lines

pytestmark = pytest.mark.slow


def test_an_http_agent_reporting_a_context_above_the_budget_is_flagged(tmp_path: Path) -> None:
    with ExampleHttpAgent() as agent:
        agent.answer_body = json.dumps({"answer": "A beagle.", "context_tokens": 5000}).encode()
        config = http_config(tmp_path, agent.url, SAMPLE)
        config.write_text(config.read_text().replace("[run]\n", "[run]\ncontext_budget_tokens = 4000\n"),
                          encoding="utf-8")
        assert main(["run", str(config)]) == 0
    run_dir = tmp_path / "runs" / "agent"
    results = lines(run_dir / "results.jsonl")
    assert results and all(r["context_tokens"] == 5000 and r["context_tokens_source"] == "agent"
                           and r["context_budget_tokens"] == 4000 and r["over_budget"] is True for r in results)
    budget = json.loads((run_dir / "summary.json").read_text())["budget"]
    assert budget["over_budget"]["questions"] == len(results) and budget["source"] == {"agent": len(results)}
    assert budget["context_budget_tokens"] == 4000 and budget["context_tokens"]["max"] == 5000
    assert f"outside agent over the budget on {len(results)} questions" in (run_dir / "report.md").read_text()
