"""`[agent] ingest_unit`: message, exchange and session turns write the same entries, each tagged with
its own session and turn, so retrieval metrics keep working at turn level; fewer agent calls per unit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.graph.ingest import ingest_units
from benchmarker.log.jsonl import read_jsonl
from benchmarker.run.runner import execute_run
from tests.once import built_once

pytestmark = pytest.mark.xdist_group("ingest_units")  # one worker builds the module fixture once

CONFIG = """
vault_title = "units"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[agent]
ingest_unit = "{unit}"
[memory]
embedder = "none"
alpha = 0.0
[run]
question_types = ["single-session-user", "multi-session", "temporal-reasoning"]
progress = false
output_dir = "{out}"
"""


def test_units_group_a_session_into_agent_turns():
    roles = ["assistant", "user", "assistant", "user", "user", "assistant", "assistant"]
    assert ingest_units(roles, "message") == [[i] for i in range(7)]
    assert ingest_units(roles, "exchange") == [[0], [1, 2], [3], [4, 5, 6]]
    assert ingest_units(roles, "session") == [list(range(7))]
    assert ingest_units([], "session") == []


def _run(tmp_path: Path, unit: str):
    path = tmp_path / f"{unit}.toml"
    path.write_text(CONFIG.format(unit=unit, out=tmp_path / "runs"), encoding="utf-8")
    config = load_config(path)
    outcome = asyncio.run(execute_run(config))
    decisions = list(read_jsonl(outcome.run_dir / "decisions.jsonl"))
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    return outcome, decisions, manifest


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    def build():
        tmp = tmp_path_factory.mktemp("units")
        return {unit: _run(tmp, unit) for unit in ("message", "exchange", "session")}

    return built_once(__name__, build)


def _entries(decisions):
    """(case, session, turn) -> raw_entry of every agent add_entry, from the tags the entry carries."""
    out = {}
    for d in decisions:
        if d.get("caller") == "agent" and d["tool"] == "add_entry":
            tags = d["args"]["tags"]
            key = (tags["case_id"], tags["session_id"], int(tags["turn_index"]))
            assert key not in out, f"two entries for {key}"
            assert tags["role"] in ("user", "assistant") and int(d["turn"]) == key[2]
            out[key] = d["args"]["raw_entry"]
    return out


def test_every_unit_writes_one_entry_per_message_with_its_own_turn_tags(runs):
    message_entries = _entries(runs["message"][1])
    assert message_entries
    for unit in ("exchange", "session"):
        entries = _entries(runs[unit][1])
        assert {(s, t) for _, s, t in entries} == {(s, t) for _, s, t in message_entries}, unit
        by_session_turn = {(s, t): raw for (_, s, t), raw in entries.items()}
        assert by_session_turn == {(s, t): raw for (_, s, t), raw in message_entries.items()}, unit
        for (_, _, turn), raw in entries.items():
            assert raw.startswith("[")  # "[<session date>] <role>: ..." as the prompt asks


# The retrieval figures of CONFIG (keyword-only search over the same entries, whatever the unit),
# derived once on main c5d6748 by running this test with UNIT_METRICS = {} and copying what it printed.
# Before, the test checked only `is not None`: a unit that lost its turn tags would have passed.
UNIT_METRICS: dict = {'turn.recall_any@10': 1.0, 'turn.recall_all@10': 0.6667, 'session.recall_any@10': 1.0,
                      'session.recall_any@1': 1.0, 'turn.ndcg_any@10': 0.8333}
PINNED_METRICS = ("turn.recall_any@10", "turn.recall_all@10", "session.recall_any@10", "session.recall_any@1",
                  "turn.ndcg_any@10")


def test_turn_level_retrieval_metrics_work_for_every_unit(runs):
    got = {}
    for unit, (outcome, _, _) in runs.items():
        metrics = outcome.summary.retrieval.metrics
        got[unit] = {m: None if metrics[m] is None else round(metrics[m], 4) for m in PINNED_METRICS}
        questions = outcome.summary.counts.questions
        assert questions == runs["message"][0].summary.counts.questions == 6  # 3 types + 3 abstention
    # the same entries with the same tags: every unit retrieves the same turns, so the same figures
    assert got["exchange"] == got["message"] and got["session"] == got["message"], got
    assert got["message"] == UNIT_METRICS, got


def test_bigger_units_need_fewer_agent_calls_and_no_failed_turns(runs):
    calls = {unit: manifest["tokens"]["roles"]["agent"]["calls"] for unit, (_, _, manifest) in runs.items()}
    assert calls["message"] > calls["exchange"] > calls["session"], calls
    for unit, (_, decisions, _) in runs.items():
        assert not [d for d in decisions if d["tool"] == "_turn_failed"], unit
        memories = list(read_jsonl(runs[unit][0].run_dir / "memories.jsonl"))
        ingested = [m for m in memories if m["status"] == "ingested"]
        assert ingested and all(m["agent_usage"]["calls"] > 0 for m in ingested), unit
