"""`mycelian-longmemeval score RUN_DIR CONFIG`: judge a finished run's answers again, with another judge.

Ingestion and QA are what a run pays for; the judge is the cheap part you may want to change
(a stronger model, the official prompts, the deterministic grader). The new results go to
`RUN_DIR/scores/<judge>/` with their own summary and report; the run's own files are untouched.
Resumable like a run: answers already judged there are not judged again.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from benchmarker.errors import UserError
from benchmarker.run.jsonl import read_jsonl
from benchmarker.run.store import RunStore


def score_label(judge_kind: str, model: str) -> str:
    name = judge_kind if judge_kind == "deterministic" else f"{judge_kind}-{model}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


async def rescore(run_dir: Path, config) -> Path:
    from benchmarker.eval.scoring import grade_record
    from benchmarker.graph.report import summarise_dir
    from benchmarker.run.models import build_models

    answers = {line["question_id"]: line for line in read_jsonl(run_dir / "answers.jsonl")}
    if not answers:
        raise UserError(f"{run_dir}: no answers.jsonl lines to score; is it a finished run directory?")
    other = sorted({a.get("kind") for a in answers.values()} - {"longmemeval"})
    if other:
        raise UserError(f"{run_dir}: `score` re-judges LongMemEval answers; this run holds {other} "
                        "(re-run it with the new [eval] settings instead)")
    models = build_models(config.model_copy(update={"run": config.run.model_copy(update={"phases": ("eval",)})}))
    label = score_label(models.judge_kind, config.models.eval)
    out_dir = run_dir / "scores" / label
    store = RunStore(run_dir, answers_dir=out_dir)
    done = store.load_resume_state().judged
    semaphore = asyncio.Semaphore(config.run.concurrency)

    async def judge(record: dict[str, Any]) -> None:
        async with semaphore:
            grading = await grade_record(record, judge_kind=models.judge_kind, model=models.judge,
                                         prompt_builder=models.official_prompt, retries=config.eval.judge_retries)
        store.write_result({k: v for k, v in record.items() if k != "schema_version"} | grading)

    try:
        await asyncio.gather(*(judge(a) for qid, a in answers.items() if qid not in done))
    finally:
        store.close()
    meta = {"run_id": run_dir.name, "offline": models.offline, "mode": "agent", "judge": models.judge_kind,
            "point": f"scores/{label}", "tokens": models.ledger.snapshot(), "dataset_kind": "longmemeval"}
    summarise_dir(out_dir, run_dir, meta)
    return out_dir
