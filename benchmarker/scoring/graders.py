"""Graders with perspectives: extra LLM scores beside the main score, never replacing it.

Each perspective (`[multi_agent] graders`) has its prompt in prompts/grader_<name>.txt and scores
every judged answer from 0 to 1: `quality` (correct, complete, useful), `simplicity` (direct and
brief) and `regression` (better 1 / as good 0.5 / worse 0 than the same question's answer in
`[multi_agent] baseline_run`). Scores go to `graders.jsonl` (one line per question and
perspective, resumable) and `summary.json` "graders" (mean, n, not graded). With no grader model
(offline), nothing is graded and the summary says so: a perspective is never a zero by default.
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.agent.prompts import load_prompt
from benchmarker.log.jsonl import JsonlWriter, latest_by, read_jsonl
from benchmarker.memory.tool_mapping import render as fill_placeholders
from benchmarker.scoring.json_reply import json_objects
from benchmarker.scoring.judge_policy import ask_prompt_until_parsed

PERSPECTIVES = ("quality", "simplicity", "regression")
LOG_FILE = "graders.jsonl"


class GraderScore(TypedDict):
    score: float
    reason: str


class PerspectiveFigures(TypedDict):
    """One perspective under summary.json's `graders.perspectives`."""

    graded: int
    mean: float | None
    by_main_label: dict[str, float]   # "true" / "false": the mean score when the main judge said so
    ungraded: int


class GradersBlock(TypedDict):
    perspectives: dict[str, PerspectiveFigures]
    note: str


def parse_grade(text: str) -> GraderScore:
    for obj in json_objects(text):
        score = obj.get("score")
        if isinstance(score, (int, float)) and 0.0 <= float(score) <= 1.0:
            return {"score": float(score), "reason": str(obj.get("reason", ""))[:500]}
    raise ValueError('no JSON object with a "score" from 0 to 1')


def render(perspective: str, result: dict[str, Any], baseline: str | None, prompts_dir: Path | None = None) -> str:
    values = {"question": result.get("question", ""), "gold": str(result.get("answer", "")),
              "hypothesis": str(result.get("hypothesis", "")), "baseline": baseline or ""}
    return fill_placeholders(load_prompt(f"grader_{perspective}", directory=prompts_dir), values)


async def grade_run(answers_dir: Path, model: Any, perspectives: tuple[str, ...], *, baseline_dir: Path | None,
                    retries: int, concurrency: int) -> None:
    """Grade every judged answer not graded yet from each perspective; append to graders.jsonl."""
    results = [r for r in latest_by(read_jsonl(answers_dir / "results.jsonl"), "question_id") if r.get("label") is not None]
    done = {(line["question_id"], line["perspective"]) for line in read_jsonl(answers_dir / LOG_FILE)}
    baseline = {r["question_id"]: r.get("hypothesis", "") for r in read_jsonl(baseline_dir / "results.jsonl")} \
        if baseline_dir is not None else {}
    writer = JsonlWriter(answers_dir / LOG_FILE, durable=True)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(result: dict[str, Any], perspective: str) -> None:
        if perspective == "regression" and result["question_id"] not in baseline:
            return  # no baseline answer to compare with: not graded
        prompt = render(perspective, result, baseline.get(result["question_id"]))
        async with semaphore:
            got = await ask_prompt_until_parsed(model, prompt, parse_grade, retries)
        line = {"schema_version": 1, "question_id": result["question_id"], "perspective": perspective,
                "status": "graded" if got.value is not None else "ungraded", "label": result.get("label"),
                **(got.value or {"score": None, "reason": got.error})}
        writer.write(line)

    try:
        await asyncio.gather(*(one(r, p) for r in results for p in perspectives if (r["question_id"], p) not in done))
    finally:
        writer.close()


def graders_block(answers_dir: Path, perspectives: tuple[str, ...], note: str = "") -> GradersBlock:
    """summary.json "graders": per perspective the mean score, how many graded, and the mean by main label."""
    lines = latest_by((dict(line, key=f"{line['question_id']}|{line['perspective']}")
                       for line in read_jsonl(answers_dir / LOG_FILE)), "key")
    out: dict[str, PerspectiveFigures] = {}
    for perspective in perspectives:
        graded = [line for line in lines if line["perspective"] == perspective and line["status"] == "graded"]
        scores = [line["score"] for line in graded]
        by_label = {str(label).lower(): statistics.fmean([line["score"] for line in graded if line["label"] is label])
                    for label in (True, False) if any(line["label"] is label for line in graded)}
        out[perspective] = {"graded": len(scores), "mean": statistics.fmean(scores) if scores else None,
                            "by_main_label": by_label,
                            "ungraded": sum(1 for line in lines if line["perspective"] == perspective
                                            and line["status"] != "graded")}
    return {"perspectives": out, "note": note or "extra scores beside the main score; they never change it"}


def graders_section(block: GradersBlock) -> str:
    lines = ["| perspective | graded | mean | mean when correct | mean when wrong |", "|---|---|---|---|---|"]
    for name, row in block["perspectives"].items():
        fmt = (lambda v: "not graded" if v is None else f"{v:.2f}")  # noqa: E731
        lines.append(f"| {name} | {row['graded']} | {fmt(row['mean'])} | {fmt(row['by_main_label'].get('true'))} | "
                     f"{fmt(row['by_main_label'].get('false'))} |")
    return "\n".join(lines + ["", block["note"]])
