"""Node: answer every question of the case from memory (search -> compact context -> reader).

The reader gets the question and its `question_date`, and every entry with its session date,
so temporal questions are answerable. In retrieval mode only the search runs. A memory whose writes
never became searchable in time fails the case (IndexNotSearchableError) rather than be searched.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from benchmarker.agent.ledger import usage_of
from benchmarker.agent.messages import message_text
from benchmarker.agent.prompts import load_prompt
from benchmarker.datasets.schema import Case, Question
from benchmarker.errors import IndexNotSearchableError
from benchmarker.graph.budget import fit_context, trim_to_top_k
from benchmarker.graph.context import RunContext
from benchmarker.graph.search_log import failed_searches_logged
from benchmarker.graph.state import CaseState
from benchmarker.log.lines import EvidenceText
from benchmarker.log.records import AnswerRecord, DecisionRecord, MemoryRecord
from benchmarker.memory.driver import Searcher
from benchmarker.redact import masked_preview
from benchmarker.suites.base import Suite


def evidence_turns(case: Case, question: Question) -> list[list[Any]]:
    """[session_id, turn_index] of the question's evidence turns (turn-level retrieval evidence):
    LoCoMo names them per question; in LongMemEval they are the case's has_answer turns."""
    if "turns" in question.evidence:
        return [list(turn) for turn in question.evidence["turns"]]
    turns = []
    for session in case.sessions:
        for i, message in enumerate(session.messages):
            if message.has_answer:
                turns.append([session.session_id, i])
    return turns


# The longest gold evidence turn a line keeps (LongMemEval assistant turns run to ~10k characters): the oracle
# reader answers from this text, attribution matches writes against it and `view` shows it.
EVIDENCE_CHARS = 20_000


def evidence_text(case: Case, turns: list[list[Any]]) -> list[EvidenceText]:
    """The gold evidence turns' own text, so a run directory alone explains a miss (scoring/attribution.py)."""
    sessions = {s.session_id: s for s in case.sessions}
    out: list[EvidenceText] = []
    for session_id, index in turns:
        session = sessions.get(session_id)
        if session is None or not isinstance(index, int) or not 0 <= index < len(session.messages):
            continue
        message = session.messages[index]
        out.append({"session_id": session_id, "turn_index": index, "session_date": session.date, "role": message.role,
                    "content": masked_preview(message.content, EVIDENCE_CHARS)})
    return out


def base_record(suite: Suite, case: Case, question: Question) -> dict[str, Any]:
    """The answer line's keys every subject writes: the question, its gold and evidence (the suite says which)."""
    turns = evidence_turns(case, question) if suite.scorer.retrieval_evidence(case, question) else []
    fields = suite.scorer.answer_fields(case, question)
    # A suite whose evidence is not scored as retrieval (long-horizon) still names it: attribution reads it.
    explained = turns or fields.get("evidence_messages") or []
    return {
        "case_id": case.case_id,
        "question_id": question.question_id,
        "question_type": question.question_type,
        "category": question.category,
        "kind": case.kind,
        "level": case.metadata.get("level_id"),
        "seed": case.metadata.get("seed"),
        "question_key": question.evidence.get("question_key") or question.question_id,
        "is_abstention": question.is_abstention,
        "question": question.question,
        "answer": question.answer,
        "question_date": question.question_date,
        "answer_session_ids": list(question.answer_session_ids),
        "evidence_turns": turns,
        "evidence": evidence_text(case, explained),
        **({"round": question.evidence["round"]} if question.evidence.get("round") else {}),  # adversarial rounds
        **fields,
    }


async def qa(state: CaseState, runtime: Runtime[RunContext]) -> CaseState:
    """Every answer of the case goes on in state: the ones an earlier process wrote, then the new ones."""
    ctx = runtime.context
    if state.get("skipped"):
        return {}
    case, memory = state["case"], state.get("memory")
    done = ctx.log.done.answered
    answers = [done[q.question_id] for q in case.questions if q.question_id in done]
    pending = [q for q in case.questions if q.question_id not in done]
    if not pending or "qa" not in ctx.phases:  # an eval-only run scores what earlier runs answered
        return {"answers": answers} if answers else {}
    assert memory is not None, "qa runs after prepare_memory"
    ctx.progress.set_phase("qa")
    waited = time.monotonic()
    searcher = await ctx.memory.open_search(case, memory, ctx.log, direct_writes=ctx.mode == "retrieval",
                                            timeout_s=ctx.params.consistency_timeout_s,
                                            alpha=ctx.search.alpha)
    searchable = searcher.searchable
    searcher = failed_searches_logged(searcher, ctx.log, case, "retrieval" if ctx.mode == "retrieval" else "harness")
    ctx.log.append(DecisionRecord(case_id=case.case_id, caller="harness", tool="_wait_searchable",
                                  latency_ms=round((time.monotonic() - waited) * 1000, 1),
                                  result_preview="searchable" if searchable else "timed out: index still lagging"))
    if not searchable:  # never a silent recall of 0: the case fails and a re-run retries it
        raise IndexNotSearchableError(
            f"case {case.case_id}: memory {memory.memory_id}'s newest write was still not searchable after "
            f"[params] consistency_timeout_s = {ctx.params.consistency_timeout_s:g} s, so its questions were "
            "not searched (an index that lags would score as retrieval misses). Re-running the same command retries "
            "the case on the same memory; raise consistency_timeout_s for a slow index.")
    for question in pending:
        with ctx.traced(case_id=case.case_id, role="qa", phase="qa", question_id=question.question_id):
            answer = await _answer(ctx, case, question, memory, searcher)
        ctx.log.append(answer)  # one durable line per question: a crash loses at most the one in flight
        answers.append(answer)
        if len(case.questions) > 1 or ctx.suite.protocol.conversation_cases:  # progress moves per question
            ctx.progress.question_answered(case.case_id, f"{case.case_id} {question.question_id} answered")
    return {"answers": answers}


async def _answer(ctx: RunContext, case: Case, question: Question, memory: MemoryRecord,
                  searcher: Searcher) -> AnswerRecord:
    started = time.monotonic()
    t0 = time.monotonic()
    found = await searcher.search(question.question, ctx.search.top_k, ctx.search.alpha)
    result = found.result
    hits, trimmed = trim_to_top_k(found.hits, ctx.search.top_k)  # a server returning more than asked gets no more
    search_ms = (time.monotonic() - t0) * 1000
    caller = "retrieval" if ctx.mode == "retrieval" else "harness"  # the measured search of a retrieval run
    ctx.log.append(DecisionRecord(case_id=case.case_id, question_id=question.question_id, caller=caller,
                                  tool=found.tool, args=found.args, result_preview=f"{result.get('count', 0)} hits",
                                  latency_ms=round(search_ms, 1)))
    budget = ctx.run.context_budget_tokens if ctx.mode != "retrieval" else 0  # retrieval: no reader
    fitted = fit_context(result, hits, ctx.params.qa_max_context_chars, budget)
    context, hits = fitted.text, fitted.hits  # `retrieved`: the hits that reached the reader
    hypothesis, tokens = "", {"input": 0, "output": 0}
    if ctx.mode != "retrieval":
        template = load_prompt("qa_reader.txt", directory=ctx.prompts_dir)  # a self-improve candidate's copy
        prompt = template.format(question=question.question, question_date=question.question_date or "unknown",
                                 context=context)
        reader = ctx.agent_subject.reader
        assert reader is not None, "agent mode builds a reader"
        reply = await reader.ainvoke([HumanMessage(prompt)])  # retried and counted by RetryingModel
        hypothesis = message_text(reply).strip()
        usage = usage_of(reply)
        tokens = {"input": usage.input_tokens, "output": usage.output_tokens,
                  "cache_read": usage.cache_read_tokens, "cache_write": usage.cache_write_tokens}
    for hit in hits:
        hit.pop("raw_entry", None)
    return AnswerRecord(**base_record(ctx.suite, case, question), **{
        "hypothesis": hypothesis,
        "retrieved": hits,
        "top_k": ctx.search.top_k,
        "alpha": ctx.search.alpha,
        "context_chars": len(context),
        "reader_context": context,  # what the reader saw, whole (attribution and `view` read it)
        "hits_returned": len(found.hits), "hits_trimmed": trimmed,  # above top_k, dropped before the reader
        **fitted.fields(budget),  # context_tokens (cl100k_base), the budget, and its cut
        "index_searchable": searcher.searchable,
        "memory_id": memory.memory_id,
        "memory_server": ctx.memory.server_name,
        "hits_traced": found.traced,
        # ingest_s is the whole case's ingestion (one memory), repeated on each of its questions.
        "timings": {"ingest_s": memory.ingest_s, "qa_s": round(time.monotonic() - started, 4),
                    "search_ms": round(search_ms, 2)},
        "tokens": {"qa": tokens},
        "mode": ctx.mode,
        "offline": ctx.offline,
    })
