"""A run's model usage is journaled as it is spent (ledger.jsonl), so a run killed before it could write
its manifest's tokens still reports its whole cost: on resume, and in `report`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from benchmarker.agent.ledger import JOURNAL_FILE, TokenLedger, Usage, journal_totals
from benchmarker.config import load_config
from benchmarker.log.jsonl import JsonlWriter, read_jsonl
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import rebuild_outputs
from benchmarker.run.runner import execute_run

PRICES = {"m": {"input": 1.0, "output": 2.0}}


def test_a_ledger_seeded_from_its_journal_has_the_same_totals(tmp_path: Path) -> None:
    writer = JsonlWriter(tmp_path / JOURNAL_FILE, durable=True)
    first = TokenLedger(prices=PRICES)
    first.journal_to(writer.write)
    first.record_usage("agent", "m", Usage(1, 1_000_000, 10, cache_read_tokens=400_000))
    first.record_usage("qa", "m", Usage(1, 500, 20))
    first.record_usage("agent", "m", Usage(1, 2_000, 30))
    writer.close()
    again = TokenLedger(prices=PRICES, earlier=journal_totals(read_jsonl(tmp_path / JOURNAL_FILE)))
    assert again.snapshot() == first.snapshot()
    assert again.snapshot()["total"]["calls"] == 3 and again.snapshot()["total"]["cost_usd"] > 1.0
    assert journal_totals([]) is None


def small_run(tmp_path: Path, run_id: str):
    """Two offline sample cases (the embedded service, the offline agent)."""
    cfg_path = tmp_path / "run.toml"
    cfg_path.write_text(f'run_id = "{run_id}"\n[dataset]\nkind = "sample"\nquestions_per_type = 1\n'
                        f'sessions_per_question = 3\n[run]\noutput_dir = "{tmp_path}/runs"\nprogress = false\nlimit = 2\n',
                        encoding="utf-8")
    return load_config(cfg_path)


def test_a_killed_runs_cost_comes_back_from_the_journal(tmp_path: Path) -> None:
    config = small_run(tmp_path, "r")
    run_dir = asyncio.run(execute_run(config)).run_dir
    manifest_path = run_dir / "manifest.json"
    spent = json.loads(manifest_path.read_text())["tokens"]["total"]
    assert spent["calls"] > 0 and len(list(read_jsonl(run_dir / JOURNAL_FILE))) == spent["calls"]
    # memories.jsonl counts what the server stored (issue 36, 6), not the messages the agent was shown
    stored = {m["case_id"]: m["stored"] for m in read_jsonl(run_dir / "memories.jsonl") if m["status"] == "ingested"}
    writes: dict[str, int] = {}
    for d in read_jsonl(run_dir / "decisions.jsonl"):
        if d["tool"] == "add_entry" and not d.get("error"):
            writes[d["case_id"]] = writes.get(d["case_id"], 0) + 1
    assert stored and stored == writes

    manifest = json.loads(manifest_path.read_text())
    manifest["tokens"] = {}  # killed before the end: the manifest never got its tokens
    manifest_path.write_text(json.dumps(manifest))
    with (run_dir / JOURNAL_FILE).open("a", encoding="utf-8") as journal:  # (the offline agent spends 0 tokens)
        journal.write(json.dumps({"role": "agent", "model": "offline-memory-agent", "calls": 1,
                                  "input_tokens": 1234, "output_tokens": 56}) + "\n")
    rebuild_outputs(run_dir, SUITE_LOOKUP)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["cost"]["source"]["agent"] == "ledger"  # the memory agent's tokens live only in the ledger
    assert (summary["cost"]["tokens"]["agent"]["input"], summary["cost"]["tokens"]["agent"]["output"]) == (1234, 56)

    asyncio.run(execute_run(config))  # the same command again: nothing left to do, nothing forgotten
    again = json.loads(manifest_path.read_text())["tokens"]["total"]
    assert again["calls"] == spent["calls"] + 1 and again["input_tokens"] == spent["input_tokens"] + 1234


def test_a_run_directory_from_before_the_journal_carries_its_manifest_tokens_once(tmp_path: Path) -> None:
    config = small_run(tmp_path, "old")
    run_dir = asyncio.run(execute_run(config)).run_dir
    spent = json.loads((run_dir / "manifest.json").read_text())["tokens"]["total"]["calls"]
    (run_dir / JOURNAL_FILE).unlink()  # as an older harness left it
    asyncio.run(execute_run(config))
    asyncio.run(execute_run(config))
    assert json.loads((run_dir / "manifest.json").read_text())["tokens"]["total"]["calls"] == spent
    assert [line.get("carried") for line in read_jsonl(run_dir / JOURNAL_FILE)] == ["manifest"] * len(
        list(read_jsonl(run_dir / JOURNAL_FILE)))
