"""The self-improve subgraph, one node per phase.

    START -> eval -> analyze -> propose -> challenge -> vote -> apply -> re_eval -> decide -> analyze ... END
                                   \\ nothing left / refused ------------------------> decide
                                                          \\ vote fails --------------> decide (revert)
                                                                    \\ does not apply -> decide (refused)

Every node returns only the keys it changes; the checkpointer saves the state after each one,
so an interrupted loop resumes at the phase where it stopped.

Test hook (tests only): `MYCELIAN_LME_SELF_IMPROVE_FAIL_AT=<node>:<iteration>` raises inside
that node on that iteration, to interrupt a run at a known phase.
"""

from __future__ import annotations

import os
from pathlib import Path

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.self_improve.allowlist import Refused
from benchmarker.graph.self_improve.analyze import analyze
from benchmarker.graph.self_improve.candidate import (
    CandidateError,
    apply_proposal,
    baseline_candidate,
    candidate_key,
    prompts_of,
    read_prompts,
)
from benchmarker.graph.self_improve.decide import decide
from benchmarker.graph.self_improve.evaluate import evaluate, load_scores, split_ids, split_score
from benchmarker.graph.self_improve.log import append_iteration, iteration_line, write_best
from benchmarker.graph.self_improve.propose import TuningLimits, propose, search_space
from benchmarker.graph.self_improve.review import challenge, vote
from benchmarker.graph.self_improve.shapes import Candidate, Scores, Stats, Tunables
from benchmarker.graph.self_improve.state import LoopState
from benchmarker.graph.state import Setup

FAIL_AT_ENV = "MYCELIAN_LME_SELF_IMPROVE_FAIL_AT"


def loop_root(ctx: RunContext) -> Path:
    return ctx.log.run_dir / "self_improve"


def _scored(candidate: Candidate, rows: Scores, split: dict[str, list[str]]) -> Candidate:
    scored = candidate.copy()
    scored["train"], scored["holdout"] = split_score(rows, split["train"]), split_score(rows, split["holdout"])
    return scored


async def eval_phase(state: LoopState, ctx: RunContext, setup: Setup) -> LoopState:
    """EVAL: the run's own configuration (candidate 0) and the split."""
    from benchmarker.agent.prompts import prompts_dir

    root = loop_root(ctx)
    tunables: Tunables = {"top_k": ctx.search.top_k, "alpha": ctx.search.alpha}
    if ctx.mode == "agent":
        tunables["context_cadence"] = ctx.cadence
    base = baseline_candidate(root, tunables, ctx.prompts_dir or prompts_dir())
    rows = await evaluate(ctx, root, base, base, setup)
    si = ctx.self_improve
    split = split_ids(rows, si.holdout_fraction, si.seed)
    base = _scored(base, rows, split)
    return {"iteration": 1, "iterations": si.iterations, "split": split, "start": base, "best": base,
            "tried": [base["key"]], "next_index": 1}


async def analyze_phase(state: LoopState, ctx: RunContext) -> LoopState:
    rows = load_scores(loop_root(ctx), state["best"])
    assert rows is not None, "best was evaluated: EVAL or RE_EVAL wrote its scores"
    return {"analysis": analyze(rows, state["split"]["train"]), "proposal": None, "challenge": None,
            "vote": None, "candidate": None, "outcome": None}


async def propose_phase(state: LoopState, ctx: RunContext) -> LoopState:
    best = state["best"]
    prompts = read_prompts(prompts_of(loop_root(ctx), best)) if ctx.mode == "agent" else {}
    proposal = await propose(ctx.judge.model, best=best, prompts=prompts,
                             analysis=state["analysis"], history=state.get("history") or [],
                             tried=state.get("tried") or [],
                             space=search_space(ctx.self_improve, ctx.memory_table, ctx.mode),
                             limits=TuningLimits.of(ctx.memory_table, ctx.self_improve, ctx.params))
    if proposal is None:
        return {"outcome": {"decision": "stopped", "stage": "propose",
                            "reason": "every neighbouring configuration was tried; nothing left to propose"}}
    if proposal.get("stop"):  # what is left to fix is outside every tunable (propose.py)
        return {"outcome": {"decision": "stopped", "stage": "propose", "reason": proposal["stop"]}}
    if proposal.get("refused"):
        return {"proposal": proposal,
                "outcome": {"decision": "refused", "stage": "propose", "reason": proposal["refused"]}}
    out: LoopState = {"proposal": proposal}
    if proposal["kind"] == "config":  # mark it tried now, so a vote that stops it is not repeated
        out["tried"] = [candidate_key(best["tunables"] | proposal["delta"], best["prompts_hash"])]
    return out


async def challenge_phase(state: LoopState, ctx: RunContext) -> LoopState:
    proposal = state["proposal"]
    assert proposal is not None, "CHALLENGE runs only for a proposal PROPOSE made"
    result = await challenge(ctx.judge.model, proposal, state["analysis"], state["best"],
                             holdout_n=len(state["split"]["holdout"]), mode=ctx.mode,
                             limits=TuningLimits.of(ctx.memory_table, ctx.self_improve, ctx.params))
    return {"challenge": result}


async def vote_phase(state: LoopState, ctx: RunContext) -> LoopState:
    proposal, critique = state["proposal"], state["challenge"]
    assert proposal is not None and critique is not None, "VOTE runs only after CHALLENGE"
    result = await vote(ctx.judge.model, proposal, state["analysis"], critique)
    out: LoopState = {"vote": result}
    if not result["passed"]:
        against = "; ".join(f"{v['reviewer']}: {v['reason']}" for v in result["votes"] if not v["approve"])
        out["outcome"] = {"decision": "reverted", "stage": "vote",
                          "reason": f"vote {result['approvals']}/{len(result['votes'])} ({against})"}
    return out


async def apply_phase(state: LoopState, ctx: RunContext) -> LoopState:
    index = state["next_index"]
    proposal = state["proposal"]
    assert proposal is not None, "APPLY runs only for a proposal the vote passed"
    try:
        candidate = apply_proposal(loop_root(ctx), state["best"], proposal, index)
    except (CandidateError, Refused) as err:
        return {"next_index": index + 1, "outcome": {"decision": "refused", "stage": "apply", "reason": str(err)}}
    return {"candidate": candidate, "next_index": index + 1, "tried": [candidate["key"]]}


async def re_eval_phase(state: LoopState, ctx: RunContext, setup: Setup) -> LoopState:
    root = loop_root(ctx)
    candidate = state["candidate"]
    assert candidate is not None, "RE_EVAL runs only after APPLY made a candidate"
    rows = await evaluate(ctx, root, candidate, state["start"], setup)
    return {"candidate": _scored(candidate, rows, state["split"])}


async def decide_phase(state: LoopState, ctx: RunContext) -> LoopState:
    root = loop_root(ctx)
    best, candidate, outcome = state["best"], state.get("candidate"), state.get("outcome")
    stats: Stats | None = None
    if outcome is None:
        si = ctx.self_improve
        base_rows, candidate_rows = load_scores(root, best), (load_scores(root, candidate) if candidate else None)
        assert base_rows is not None and candidate_rows is not None, "no early outcome: both were evaluated"
        stats = decide(base_rows, candidate_rows, state["split"]["holdout"],
                       min_gain=si.min_gain, seed=si.seed, p_value=si.p_value, category_drop=si.category_drop)
        outcome = {"decision": "accepted" if stats["accept"] else "reverted", "stage": "re_eval",
                   "reason": stats["reason"]}
    new_best = candidate if outcome["decision"] == "accepted" and candidate is not None else best
    line = iteration_line(state, outcome, stats, new_best)
    append_iteration(ctx.log.run_dir, line)
    write_best(root, new_best, state["start"])
    iteration = state["iteration"]
    finished = outcome["decision"] == "stopped" or iteration >= state["iterations"]
    return {"best": new_best, "history": [line], "iteration": iteration + 1, "finished": finished}


# --- wiring -----------------------------------------------------------------------------------

def after_propose(state: LoopState) -> str:
    return "decide" if state.get("outcome") else "challenge"


def after_vote(state: LoopState) -> str:
    vote = state["vote"]
    return "apply" if vote and vote["passed"] else "decide"


def after_apply(state: LoopState) -> str:
    return "decide" if state.get("outcome") else "re_eval"


def after_decide(state: LoopState) -> str:
    return END if state.get("finished") else "analyze"


PHASES = {"eval": eval_phase, "analyze": analyze_phase, "propose": propose_phase, "challenge": challenge_phase,
          "vote": vote_phase, "apply": apply_phase, "re_eval": re_eval_phase, "decide": decide_phase}


EVALUATING = ("eval", "re_eval")  # the phases that run the case graph need the run's setup


def _node(name: str, phase, setup: Setup | None):
    async def node(state: LoopState, runtime: Runtime[RunContext]) -> LoopState:
        ctx = runtime.context
        _fail_if_asked(name, state.get("iteration", 0))
        ctx.progress.set_phase(f"improve:{name}")
        if name in EVALUATING:
            return await phase(state, ctx, setup)
        return await phase(state, ctx)

    node.__name__ = name
    return node


def _fail_if_asked(name: str, iteration: int) -> None:
    wanted = os.environ.get(FAIL_AT_ENV, "")
    if wanted and wanted == f"{name}:{iteration}":
        raise RuntimeError(f"{FAIL_AT_ENV}={wanted}: interrupting the self-improve loop (test hook)")


def build_loop_graph(checkpointer=None, setup: Setup | None = None):
    """The loop; `setup` (the run's vault and default prompts) is what candidates' cases run with."""
    graph = StateGraph(LoopState, context_schema=RunContext)
    for name, phase in PHASES.items():
        graph.add_node(name, _node(name, phase, setup))
    graph.add_edge(START, "eval")
    graph.add_edge("eval", "analyze")
    graph.add_edge("analyze", "propose")
    graph.add_conditional_edges("propose", after_propose, ["challenge", "decide"])
    graph.add_edge("challenge", "vote")
    graph.add_conditional_edges("vote", after_vote, ["apply", "decide"])
    graph.add_conditional_edges("apply", after_apply, ["re_eval", "decide"])
    graph.add_edge("re_eval", "decide")
    graph.add_conditional_edges("decide", after_decide, ["analyze", END])
    return graph.compile(checkpointer=checkpointer, name="self_improve")
