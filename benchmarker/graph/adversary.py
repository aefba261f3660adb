"""Node `adversary`: rounds of harder questions, asked against the memories the run already built.

After the cases are scored, each round looks at the previous round's results per case (round 0:
the dataset's own questions), picks the weakest categories and asks the adversary
(datasets/long_horizon/adversary.py) for verified questions there. They go through the same case
graph as the originals: the case's finished memory is reused (no re-ingestion), answers and
results are written like any other with `"round": N`, and each case's proposal is logged to
`adversary.jsonl` (proposed, verified, dropped with reasons). Offline the adversary is the
generator's own fact records; the question ids are deterministic, so a resumed run asks nothing
twice.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState
from benchmarker.log.jsonl import JsonlWriter, read_jsonl

LOG_FILE = "adversary.jsonl"


async def adversary(state: RunState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    from benchmarker.datasets.long_horizon.adversary import propose, weakest_categories
    from benchmarker.graph.build import CASE_GRAPH

    ctx = runtime.context
    settings = ctx.config.multi_agent
    ctx.progress.set_phase("adversary")
    log_path = ctx.log.run_dir / LOG_FILE
    logged = {(line["case_id"], line["round"]) for line in read_jsonl(log_path)}
    writer = JsonlWriter(log_path, durable=True)
    try:
        for case in ctx.case_source() if ctx.case_source else []:
            if case.kind != "long_horizon" or case.case_id not in ctx.log.done.memories:
                continue
            previous = list(case.questions)
            asked = {q.question for q in previous}
            for round_ in range(1, settings.rounds + 1):
                labels: dict[str, list[bool]] = {}
                for q in previous:
                    result = ctx.log.done.judged.get(q.question_id)
                    if result is not None and result.get("label") is not None:
                        labels.setdefault(q.category, []).append(bool(result.get("label")))
                weak = weakest_categories(labels, k=settings.weak_categories)
                if settings.proposer == "model" and weak:
                    proposal = await _model_proposal(ctx, case, previous, asked, weak, round_)
                else:
                    proposal = propose(case, asked=asked, weak=weak, n=settings.adversary_questions, round_=round_)
                if (case.case_id, round_) not in logged:
                    writer.write({"schema_version": 1, "case_id": case.case_id, "round": round_, "weak_categories": weak,
                                  "proposed": proposal.proposed, "verified": proposal.verified,
                                  "dropped": [{"question": q, "reason": r} for q, r in proposal.dropped]})
                if not proposal.questions:
                    break
                harder = dataclasses.replace(case, questions=tuple(proposal.questions))
                await CASE_GRAPH.ainvoke({"case": harder, "setup": state["setup"]}, context=ctx)
                previous = proposal.questions
                asked |= {q.question for q in previous}
    finally:
        writer.close()
    return {}


async def _model_proposal(ctx: RunContext, case, previous, asked: set[str], weak: list[str], round_: int):
    """The judge's model proposes questions from the case's fact records; the harness verifies each.
    Its tokens go to the ledger as role "eval" (the judge's model)."""
    from langchain_core.messages import HumanMessage

    from benchmarker.agent.prompts import load_prompt
    from benchmarker.datasets.long_horizon.adversary import proposer_prompt, verified_from_model

    failures = [(q.question, q.answer) for q in previous
                if (r := ctx.log.done.judged.get(q.question_id)) is not None and r.get("label") is False]
    prompt, facts = proposer_prompt(case, asked=asked, weak=weak, failures=failures,
                                    n=ctx.config.multi_agent.adversary_questions,
                                    template=load_prompt("adversary_propose", directory=ctx.prompts_dir))
    reply = await ctx.judge.model.ainvoke([HumanMessage(prompt)])
    items = parse_proposals(str(reply.content))[:ctx.config.multi_agent.adversary_questions]
    return verified_from_model(case, items, facts, asked=set(asked), weak=weak, round_=round_)


def parse_proposals(text: str) -> list[dict]:
    """The questions of a proposer's reply (fenced or bare JSON); [] when there are none."""
    from benchmarker.eval.json_reply import json_objects

    for obj in json_objects(text):
        items = obj.get("questions")
        if isinstance(items, list):
            return [i for i in items if isinstance(i, dict) and isinstance(i.get("question"), str)]
    return []
