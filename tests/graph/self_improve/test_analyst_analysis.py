"""The analyst's findings as the self-improve loop's analysis (`[multi_agent] analyst = true`).

On known logs: EVALUATE adds the analyst's cause to each row from the write trace of the ingestion the
candidate searched (decisions.jsonl add_entry calls into memories.jsonl's finished memory); ANALYZE reports
the analyst's causes and keeps the retrieval ones; PROPOSE says honestly what can act on not_written, and
leaves judged_wrong out of what it tries to fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage

from benchmarker.config_schema import SelfImproveConfig
from benchmarker.graph.self_improve.analyze import analysis_text, analyze
from benchmarker.graph.self_improve.evaluate import (
    add_analyst_causes,
    evaluate,
    ingestion_dir,
    load_scores,
    question_row,
    written_turns_in,
)
from benchmarker.graph.self_improve.graph import propose_phase
from benchmarker.graph.self_improve.propose import TuningLimits, offline_proposal, propose, search_space
from benchmarker.graph.self_improve.review import offline_challenge, targets
from benchmarker.log.store import RunLog

INGEST_PROMPTS = {"memory_agent_prefix.txt": "p", "agent_turn.txt": "t"}


def _write_jsonl(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _result(qid: str, case: str, *, label: bool, evidence: list[tuple[str, int]], hits: list[tuple[str, int]],
            answer: str = "Paris", hypothesis: str = "London") -> dict:
    return {"question_id": qid, "case_id": case, "question_type": "single", "question": f"where? ({qid})",
            "answer": answer, "hypothesis": hypothesis, "label": label, "top_k": 5,
            "answer_session_ids": sorted({s for s, _ in evidence}), "evidence_turns": [list(e) for e in evidence],
            "retrieved": [{"session_id": s, "turn_index": t, "rank": i + 1} for i, (s, t) in enumerate(hits)]}


def _add_entry(case: str, memory: str, session: str, turn: int, caller: str = "agent") -> dict:
    return {"case_id": case, "caller": caller, "tool": "add_entry",
            "args": {"memory_id": memory, "tags": {"session_id": session, "turn_index": turn}}}


# Four failures and one success, one case each:
#   q1: evidence s1#1 never written, nothing of it retrieved -> retrieval says not_retrieved, the analyst not_written
#   q2: evidence s2#0 written (twice: into an abandoned attempt and the finished one), not retrieved -> not_retrieved
#   q3: evidence written and retrieved, the reply holds the gold answer -> judged_wrong (a grader disagreement)
#   q4: evidence written into an abandoned attempt's memory only -> not_written
#   q5: right
RESULTS = [
    _result("q1", "c1", label=False, evidence=[("s1", 1)], hits=[("s9", 0)]),
    _result("q2", "c2", label=False, evidence=[("s2", 0)], hits=[("s9", 0)]),
    _result("q3", "c3", label=False, evidence=[("s3", 2)], hits=[("s3", 2)], hypothesis="It was Paris, France."),
    _result("q4", "c4", label=False, evidence=[("s4", 0)], hits=[("s8", 1)]),
    _result("q5", "c5", label=True, evidence=[("s5", 0)], hits=[("s5", 0)], hypothesis="Paris"),
]
MEMORIES = [{"case_id": c, "memory_id": f"m-{c}", "vault_id": "v", "title": c, "attempt": 1, "status": "ingested"}
            for c in ("c1", "c2", "c3", "c4", "c5")]
MEMORIES += [{"case_id": "c4", "memory_id": "m-c4-old", "vault_id": "v", "title": "c4", "attempt": 0,
              "status": "ingested"}]
DECISIONS = [_add_entry("c1", "m-c1", "s1", 0), _add_entry("c2", "m-c2-old", "s2", 0),
             _add_entry("c2", "m-c2", "s2", 0), _add_entry("c3", "m-c3", "s3", 2),
             _add_entry("c4", "m-c4-old", "s4", 0), _add_entry("c5", "m-c5", "s5", 0),
             {"case_id": "c1", "caller": "agent", "tool": "put_context", "args": {"memory_id": "m-c1"}}]


def _run_dir(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    _write_jsonl(run_dir / "results.jsonl", RESULTS)
    _write_jsonl(run_dir / "memories.jsonl", MEMORIES)
    _write_jsonl(run_dir / "decisions.jsonl", DECISIONS)
    return run_dir


def _candidate(index: int, cadence: int, key: str) -> dict:
    return {"index": index, "key": key, "tunables": {"top_k": 5, "alpha": None, "context_cadence": cadence},
            "ingest_prompts": INGEST_PROMPTS, "prompts_hash": "p"}


def _ctx(run_dir: Path, *, analyst: bool, mode: str = "agent") -> SimpleNamespace:
    return SimpleNamespace(mode=mode, phases=("ingest", "qa", "eval"), log=RunLog(run_dir),
                           multi_agent=SimpleNamespace(analyst=analyst))


# --- evaluate: the analyst's cause per row, from the run's logs --------------------------------------

async def test_evaluate_adds_the_analysts_cause_from_the_runs_write_trace(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    base = _candidate(0, 6, "base")
    rows = await evaluate(_ctx(run_dir, analyst=True), run_dir / "self_improve", base, base, setup={})
    assert {q: r["cause"] for q, r in rows.items()} == {
        "q1": "not_retrieved", "q2": "not_retrieved", "q3": "judged_wrong", "q4": "not_retrieved", "q5": "ok"}
    assert {q: r["analyst_cause"] for q, r in rows.items()} == {
        "q1": "not_written", "q2": "not_retrieved", "q3": "judged_wrong", "q4": "not_written", "q5": "ok"}
    assert load_scores(run_dir / "self_improve", base) == rows  # cached with the analyst's causes


async def test_without_the_analyst_rows_keep_the_retrieval_cause_only(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    base = _candidate(0, 6, "base")
    rows = await evaluate(_ctx(run_dir, analyst=False), run_dir / "self_improve", base, base, setup={})
    assert not any("analyst_cause" in r for r in rows.values())
    assert analyze(rows, sorted(rows))["analysis"] == "retrieval"


def test_the_write_trace_is_that_of_the_ingestion_the_candidate_searched(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    root = run_dir / "self_improve"
    ctx = _ctx(run_dir, analyst=True)
    base = _candidate(0, 6, "base")
    assert ingestion_dir(ctx, root, _candidate(1, 6, "k1") | {"tunables": {"top_k": 10, "context_cadence": 6}},
                         base) == run_dir  # top_k only: the run's own memories, the run's own not_written
    fresh = ingestion_dir(ctx, root, _candidate(2, 3, "k2"), base)  # a new cadence re-ingests
    assert fresh.parent == root / "ingest" and fresh != run_dir
    assert ingestion_dir(_ctx(run_dir, analyst=True, mode="retrieval"), root, _candidate(2, 3, "k2"), base) == run_dir
    # that fresh ingestion wrote q1's evidence: against its own trace, q1 is no longer not_written
    _write_jsonl(fresh / "memories.jsonl", [{"case_id": "c1", "memory_id": "m-new", "vault_id": "v", "title": "c1",
                                             "attempt": 101, "status": "ingested"}])
    _write_jsonl(fresh / "decisions.jsonl", [_add_entry("c1", "m-new", "s1", 1)])
    rows = {r["question_id"]: question_row(r, "agent") for r in RESULTS[:1]}
    add_analyst_causes(rows, RESULTS[:1], written_turns_in(fresh), "agent")
    assert rows["q1"]["analyst_cause"] == "not_retrieved"


def test_no_add_entry_in_the_trace_means_no_analyst_cause(tmp_path: Path) -> None:
    """A memory server mapped to other write tools records no add_entry: the trace cannot say what was written."""
    _write_jsonl(tmp_path / "decisions.jsonl", [{"case_id": "c1", "caller": "retrieval", "tool": "remember",
                                                 "args": {"text": "x"}}])
    assert written_turns_in(tmp_path) is None


def test_in_retrieval_mode_only_not_written_replaces_the_retrieval_cause(tmp_path: Path) -> None:
    partial = _result("q6", "c6", label=False, evidence=[("s6", 0), ("s7", 0)], hits=[("s6", 0)])
    partial["answer_session_ids"] = ["s6", "s7"]
    results = [dict(RESULTS[0], label=None), dict(partial, label=None)]
    rows = {r["question_id"]: question_row(r, "retrieval") for r in results}
    written = {"c1": {("s1", 0)}, "c6": {("s6", 0), ("s7", 0)}}
    add_analyst_causes(rows, results, written, "retrieval")
    assert rows["q1"]["analyst_cause"] == "not_written"
    # the analyst would say "misread" (an evidence turn was retrieved), but nothing is read in retrieval mode
    assert rows["q6"]["cause"] == rows["q6"]["analyst_cause"] == "partially_retrieved"


# --- analyze ------------------------------------------------------------------------------------------

def _rows(pairs: list[tuple[str, str]], ok: int = 0) -> dict[str, dict]:
    rows = {f"f{i:02d}": {"score": 0.0, "type": "single", "category": "", "level": "", "cause": retrieval,
                          "analyst_cause": analyst} for i, (retrieval, analyst) in enumerate(pairs)}
    rows |= {f"ok{i:02d}": {"score": 1.0, "type": "single", "category": "", "level": "", "cause": "ok",
                            "analyst_cause": "ok"} for i in range(ok)}
    return rows


def test_analyze_reports_not_written_and_keeps_the_retrieval_cause() -> None:
    rows = _rows([("not_retrieved", "not_written")] * 3 + [("not_retrieved", "not_retrieved")]
                 + [("judged_wrong", "judged_wrong")] + [("retrieved_but_misread", "misread")], ok=4)
    out = analyze(rows, sorted(rows))
    assert out["analysis"] == "analyst"
    assert out["causes"] == {"not_written": 3, "not_retrieved": 1, "judged_wrong": 1, "misread": 1}
    assert out["retrieval_causes"] == {"not_retrieved": 4, "judged_wrong": 1, "retrieved_but_misread": 1}
    assert out["cause_pairs"]["not_written"] == {"not_retrieved": 3}
    assert out["dominant_cause"] == out["target_cause"] == "not_written"
    counts = tuple(out[k] for k in ("write_failures", "retrieval_failures", "reader_failures", "grader_failures"))
    assert counts == (3, 1, 1, 1)
    assert out["by_type"]["single"]["causes"]["not_written"] == 3
    text = analysis_text(out)
    assert "the analyst" in text and "not_written 3" in text and "by retrieval metrics alone: not_retrieved 4" in text


def test_judged_wrong_is_never_the_target_even_when_most_common() -> None:
    rows = _rows([("judged_wrong", "judged_wrong")] * 4 + [("not_retrieved", "not_written")] * 2)
    out = analyze(rows, sorted(rows))
    assert out["dominant_cause"] == "judged_wrong" and out["target_cause"] == "not_written"


# --- propose and review -------------------------------------------------------------------------------

CONFIG = SimpleNamespace(memory=SimpleNamespace(backend="embedded", embedder="static", alpha=0.6),
                         params=SimpleNamespace(qa_max_context_chars=16000), self_improve=SelfImproveConfig())
LIMITS = TuningLimits.of(CONFIG.memory, CONFIG.self_improve, CONFIG.params)
BEST = {"index": 0, "tunables": {"top_k": 5, "alpha": None, "context_cadence": 8}, "prompts_hash": "p"}
NOT_WRITTEN = analyze(*(lambda r: (r, sorted(r)))(_rows([("not_retrieved", "not_written")] * 5
                                                       + [("partially_retrieved", "partially_retrieved")] * 2
                                                       + [("judged_wrong", "judged_wrong")] * 6)))


async def test_with_a_cadence_knob_not_written_prefers_context_more_often_and_says_it_is_only_in_part() -> None:
    space = search_space(CONFIG.self_improve, CONFIG.memory, "agent")
    out = await propose(None, best=BEST, prompts={}, analysis=NOT_WRITTEN, history=[], tried=[], space=space,
                        limits=LIMITS)
    assert out["delta"] == {"context_cadence": 6} and "refused" not in out  # one rung lower: context more often
    assert "not_written (5 of 13:" in out["note"] and "which no retrieval knob can fix" in out["note"]
    assert "only in part" in out["note"] and out["rationale"].startswith(f"[{out['note']}]")
    # every lower rung before any retrieval knob, even against the momentum of an accepted top_k move
    assert offline_proposal(BEST, [], NOT_WRITTEN, space, LIMITS, momentum="top_k")["delta"] == {"context_cadence": 6}
    from benchmarker.graph.self_improve.candidate import candidate_key

    lower = [candidate_key(BEST["tunables"] | {"context_cadence": c}, "p") for c in (2, 4, 6)]
    out = await propose(None, best=BEST, prompts={}, analysis=NOT_WRITTEN, history=[], tried=lower, space=space,
                        limits=LIMITS)
    assert "context_cadence" not in out["delta"]
    assert "no untried lower context_cadence rung is left, so this change is not on the write path" in out["note"]
    assert "remaining 2 retrieval and 0 reader failures" in out["note"]
    # the reviewers count the cadence step against not_written; a top_k step is told it does not act on writing
    down = {"kind": "config", "delta": {"context_cadence": 6}}
    assert "not_written" in targets(down, BEST)
    assert offline_challenge(down, NOT_WRITTEN, BEST, holdout_n=10, mode="agent", limits=LIMITS)["addressed"] == 7
    up = {"kind": "config", "delta": {"top_k": 10}}
    ch = offline_challenge(up, NOT_WRITTEN, BEST, holdout_n=10, mode="agent", limits=LIMITS)
    assert ch["addressed"] == 2 and "does not act on writing" in ch["critique"]  # judged_wrong is never counted


async def test_without_a_write_knob_the_proposal_says_not_written_is_outside_the_knobs() -> None:
    space = search_space(CONFIG.self_improve, CONFIG.memory, "retrieval")
    assert "context_cadence" not in space
    best = BEST | {"tunables": {"top_k": 5, "alpha": None}}
    out = await propose(None, best=best, prompts={}, analysis=NOT_WRITTEN, history=[], tried=[], space=space,
                        limits=LIMITS)
    assert out["delta"] == {"top_k": 10}  # aimed at the 2 remaining retrieval failures: deeper
    assert "outside the tunable knobs (none here changes what is written)" in out["note"]
    assert "remaining 2 retrieval and 0 reader failures" in out["note"]


async def test_nothing_left_but_not_written_and_grader_disagreements_stops_the_loop(tmp_path: Path) -> None:
    rows = _rows([("not_retrieved", "not_written")] * 3 + [("judged_wrong", "judged_wrong")] * 2)
    analysis = analyze(rows, sorted(rows))
    best = BEST | {"tunables": {"top_k": 5, "alpha": None}}
    space = search_space(CONFIG.self_improve, CONFIG.memory, "retrieval")
    out = await propose(None, best=best, prompts={}, analysis=analysis, history=[], tried=[], space=space,
                        limits=LIMITS)
    assert "outside the tunable knobs" in out["stop"] and "nothing is proposed" in out["stop"]
    ctx = SimpleNamespace(mode="retrieval", judge=SimpleNamespace(model=None), self_improve=CONFIG.self_improve,
                          memory_table=CONFIG.memory, params=CONFIG.params, log=SimpleNamespace(run_dir=tmp_path))
    result = await propose_phase({"best": best, "analysis": analysis, "history": [], "tried": []}, ctx)
    assert result["outcome"]["decision"] == "stopped" and "not_written" in result["outcome"]["reason"]


class ScriptedModel:
    def __init__(self, reply: str):
        self.reply, self.prompts = reply, []

    async def ainvoke(self, messages):
        self.prompts.append(messages[-1].content)
        return AIMessage(self.reply)


async def test_a_model_is_told_what_acts_on_writing_and_its_diff_is_noted() -> None:
    diff = ('{"kind": "diff", "diff": "--- a/prompts/memory_agent_prefix.txt\\n+++ b/prompts/memory_agent_prefix.txt\\n'
            '@@ -1,1 +1,1 @@\\n-p\\n+Write every message.\\n", "rationale": "write everything"}')
    model = ScriptedModel(diff)
    prompts = {"qa_reader.txt": "q"} | INGEST_PROMPTS
    out = await propose(model, best=BEST, prompts=prompts, analysis=NOT_WRITTEN, history=[], tried=[],
                        space=search_space(CONFIG.self_improve, CONFIG.memory, "agent"), limits=LIMITS)
    assert "note: the most common training failure (grader disagreements aside) is not_written" in model.prompts[0]
    assert "a diff to the memory agent's prompts" in model.prompts[0]
    assert out["files"] == ["memory_agent_prefix.txt"] and "acts on what is written" in out["note"]
    assert "not_written" in targets(out, BEST)


# --- one real run: the analyst's causes from the logs a run actually writes ------------------------------

RUN = """
run_id = "si-analyst"
[dataset]
kind = "sample"
questions_per_type = 3
sessions_per_question = 3
[params]
top_k = 1
[memory]
embedder = "static"
[multi_agent]
analyst = true
[self_improve]
iterations = 1
holdout_fraction = 0.5
seed = 7
[run]
mode = "retrieval"
output_dir = "{out}"
progress = false
concurrency = 4
"""


@pytest.mark.slow
async def test_a_run_with_the_analyst_analyses_by_the_analyst_and_sees_a_dropped_write(tmp_path: Path) -> None:
    import asyncio

    from benchmarker.cli import main

    config = tmp_path / "run.toml"
    config.write_text(RUN.format(out=tmp_path / "runs"), encoding="utf-8")
    assert await asyncio.to_thread(main, ["run", str(config)]) == 0
    run_dir = tmp_path / "runs" / "si-analyst"
    line = json.loads((run_dir / "self_improve.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert line["analysis"]["analysis"] == "analyst" and line["analysis"]["retrieval_causes"]
    rows = json.loads(next((run_dir / "self_improve" / "evals").glob("*/scores.json")).read_text())["questions"]
    # retrieval mode writes every message (caller "retrieval"): nothing is not_written, the causes agree
    assert rows and all(r["analyst_cause"] == r["cause"] for r in rows.values())

    # drop the writes of one failing question's evidence from the run's own trace: the analyst now sees it
    results = {r["question_id"]: r for r in RunLog(run_dir).load_results()}
    qid = next(q for q, r in sorted(rows.items()) if r["score"] == 0.0 and results[q]["evidence_turns"])
    case, evidence = results[qid]["case_id"], {(str(s), int(t)) for s, t in results[qid]["evidence_turns"]}
    kept = [d for d in map(json.loads, (run_dir / "decisions.jsonl").read_text(encoding="utf-8").splitlines())
            if not (d.get("tool") == "add_entry" and d["case_id"] == case
                    and (str(d["args"]["tags"]["session_id"]), int(d["args"]["tags"]["turn_index"])) in evidence)]
    _write_jsonl(run_dir / "decisions.jsonl", kept)
    fresh = {"index": 0, "key": "dropped-write", "tunables": {"top_k": 1, "alpha": None}, "prompts_hash": "p"}
    ctx = SimpleNamespace(mode="retrieval", phases=("ingest", "qa", "eval"), log=RunLog(run_dir),
                          multi_agent=SimpleNamespace(analyst=True))
    rows = await evaluate(ctx, tmp_path / "loop", fresh, fresh, setup={})
    assert rows[qid]["analyst_cause"] == "not_written"
    assert rows[qid]["cause"] in ("not_retrieved", "partially_retrieved")  # what retrieval metrics alone say
    out = analyze(rows, [qid])
    assert out["causes"] == {"not_written": 1} and out["retrieval_causes"] == {rows[qid]["cause"]: 1}
