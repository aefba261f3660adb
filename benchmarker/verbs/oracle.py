"""`mycelian-longmemeval oracle RUN_DIR [CONFIG]`: every question of a finished run asked again with only
its gold evidence turns as the reader's context, judged by the run's judge.

LongMemEval's oracle setting, question by question: what the reader and the judge make of perfect
memory. The gap between the run's accuracy and this one is what the memory system loses; what the
oracle still gets wrong is the reader's or the judge's. The evidence text comes from the answers lines
(`evidence`), so the dataset is not read again (a suite whose judge needs its case, a rubric, rebuilds
it from the config as `score` does). The reader sees the evidence in the form it sees retrieved entries
(the same `qa_reader.txt`, session dates first). Output: RUN_DIR/oracle/ (answers.jsonl, results.jsonl,
summary.json, report), resumable; then the run's own report is rebuilt to show both accuracies.
Questions with no evidence text (an abstention question, a suite without evidence labels) are asked
with an empty context: the right answer is then to decline.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from benchmarker.agent.ledger import usage_of
from benchmarker.agent.messages import message_text
from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import ParamsConfig, RunConfig, RunSection
from benchmarker.errors import UserError
from benchmarker.graph.retrieval import build_context
from benchmarker.log.records import AnswerRecord
from benchmarker.log.store import RunLog
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.concurrent import run_all_or_stop
from benchmarker.token_count import count_tokens
from benchmarker.verbs.estimate_shapes import OracleEstimate
from benchmarker.verbs.role_pricing import RolePricing

ORACLE_DIR = "oracle"
# What an answers line keeps in the oracle's copy: the question and its gold, never what memory returned.
QUESTION_KEYS = ("case_id", "question_id", "question_type", "category", "kind", "level", "seed", "question_key",
                 "is_abstention", "question", "answer", "question_date", "answer_session_ids", "evidence_turns",
                 "evidence", "rubric", "locomo_category")


def run_config(run_dir: Path, config_path: Path | None):
    """CONFIG when given (another reader or judge), else the config the run was made with (its manifest)."""
    from benchmarker.run.run_files import config_of_run

    return config_of_run(run_dir, config_path, "oracle")


def gold_answers(run_dir: Path) -> dict[str, AnswerRecord]:
    """The run's answered questions (the dataset's own, not adversarial rounds), by id, with their evidence text."""
    from benchmarker.run.run_files import answered_questions

    answers: dict[str, AnswerRecord] = answered_questions(run_dir, "oracle")
    if not any(a.get("evidence") for a in answers.values()) and any(a.evidence_turns for a in answers.values()):
        raise UserError(f"{run_dir}: its answers carry no evidence text (the run predates it); re-run its QA phase "
                        "with this version (phases = [\"qa\", \"eval\"] in a copy of its config) and try again")
    return answers


def oracle_context(answer: AnswerRecord, max_chars: int) -> str:
    """The gold evidence turns as the reader sees retrieved entries of a perfect memory: rank, session date, role,
    then each message as the harness stores it (its date and speaker, then its text verbatim)."""
    hits = [{"rank": i, "session_date": e.get("session_date"), "role": e.get("role"),
             "raw_entry": f"[{e.get('session_date')}] {e.get('role')}: {e.get('content')}"}  # as the harness stores a message
            for i, e in enumerate(answer.get("evidence") or [], start=1) if isinstance(e, dict)]
    return build_context({}, hits, max_chars)


async def run_oracle(run_dir: Path, config: RunConfig) -> tuple[RunSummary, Path]:
    """Answer and judge every pending question; write the oracle folder's outputs. Returns its summary."""
    from benchmarker.reporting.outputs import write_outputs
    from benchmarker.reporting.run_meta import RunMeta
    from benchmarker.run.models import build_models
    from benchmarker.score import score
    from benchmarker.verbs.rescore import CaseRebuild, cases_for

    answers = gold_answers(run_dir)
    cases = cases_for(CaseRebuild.of(config), run_dir, answers)
    config = config.model_copy(update={"run": config.run.model_copy(update={"mode": "agent", "phases": ("qa", "eval")})})
    models = build_models(config, with_agent=False)
    judge = models.judge_for(config.eval, config.run.max_failures_in_a_row)
    out_dir = run_dir / ORACLE_DIR
    log = RunLog(run_dir, answers_dir=out_dir)
    template = load_prompt("qa_reader.txt")
    semaphore = asyncio.Semaphore(config.run.concurrency)

    async def one(gold: AnswerRecord) -> None:
        async with semaphore:
            answer = log.done.answered.get(gold.question_id)
            if answer is None:
                answer = await _ask(models.qa, template, gold, config.params.qa_max_context_chars,
                                    config.provider.type == "offline")
                log.append(answer)
            memory = log.done.memories.get(gold.case_id)
            result = await score(answer, cases.get(gold.case_id), judge,
                                 failed_turns=memory.failed_turns if memory else None)
        log.append(result)

    try:
        await run_all_or_stop(one(a) for q, a in answers.items() if q not in log.done.judged)
    finally:
        log.close()
    meta: RunMeta = {"run_id": f"{run_dir.name}/{ORACLE_DIR}", "offline": models.offline, "mode": "agent",
            "judge": models.judge_kind, "point": ORACLE_DIR, "tokens": models.ledger.snapshot(),
            "dataset_kind": config.dataset.kind, "thresholds": config.eval.thresholds.model_dump(mode="json"),
            "oracle": {"of_run": run_dir.name, "reader": config.models.qa, "judge": models.judge_kind,
                       "context": "the gold evidence turns only", "original_report": "../report.html"}}
    return write_outputs(out_dir, run_dir, meta, SUITE_LOOKUP)[0], out_dir


async def _ask(reader: Any, template: str, gold: AnswerRecord, max_chars: int, offline: bool) -> AnswerRecord:
    context = oracle_context(gold, max_chars)
    prompt = template.format(question=gold.question, question_date=gold.question_date or "unknown", context=context)
    reply = await reader.ainvoke([HumanMessage(prompt)])
    usage = usage_of(reply)
    line = gold.to_line()
    return AnswerRecord(**{k: line[k] for k in QUESTION_KEYS if k in line}, **{
        "hypothesis": message_text(reply).strip(), "mode": "oracle", "offline": offline,
        "reader_context": context, "context_chars": len(context), "context_tokens": count_tokens(context),
        "tokens": {"qa": {"input": usage.input_tokens, "output": usage.output_tokens,
                          "cache_read": usage.cache_read_tokens, "cache_write": usage.cache_write_tokens}}})


def estimate_oracle(run_dir: Path, params: ParamsConfig, run: RunSection, pricing: RolePricing) -> OracleEstimate:
    """Tokens and USD of the oracle's pending reader and judge calls (characters / 4, as `estimate` counts)."""
    from benchmarker.agent.ledger import Usage
    from benchmarker.run.estimate_model import tokens
    from benchmarker.verbs.estimate import QA_OUTPUT, judge_usage
    from benchmarker.verbs.role_pricing import llm_judged

    answers = gold_answers(run_dir)
    done = RunLog(run_dir, answers_dir=run_dir / ORACLE_DIR).done if (run_dir / ORACLE_DIR).is_dir() else None
    pending = [a for q, a in answers.items() if done is None or q not in done.judged]
    template = load_prompt("qa_reader.txt")
    asked = [a for a in pending if done is None or a.question_id not in done.answered]
    qa = Usage(len(asked), sum(tokens(len(template) + len(a.question) + len(oracle_context(
        a, params.qa_max_context_chars))) for a in asked), len(asked) * QA_OUTPUT)
    judge = judge_usage(llm_judged(pricing.models, params, run), pending)
    qa_usd, eval_usd = pricing.usd(qa, "qa"), pricing.usd(judge, "eval")
    return {"questions": len(answers), "pending": len(pending), "qa": qa.as_dict(), "eval": judge.as_dict(),
            "usd": None if qa_usd is None or eval_usd is None else qa_usd + eval_usd,
            "models": {"qa": pricing.models.qa, "eval": pricing.models.eval or None}}
