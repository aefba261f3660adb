"""`mycelian-longmemeval score RUN_DIR CONFIG`: score a finished run's answers again, with another
judge or other thresholds, whatever its suite (as `inspect score` does for any log).

Ingestion and QA are what a run pays for; the judge is the cheap part you may want to change
(a stronger model, the official prompts, the deterministic grader, `[eval.thresholds]`). The new
results go to `RUN_DIR/scores/<judge>/` with their own summary and report; the run's own files are
untouched. Resumable like a run: answers already scored there are not scored again. Suites other
than LongMemEval need their cases (the rubric, the facts): they are rebuilt from CONFIG's
`[dataset]`, which must describe the same data as the run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from benchmarker.config_schema import RunConfig
from benchmarker.datasets.schema import Case
from benchmarker.errors import UserError
from benchmarker.log.jsonl import read_decisions
from benchmarker.log.records import AnswerRecord, read_records
from benchmarker.log.store import RunLog
from benchmarker.registry import SUITE_LOOKUP, suite_of_record
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.concurrent import run_all_or_stop
from benchmarker.scoring.attribution import WRITE_TOOLS, attribute, evidence_writes
from benchmarker.suites.settings import PlanSettings


def score_label(judge_kind: str, model: str, thresholds: dict[str, Any] | None = None) -> str:
    """Where a re-scoring goes: the judge (and a hash of the thresholds when they are not the defaults);
    `calibrate` names its folders the same way, so a run's report finds its judge's calibration."""
    from benchmarker.scoring.calibration.store import judge_label

    return judge_label(judge_kind, model, thresholds)


@dataclass(frozen=True)
class CaseRebuild:
    """How `score`, `oracle` and `baselines` rebuild a finished run's cases from the dataset a config describes,
    taken once at the verb's entry: they read nothing else of that config."""

    plan: PlanSettings                    # what registry.plan_dataset plans the config's data from
    config_path: Path | None              # named when a case is missing
    every: bool = False                   # `[dataset] errata`: every case (each carries its questions' corrections)

    @classmethod
    def of(cls, config: RunConfig) -> CaseRebuild:
        return cls(PlanSettings.of(config), config.config_path, bool(config.dataset.errata))


def cases_for(rebuild: CaseRebuild, run_dir: Path, answers: dict[str, AnswerRecord]) -> dict[str, Case]:
    """The cases of every answer whose suite scores it from its case, rebuilt from the config's dataset (every
    case with `[dataset] errata`: a case carries its questions' corrections)."""
    return cases_named(rebuild, run_dir, {a.case_id for a in answers.values()
                                          if rebuild.every or suite_of_record(a.kind).protocol.needs_case})


def cases_named(rebuild: CaseRebuild, run_dir: Path, wanted: set[str], verb: str = "") -> dict[str, Case]:
    """The cases `wanted` names, by id, rebuilt from the dataset the config describes (UserError naming a missing
    one: the run was made with another config)."""
    if not wanted:
        return {}
    from benchmarker.registry import plan_dataset

    cases: dict[str, Case] = {}
    for group in plan_dataset(rebuild.plan, run_dir).groups:
        for case in group.cases():
            if case.case_id in wanted:
                cases[case.case_id] = case
    missing = sorted(wanted - set(cases))
    if missing:
        where = f"that {rebuild.config_path}" if rebuild.config_path else "its config"
        raise UserError(f"{run_dir}: {len(missing)} answered cases (e.g. {missing[0]}) are not in the dataset {where} "
                        f"describes; pass the config the run was made with{f': {verb} RUN_DIR CONFIG' if verb else ''}")
    return cases


def _with_adversarial_questions(cases: dict[str, Case], run_dir: Path) -> dict[str, Case]:
    """The cases with the questions the adversary asked in them (adversary.jsonl), whose rubrics
    and evidence the scorer needs; a level's own score still reads only its own questions."""
    import dataclasses

    from benchmarker.graph.adversary import logged_questions

    extra = logged_questions(run_dir)
    return {cid: dataclasses.replace(case, questions=case.questions + tuple(extra[cid])) if cid in extra else case
            for cid, case in cases.items()}


async def rescore(run_dir: Path, config: RunConfig) -> tuple[RunSummary, Path]:
    """The re-judged summary and the folder it went to (`scores/<judge label>/`)."""
    from benchmarker.reporting.outputs import write_outputs
    from benchmarker.reporting.run_meta import RunMeta
    from benchmarker.run.models import build_models
    from benchmarker.run.run_files import require_whole
    from benchmarker.score import score

    for name in ("answers.jsonl", "memories.jsonl"):  # a record cut off mid-write would be dropped silently
        require_whole(run_dir / name, "score")
    answers = {a.question_id: a for a in read_records(run_dir / "answers.jsonl", AnswerRecord)}
    if not answers:
        raise UserError(f"{run_dir}: no answers.jsonl lines to score; is it a finished run directory?")
    cases = cases_for(CaseRebuild.of(config), run_dir, answers)
    with_rounds = _with_adversarial_questions(cases, run_dir)
    models = build_models(config.model_copy(update={"run": config.run.model_copy(update={"phases": ("eval",)})}))
    judge = models.judge_for(config.eval, config.run.max_failures_in_a_row)
    thresholds = config.eval.thresholds.model_dump(mode="json")
    label = score_label(models.judge_kind, config.models.eval, thresholds)
    out_dir = run_dir / "scores" / label
    log = RunLog(run_dir, answers_dir=out_dir)
    semaphore = asyncio.Semaphore(config.run.concurrency)

    writes = evidence_writes([a.result_line() for a in answers.values()], read_decisions(run_dir / "decisions.jsonl"),
                             WRITE_TOOLS | {original_run(run_dir).get("write_tool") or "add_entry"})

    async def one(answer: AnswerRecord) -> None:
        memory = log.done.memories.get(answer.case_id)
        async with semaphore:
            result = await score(answer, with_rounds.get(answer.case_id), judge,
                                 failed_turns=memory.failed_turns if memory else None)
        found = attribute(result.result_line(), writes.get(answer.case_id, []))  # the new verdict, the run's own writes
        for key, value in (found.fields() if found else {}).items():
            setattr(result, key, value)
        log.append(result)

    try:
        # e.g. the judge failed too often in a row: the other answers stop too
        await run_all_or_stop(one(a) for qid, a in answers.items() if qid not in log.done.judged)
        for case in cases.values():
            level = suite_of_record(case.kind).scorer.score_case(case, log, default_cadence=config.params.context_cadence,
                                                          thresholds=judge.thresholds)
            if level is not None:
                log.append(level)
    finally:
        log.close()
    kinds = sorted({a.kind for a in answers.values()})
    original = original_run(run_dir)
    meta: RunMeta = {"run_id": run_dir.name, "offline": models.offline, "mode": _run_mode(answers),
            "judge": models.judge_kind,
            "point": f"scores/{label}", "tokens": models.ledger.snapshot(),
            "dataset_kind": suite_of_record(kinds[0]).name if len(kinds) == 1 else config.dataset.kind,
            "thresholds": thresholds,
            # what was searched is the original run's (the answers are its); what judged them is new
            # (summary.json's `run` block is the run_meta it was written from: RunMeta's keys)
            **cast("RunMeta", {k: original[k] for k in ("top_k", "alpha", "memory", "agent") if k in original}),
            "rescored": {"of_run": run_dir.name, "judge": models.judge_kind, "model": config.models.eval or None,
                         "label": label, "original_report": "../../report.html",
                         "thresholds": "the defaults" if thresholds == type(config.eval.thresholds)().model_dump(mode="json")
                         else "non-default (summary.json run.thresholds lists them)"}}
    return write_outputs(out_dir, run_dir, meta, SUITE_LOOKUP)[0], out_dir


def original_run(run_dir: Path) -> dict[str, Any]:
    """The `run` block of the run's own summary.json (its search settings, memory and write tool)."""
    from benchmarker.reporting.summary_model import load_summary

    return load_summary(run_dir / "summary.json").run.as_dict()


def _run_mode(answers: dict[str, AnswerRecord]) -> str:
    return "retrieval" if all(a.mode == "retrieval" for a in answers.values()) else "agent"
