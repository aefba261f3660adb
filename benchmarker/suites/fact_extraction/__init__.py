"""Fact extraction: labelled cases with no questions; the agent's writes to a memory seeded with
the case's existing facts are read back and matched against the expected facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarker.config_schema import Problem, RunConfig, mapped_server
from benchmarker.datasets.schema import Case
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.log.lines import GradeLine, Json, ResultLine
from benchmarker.reporting.section_spec import Section
from benchmarker.reporting.suite_parts import Record, SuiteReporting
from benchmarker.scoring.judge_policy import JUDGE_CALL_FAILED
from benchmarker.scoring.judges import DeterministicGrader, LLMJudge
from benchmarker.suites.base import Suite, need_case
from benchmarker.suites.fact_extraction.data import (
    context_facts,
    extracted_facts_from_memory,
    fact_case_of,
    fact_case_to_case,
    load_fact_cases,
)
from benchmarker.suites.fact_extraction.facts import CaseScore, fact_report_section, score_case, summarize_fact_scores
from benchmarker.suites.parts import CaseProtocol, DataSource
from benchmarker.suites.scorer import Scorer
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.scoring.judges import Judge


NAME = "fact_extraction"


def config_problems(cfg: RunConfig) -> list[Problem]:
    """It scores what an agent writes to our memory server: our memory agent on Mycelian only."""
    problems: list[Problem] = []
    if cfg.agent.type != "memory_agent":
        problems.append(Problem(("dataset", "kind"), f'"{NAME}" scores the entries an agent writes to '
                                f'our memory server, which [agent].type = "{cfg.agent.type}" does not use; run '
                                'it with [agent].type = "memory_agent", or pick sample, longmemeval, '
                                "long_horizon or levels"))
    where = mapped_server(cfg.memory)
    if where:
        problems.append(Problem(("dataset", "kind"), f'"{NAME}" seeds and reads back Mycelian entries; '
                                f"{where} cannot run it (use the default Mycelian preset)"))
    return problems


def plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    path = settings.dataset_path
    fact_cases = load_fact_cases(path)
    ids = set(settings.run.question_ids)
    chosen = [fc for fc in fact_cases if not ids or fc.id in ids]
    if settings.run.limit:
        chosen = chosen[: settings.run.limit]
    return DatasetPlan([CaseGroup("cases", len(chosen), lambda: [fact_case_to_case(fc) for fc in chosen])],
                       str(path) if path else "packaged fact_cases.json", None,
                       f"fact extraction: {len(chosen)} cases")


async def score(record: ResultLine, case: Case | None, judge: Judge) -> ResultLine:
    fc = fact_case_of(need_case(case, record))
    context = record.get("latest_context") or ""
    extracted = extracted_facts_from_memory(record.get("new_entries") or [], context, list(fc.existing_memory))
    all_context = context_facts(context)
    if judge.llm is not None:
        from benchmarker.suites.fact_extraction.fact_judge import format_extracted_output, judge_facts, judged_case_score

        verdict = await judge_facts(judge.llm, fc, format_extracted_output(extracted), retries=judge.retries)
        result = judged_case_score(fc, extracted, verdict, context_facts=all_context, thresholds=judge.thresholds)
        grader = LLMJudge.name
    else:
        result = score_case(fc, extracted, context_facts=all_context, thresholds=judge.thresholds)
        grader = DeterministicGrader.name
    exact = result.judged and result.fp == 0 and result.fn == 0
    checks = [c for c in (result.conflict_resolved, result.minimal) if c is not None]
    label = (exact and all(checks)) if result.judged else None
    failed = verdict.error if judge.llm is not None and verdict.error.startswith(JUDGE_CALL_FAILED) else None
    grade: GradeLine = {"judge": grader, "reason": f"tp={result.tp} fp={result.fp} fn={result.fn}",
                        "unjudged": not result.judged}
    if failed:
        grade["judge_error"] = failed
    return {"label": label, "score": result.f1, "extracted_facts": extracted, "fact_score": result.to_dict(),
            "autoeval_label": None if label is None else {"model": grader, "label": label}, "grade": grade}


def summarise(results: Sequence[ResultLine], *, level_scores: Sequence[Mapping[str, Json]]) -> Record:
    scores = [CaseScore.from_dict(r["fact_score"]) for r in results
              if r.get("kind") == NAME and r.get("fact_score")]
    if not any(r.get("kind") == NAME for r in results):
        return {}
    summary = summarize_fact_scores(scores)
    macro = summary.get("macro") or {}
    passed = sum(1 for t in summary.get("targets", []) if t.get("pass"))
    summary["headline"] = (f"macro P {macro.get('precision') or 0:.2f} R {macro.get('recall') or 0:.2f} "
                           f"F1 {macro.get('f1') or 0:.2f}; {passed}/{len(summary.get('targets', []))} targets met")
    return {NAME: summary}


def report_sections(summary: Record) -> list[Section]:
    return [fact_report_section(summary[NAME])] if NAME in summary else []


def console_rows(summary: Record) -> list[tuple[str, str]]:
    block = summary.get(NAME)
    return [("fact extraction", block["headline"])] if block and block.get("headline") else []


SUITE = Suite(
    name=NAME,
    record_kinds=(NAME,),
    data=DataSource(plan, problems=config_problems, reads_file=True,
                    missing_file_hint=lambda path: "fix the path, or remove the key to use the built-in 40 labelled cases"),
    scorer=Scorer(score=score),
    reporting=SuiteReporting(summarise=summarise, report_sections=report_sections, console_rows=console_rows),
    protocol=CaseProtocol(reads_back=True, seeds_memory=True, reads_agent_trace=True,
                          replay_refusal="scores the facts the memory agent itself writes into a seeded memory: "
                                         "a replay would re-send the source agent's writes and score that agent again"),
    adversary_refusal="has no questions to aim at",
)
