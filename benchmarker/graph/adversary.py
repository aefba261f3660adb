"""Node `adversary`: rounds of harder questions, asked against the memories the run already built.

After the cases are scored, each round looks at the previous round's results per case (round 0:
the dataset's own questions), picks the weakest categories (a case with no wrong answer of its
own, such as a LongMemEval case with its one question, aims at the run's weakest) and asks the
adversary for verified questions there:

- long-horizon, `proposer = "generator"`: the generator's own unasked questions, checked against
  its fact records (suites/long_horizon/data/adversary.py);
- `proposer = "model"`: the judge's model proposes, from the long-horizon fact records or, for
  LongMemEval and level cases, from the case's turns (graph/evidence_adversary.py), and the
  harness checks every proposal against the dialogue.

Verified questions go through the same case graph as the originals: the case's finished memory is
reused (no re-ingestion), answers and results are written like any other with `"round": N`. Each
case's round is logged to `adversary.jsonl` with the verified questions themselves, so a resumed
run asks exactly the questions it logged (a model is not asked again) and nothing twice. A
proposer call that fails is reported and left unlogged: the next run of the same command retries it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from langgraph.runtime import Runtime

from benchmarker.datasets.schema import Case, Question
from benchmarker.graph.context import RunContext
from benchmarker.graph.state import RunState
from benchmarker.log.jsonl import JsonlWriter, read_jsonl
from benchmarker.reporting.rounds import why_nothing
from benchmarker.suites.parts import AdversaryPolicy

LOG_FILE = "adversary.jsonl"


async def adversary(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    from benchmarker.suites.long_horizon.data.adversary import weakest_categories

    ctx = runtime.context
    settings, policy = ctx.multi_agent, ctx.suite.adversary
    ctx.progress.set_phase("adversary")
    if policy is None:   # config.py refuses the adversary on such a suite; nothing to aim at
        return {}
    log_path = ctx.log.run_dir / LOG_FILE
    logged = {(line["case_id"], line["round"]): line for line in read_jsonl(log_path)}
    cases = [c for c in ctx.executor.cases()
             if c.case_id in ctx.log.done.memories and policy.aimable(c)]
    run_labels = _labels(ctx, [q for c in cases for q in c.questions])
    writer = JsonlWriter(log_path, durable=True)
    try:
        for case in cases:
            previous = list(case.questions)
            asked = {q.question for q in previous}
            for round_ in range(1, settings.rounds + 1):
                weak = weakest_categories(_labels(ctx, previous), k=settings.weak_categories)
                if not weak and not policy.own_weakest_only:
                    weak = weakest_categories(run_labels, k=settings.weak_categories)
                line = logged.get((case.case_id, round_))
                if line is not None and "questions" in line:
                    questions = [question_from_line(q) for q in line["questions"]]
                else:
                    proposal = await _proposal(ctx, policy, case, previous, asked, weak, round_)
                    if proposal is None:
                        break
                    questions = proposal.questions
                    entry = {"schema_version": 2, "case_id": case.case_id, "round": round_,
                             "weak_categories": weak, "proposer": settings.proposer,
                             "proposed": proposal.proposed, "verified": proposal.verified,
                             "dropped": [{"question": q, "reason": r} for q, r in proposal.dropped],
                             "questions": [question_line(q) for q in questions]}
                    if line is None:
                        writer.write(entry)   # logged even when empty: the summary reports the round
                    line = entry
                if not questions:   # a round that asks nothing is a result: said here, in the summary and report
                    ctx.progress.note(f"adversary: case {case.case_id} round {round_} asked nothing: "
                                      f"{why_nothing([line])}")
                    break
                harder = dataclasses.replace(case, questions=tuple(questions))
                ctx.progress.add_questions(sum(q.question_id not in ctx.log.done.judged for q in questions))
                await _case_graph().ainvoke({"case": harder, "setup": state["setup"]}, context=ctx)
                previous = list(questions)
                asked |= {q.question for q in previous}
    finally:
        writer.close()
    return {}


def _case_graph():
    """The compiled case graph, imported late (graph.build imports this module)."""
    from benchmarker.graph.build import CASE_GRAPH

    return CASE_GRAPH


def _labels(ctx: RunContext, questions: list[Question]) -> dict[str, list[bool]]:
    labels: dict[str, list[bool]] = {}
    for q in questions:
        result = ctx.log.done.judged.get(q.question_id)
        if result is not None and result.get("label") is not None:
            labels.setdefault(q.category or q.question_type, []).append(bool(result.get("label")))
    return labels


async def _proposal(ctx: RunContext, policy: AdversaryPolicy, case: Case, previous: list[Question], asked: set[str],
                    weak: list[str], round_: int):
    """This round's checked questions for the case; None when a model proposer's call failed."""
    from benchmarker.suites.long_horizon.data.adversary import propose

    if ctx.multi_agent.proposer != "model":
        return propose(case, asked=asked, weak=weak, n=ctx.multi_agent.adversary_questions, round_=round_)
    if policy.own_weakest_only and not weak:
        return propose(case, asked=asked, weak=weak, n=0, round_=round_)   # nothing to aim at
    return await _model_proposal(ctx, policy, case, previous, asked, weak, round_)


async def _model_proposal(ctx: RunContext, policy: AdversaryPolicy, case: Case, previous: list[Question],
                          asked: set[str], weak: list[str], round_: int):
    """The judge's model proposes; the harness verifies each proposal. Its tokens go to the ledger as
    role "eval" (the judge's model)."""
    from benchmarker.agent.prompts import load_prompt
    from benchmarker.scoring.judge_policy import ask_prompt_until_parsed

    n = ctx.multi_agent.adversary_questions
    failures = [(q.question, q.answer) for q in previous
                if (r := ctx.log.done.judged.get(q.question_id)) is not None and r.get("label") is False]
    if policy.proposes_from_facts:
        from benchmarker.suites.long_horizon.data.adversary import proposer_prompt, verified_from_model

        prompt, facts = proposer_prompt(case, asked=asked, weak=weak, failures=failures, n=n,
                                        template=load_prompt("adversary_propose", directory=ctx.prompts_dir))
        check = (lambda items: verified_from_model(case, items, facts, asked=set(asked), weak=weak, round_=round_))  # noqa: E731
    else:
        from benchmarker.graph.evidence_adversary import checked_questions, evidence_prompt

        categories = policy.categories(case)   # LongMemEval's types (its judge prompts go by type), a level's own
        prompt = evidence_prompt(case, weak=weak, categories=categories, failures=failures, n=n, round_=round_,
                                 template=load_prompt("adversary_evidence", directory=ctx.prompts_dir))
        rubric_for = policy.rubric
        check = (lambda items: checked_questions(case, items, asked=set(asked), weak=weak,  # noqa: E731
                                                 categories=categories, round_=round_, rubric_for=rubric_for))
    with ctx.traced(case_id=case.case_id, role="eval", phase="adversary", round=round_):
        got = await ask_prompt_until_parsed(ctx.judge.model, prompt, _parse, ctx.eval.judge_retries)
    if got.failed:
        ctx.progress.note(f"adversary: case {case.case_id} round {round_}: the proposer call failed ({got.error}); "
                          "run the same command again to retry it")
        return None
    return check((got.value or [])[:n])


def _parse(text: str) -> list[dict]:
    items = parse_proposals(text)
    if not items:
        raise ValueError('no JSON object with a "questions" list')
    return items


def parse_proposals(text: str) -> list[dict]:
    """The questions of a proposer's reply (fenced or bare JSON); [] when there are none."""
    from benchmarker.scoring.json_reply import json_objects

    for obj in json_objects(text):
        items = obj.get("questions")
        if isinstance(items, list):
            return [i for i in items if isinstance(i, dict) and isinstance(i.get("question"), str)]
    return []


def question_line(q: Question) -> dict[str, Any]:
    """A question as adversary.jsonl keeps it (so a resumed run asks the same one)."""
    return dataclasses.asdict(q)


def question_from_line(line: dict[str, Any]) -> Question:
    return Question(**{**line, "answer_session_ids": tuple(line.get("answer_session_ids") or ())})


def logged_questions(run_dir) -> dict[str, list[Question]]:
    """case id -> every question the adversary asked in it, from the run's adversary.jsonl."""
    out: dict[str, list[Question]] = {}
    for line in read_jsonl(run_dir / LOG_FILE):
        out.setdefault(line["case_id"], []).extend(question_from_line(q) for q in line.get("questions") or [])
    return out
