"""`estimate` prices issue 28's levers against the floor, and what it assumes the harness-mode agent
writes is what the offline agent really sends."""

from __future__ import annotations

import json
import math

from langchain_core.messages import HumanMessage, SystemMessage

from benchmarker.agent.offline_agent import next_step
from benchmarker.agent.prompts import (
    MEMORY_AGENT_PREFIX,
    compose_memory_system_prompt,
    load_prompt,
    render_unit,
    unit_instructions,
)
from embedded_memory.prompts import default_prompts
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.run.cost_floor import FLOOR_SUMMARY_TOKENS, floor_case
from benchmarker.run.estimate_model import Setting, agent_model, cache_policy, simulate_case
from benchmarker.verbs.estimate import estimate_json, estimate_run
from tests.verbs.test_estimate import DATE, HAIKU, MODEL, TWO_SESSIONS, case, config

LEAN = ('[agent]\ningest_unit = "session"\nraw_entry = "harness"\ncontext_update = "session"\n'
        'context_every_sessions = 2\n')


def test_every_row_has_its_ratio_to_the_floor_and_the_lean_rows_are_compared(tmp_path):
    haiku = "claude-3-5-haiku-latest"
    cfg, _ = config(tmp_path, provider="anthropic", agent=haiku, qa=haiku, judge=haiku, prices=HAIKU, extra=LEAN)
    data = estimate_json(estimate_run(cfg, tmp_path))
    floor = data["floor"]
    assert floor["usd"] > 0 and floor["summary_tokens"] == FLOOR_SUMMARY_TOKENS and floor["context_updates"] == 1
    labels = [r["label"] for r in data["comparison"]]
    assert any(label.endswith("raw_entry harness, context every 2 sessions") for label in labels)
    assert any(label.endswith("raw_entry harness, context every session") for label in labels)
    for row in data["comparison"]:
        assert row["floor_ratio"] == row["total_usd"] / floor["usd"]
        assert row["usd_per_question"] == row["total_usd"] / data["dataset"]["questions"]
    mine = next(r for r in data["comparison"] if r["matches_config"])
    assert (mine["raw_entry"], mine["context_update"], mine["context_every_sessions"]) == ("harness", "session", 2)


def test_the_floor_reads_every_message_once_and_writes_one_summary_and_one_context_per_session():
    usage = floor_case(TWO_SESSIONS, MODEL)
    # turn_template "{content}": each message is 40 chars = 10 tokens; contexts after 2 and 4 entries
    assert usage.input_tokens == 4 * 10
    assert usage.output_tokens == 4 * FLOOR_SUMMARY_TOKENS + math.ceil(420 / 4) + math.ceil(540 / 4)


def test_one_writing_reply_per_session_and_no_closing_call():
    setting = Setting(True, "session", MODEL.schema_chars and tuple(MODEL.schema_chars), "harness", "session", 1)
    trace: list = []
    simulate_case(TWO_SESSIONS, setting, MODEL, cache_policy("anthropic", "claude-3-5-haiku-latest", True), trace)
    assert len(trace) == 2 * 2  # per session: the bootstrap reply and the writing reply
    cadence = Setting(True, "session", tuple(MODEL.schema_chars))
    assert simulate_case(TWO_SESSIONS, cadence, MODEL, cache_policy("anthropic", "x", True)).calls == 2 * 6


def test_harness_add_entry_output_is_what_the_offline_agent_sends(tmp_path):
    """The estimate's add_entry output under raw_entry = "harness" against the offline agent's real call."""
    messages = [("user", "I moved to Denver in March 2021 and I run 3 times a week with my friend Priya. " * 3),
                ("assistant", "Denver is great for running at altitude. " * 30), ("user", "Thanks!")]
    cfg, _ = config(tmp_path, extra=LEAN)
    model = agent_model(cfg.params, cfg.memory)
    system = compose_memory_system_prompt(load_prompt(MEMORY_AGENT_PREFIX), default_prompts("chat"), vault_id="v",
                                          memory_id="m", context_cadence=6,
                                          unit_text=unit_instructions("session", None, "session"),
                                          raw_entry="harness", context_update="session")
    turn = HumanMessage(render_unit([("s1", DATE, i + 1, 3, r, c) for i, (r, c) in enumerate(messages)],
                                    context_due=True))
    from langchain_core.messages import ToolMessage

    bootstrap = next_step([SystemMessage(system), turn])
    results = [ToolMessage("ctx", tool_call_id=c["id"]) for c in bootstrap.tool_calls]
    write = next_step([SystemMessage(system), turn, bootstrap, *results])
    assert [c["name"] for c in write.tool_calls] == ["add_entry"] * 3 + ["put_context"]
    sent = sum(math.ceil(len(json.dumps(c["args"])) / 4) for c in write.tool_calls if c["name"] == "add_entry")
    assert all(set(c["args"]) == {"message", "summary"} for c in write.tool_calls[:3])
    trace: list = []
    setting = Setting(True, "session", tuple(cfg.agent.tools), "harness", "session", 1)
    simulate_case(case(messages), setting, model, cache_policy("openai", "m", True), trace)
    estimated = trace[1].output_tokens - math.ceil(min(5000, 300 + 60 * 3) / 4) - 30  # less the put_context call
    # short messages get a summary longer than themselves ("On <date> the user said: ..."): on the five real
    # LongMemEval_S questions the estimate is 3.5% above what the offline agent sends
    assert 0.9 * sent <= estimated <= 1.6 * sent


def test_summary_gives_cost_per_question_and_the_ratio_to_the_runs_floor(tmp_path):
    from benchmarker.reporting.summary import build_summary
    from benchmarker.run.cost_floor import run_floor

    haiku = "claude-3-5-haiku-latest"
    cfg, _ = config(tmp_path, provider="anthropic", agent=haiku, qa=haiku, judge=haiku, prices=HAIKU, extra=LEAN)
    floor = run_floor(cfg)
    est = estimate_run(cfg, tmp_path)
    assert floor["usd"] == estimate_json(est)["floor"]["usd"] > 0
    results = [{"question_id": "q1", "label": True, "cost_usd": {"agent": 3 * floor["usd"], "qa": 0.0, "eval": 0.0}}]
    cost = build_summary(results, run_meta={"floor": floor}, suites=SUITE_LOOKUP).as_dict()["cost"]
    assert cost["usd_per_question"] == 3 * floor["usd"] and cost["floor_ratio"] == 3.0
    # a run without a floor says nothing
    assert "floor_ratio" not in build_summary(results, run_meta={}, suites=SUITE_LOOKUP).as_dict()["cost"]
