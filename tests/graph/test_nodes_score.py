"""score_answers, read_back and summarise, called as plain async functions after real ingestion on
the embedded service with the offline models."""

from __future__ import annotations

import json

from benchmarker.suites.levels.data import build_level
from benchmarker.graph.facts import read_back
from benchmarker.graph.qa import qa
from benchmarker.graph.scoring import score_answers
from benchmarker.graph.summarise import summarise
from benchmarker.suites.levels.scoring import score_level
from benchmarker.score import score
from tests.graph.support import FACTS, LEVEL_L13, SAMPLE, cases_of, ingested, lines, node_context, runtime, smallest


async def answered(ctx, case):
    """The state `score_answers` receives: ingested, then every question answered."""
    state = await ingested(ctx, case)
    return state | await qa(state, runtime(ctx))


# --- score_answers -------------------------------------------------------------------------------

async def test_score_gives_every_answer_one_result_and_never_scores_twice(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client)
    case = smallest(cases_of(config))
    state = await answered(ctx, case)
    results = (await score_answers(state, runtime(ctx)))["results"]
    assert [r.question_id for r in results] == [a.question_id for a in state["answers"]]
    for result, answer in zip(results, state["answers"]):
        assert isinstance(result.label, bool) and result.autoeval_label["label"] == result.label
        assert result.grade["judge"] == "deterministic" and result.grade.get("unjudged") is False
        assert result.hypothesis == answer.hypothesis and result.get("failed_turns") == 0
    on_disk = lines(ctx.log.results_path)
    assert [r["question_id"] for r in on_disk] == [r.question_id for r in results]

    assert await score_answers(state, runtime(ctx)) == {}
    ctx.log.close()
    assert await score_answers(state, runtime(node_context(config, None, client))) == {}  # resumed process
    assert lines(ctx.log.results_path) == on_disk


async def test_score_without_eval_phase_writes_nothing(write_config, client):
    config = write_config(SAMPLE)
    ctx = node_context(config, None, client, phases=("ingest", "qa"))
    case = smallest(cases_of(config))
    state = await answered(ctx, case)
    assert state["answers"] and await score_answers(state, runtime(ctx)) == {}
    assert lines(ctx.log.results_path) == []


async def test_level_L13_is_scored_at_the_cadence_the_memory_was_ingested_with(write_config, client):
    config = write_config(LEVEL_L13, params="context_cadence = 3")
    ctx = node_context(config, None, client)
    (case,) = cases_of(config)
    state = await answered(ctx, case)
    assert state["memory"].context_cadence == 3
    results = (await score_answers(state, runtime(ctx)))["results"]
    assert len(results) == len(case.questions) == 5 and all(r.get("rubric") for r in results)
    (level,) = lines(ctx.log.path_of("levels.jsonl"))
    assert (level["case_id"], level["level"], level["context_cadence"], level["scoring"]) == \
        (case.case_id, "L13", 3, "tool_trace")

    seed = case.metadata["seed"]
    at_3, at_6 = build_level("L13", seed, context_cadence=3), build_level("L13", seed, context_cadence=6)
    assert [s.expected for s in at_3.tool_scenarios] != [s.expected for s in at_6.tool_scenarios]
    decisions = [d.to_line() for d in ctx.log.agent_tool_calls(case.case_id)]
    answers = {r.question_id: r.hypothesis for r in results}
    bindings = {"vault_id": state["memory"].vault_id, "memory_id": state["memory"].memory_id}
    rescore = {cadence: score_level(spec, answers, decisions=decisions, bindings=bindings)
               for cadence, spec in ((3, at_3), (6, at_6))}
    assert level["score"] == rescore[3]["score"] and level["detail"] == json.loads(json.dumps(rescore[3]["detail"]))
    # The agent was told 3 and persisted its context every 3 messages: a perfect trace at 3, not at 6.
    for scenario in ("six_messages", "twelve_messages"):
        assert level["detail"][scenario]["score"] == 1.0 > rescore[6]["detail"][scenario]["score"], scenario
    assert level["score"] > rescore[6]["score"]


# --- read_back (fact extraction) -----------------------------------------------------------------

async def test_read_back_returns_what_the_agent_added_and_score_gives_a_fact_score(write_config, client):
    config = write_config(FACTS)
    ctx = node_context(config, None, client)
    case = next(c for c in cases_of(config) if c.metadata["fact_case"]["existing_memory"])
    state = await ingested(ctx, case)
    (answer,) = (await read_back(state, runtime(ctx)))["answers"]
    assert (answer.case_id, answer.question_id, answer.kind) == (case.case_id, case.case_id, "fact_extraction")
    new_entries = answer.get("new_entries")
    assert new_entries and not [e for e in new_entries if e["tags"].get("seed")]  # the seeded facts are not output
    stored = await client.list_all_entries(state["memory"].vault_id, state["memory"].memory_id)
    seeded = len(case.metadata["fact_case"]["existing_memory"])
    assert len(stored) == len(new_entries) + seeded
    assert answer.get("latest_context") and answer.hypothesis == answer.get("latest_context")
    assert answer.get("tool_calls") and lines(ctx.log.answers_path)[-1]["question_id"] == case.case_id

    again = (await read_back(state, runtime(ctx)))["answers"]
    assert [a.to_line() for a in again] == [answer.to_line()] and len(lines(ctx.log.answers_path)) == 1

    (result,) = (await score_answers(state | {"answers": [answer]}, runtime(ctx)))["results"]
    fact_score = result.get("fact_score")
    assert fact_score["judged"] and {"tp", "fp", "fn"} <= set(fact_score)
    assert result.grade["judge"] == "deterministic" and result.get("extracted_facts") is not None


# --- summarise -----------------------------------------------------------------------------------

async def test_summarise_writes_the_summary_and_reports_into_the_run_dir(write_config, client):
    config = write_config(SAMPLE, run='question_types = ["multi-session"]')
    ctx = node_context(config, None, client)
    cases = cases_of(config)
    assert len(cases) == 2
    for case in cases:
        state = await answered(ctx, case)
        await score_answers(state, runtime(ctx))
    update = await summarise({}, runtime(ctx))
    run_dir = config.run_dir
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary == json.loads(json.dumps(update["summary"].as_dict()))
    assert (summary["run_id"], summary["counts"]["questions"], summary["counts"]["judged"]) == (config.run_id, 2, 2)
    correct = sum(bool(r["label"]) for r in lines(ctx.log.results_path))
    assert summary["qa"]["overall"]["correct"] == correct
    assert update["report_path"] == str(run_dir / "report.html") and (run_dir / "report.html").stat().st_size > 0
    assert "- questions: 2 (judged 2" in (run_dir / "report.md").read_text(encoding="utf-8")


async def test_a_rerun_writes_the_level_line_a_killed_run_did_not(write_config, client):
    config = write_config(LEVEL_L13)
    ctx = node_context(config, None, client)
    (case,) = cases_of(config)
    state = await answered(ctx, case)
    for answer in state["answers"]:  # every result durable, then the process died before the level line
        ctx.log.append(await score(answer, case, ctx.judge, failed_turns=0))
    ctx.log.close()
    resumed = node_context(config, None, client)
    await score_answers(state, runtime(resumed))
    resumed.log.close()
    assert [lv["case_id"] for lv in lines(ctx.log.path_of("levels.jsonl"))] == [case.case_id]
