"""Evaluate a candidate by running the run's own case graph (qa -> eval) with its settings.

One evaluation covers every question of the run; the training and held-out splits are views
of it, so RE-EVAL on both costs one pass. Results are cached on disk by candidate key
(`self_improve/evals/<key>/`: answers, results, `scores.json`), so a resumed loop never asks
a question twice. Candidate 0 reuses the run's own results.

Per-question score: agent mode, the results line's `label` (1/0; unjudged excluded);
retrieval mode (nothing is judged), session-level recall_all@top_k — every evidence session in
the hits the reader would get. recall_all rather than recall_any because multi-session
questions need all of their sessions, and recall_any saturates at small k.

Memories: a candidate that does not change ingestion (top_k, alpha, QA prompt; anything in
retrieval mode) searches the run's ingested memories. One that does (agent mode: the memory
agent's prompts or context cadence) is ingested afresh into new memories, shared by every
candidate with the same ingestion (`self_improve/ingest/<ingest key>/memories.jsonl`).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarker.errors import UserError
from benchmarker.graph.self_improve.candidate import ingest_key, prompts_of
from benchmarker.log.jsonl import write_json_atomic

SCORES_FILE = "scores.json"
ATTEMPT_STRIDE = 100  # candidate n's fresh memories use attempts from 100 * n up: titles never collide
TEXT_CHARS = 300


def eval_dir(root: Path, candidate: dict[str, Any]) -> Path:
    return root / "evals" / candidate["key"]


def load_scores(root: Path, candidate: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    path = eval_dir(root, candidate) / SCORES_FILE
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))["questions"]


async def evaluate(ctx, root: Path, candidate: dict[str, Any], baseline: dict[str, Any],
                   setup: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{question_id: row} for the candidate (row: score, type, category, level, cause, texts)."""
    cached = load_scores(root, candidate)
    if cached is not None:
        return cached
    if candidate["key"] == baseline["key"] and {"qa", "eval"} <= set(ctx.phases):
        results = ctx.log.load_results()
    else:
        results = await _run_candidate(ctx, root, candidate, baseline, setup)
    rows = {r["question_id"]: question_row(r, ctx.mode) for r in results}
    write_json_atomic(eval_dir(root, candidate) / SCORES_FILE,
                      {"key": candidate["key"], "tunables": candidate["tunables"], "mode": ctx.mode,
                       "questions": rows})
    return rows


async def _run_candidate(ctx, root: Path, candidate: dict[str, Any], baseline: dict[str, Any],
                         setup: dict[str, Any]) -> list[dict[str, Any]]:
    from benchmarker.graph.build import run_cases
    from benchmarker.graph.context import SearchSettings
    from benchmarker.graph.progress import RunProgress
    from benchmarker.log.store import RunLog

    if ctx.case_source is None:
        raise UserError("the self-improve loop needs the run's cases (RunContext.case_source is not set)")
    answers = eval_dir(root, candidate)
    key = ingest_key(candidate, ctx.mode)
    run_done = ctx.log.done
    if key == ingest_key(baseline, ctx.mode):
        log = RunLog(answers)
        log.done.memories = {cid: m for cid, m in run_done.memories.items() if m.ingested}
        phases = ("qa", "eval")
    else:
        log = RunLog(root / "ingest" / key, answers_dir=answers)
        floor = ATTEMPT_STRIDE * candidate["index"]
        for cid in set(run_done.max_attempt) | set(log.done.max_attempt):
            log.done.max_attempt[cid] = max(log.done.max_attempt.get(cid, 0), run_done.max_attempt.get(cid, 0) + floor)
        phases = ("ingest", "qa", "eval")
    tunables = candidate["tunables"]
    derived = dataclasses.replace(
        ctx, log=log, phases=phases,
        search=SearchSettings(top_k=tunables["top_k"], alpha=tunables.get("alpha"),
                              label=f"self-improve-{candidate['index']}"),
        prompts_dir=prompts_of(root, candidate), context_cadence=tunables.get("context_cadence"),
        progress=RunProgress(0, enabled=False, stats=dict))
    try:
        await run_cases(ctx.case_source(), derived, setup)  # a failed case is logged and simply has no score
    finally:
        log.close()
    return log.load_results()


def question_row(result: dict[str, Any], mode: str) -> dict[str, Any]:
    """The per-question facts ANALYZE and DECIDE use, from one results line."""
    from benchmarker.eval.retrieval_metrics import question_retrieval

    top_k = int(result.get("top_k") or 0)
    retrieval = question_retrieval(result, ks=(top_k,)) if top_k and result.get("retrieved") is not None else None
    session = (retrieval or {}).get("session") or {}
    found_any, found_all = session.get(f"recall_any@{top_k}"), session.get(f"recall_all@{top_k}")
    if mode == "retrieval":
        score = found_all
    else:
        label = result.get("label")
        score = None if label is None else float(bool(label))
    return {"score": score, "type": str(result.get("question_type") or "?"),
            "category": str(result.get("category") or ""), "level": str(result.get("level") or ""),
            "cause": failure_cause(score, found_any, found_all, result),
            "recall_any": found_any, "recall_all": found_all, "hits": len(result.get("retrieved") or []),
            "context_chars": result.get("context_chars"),
            "question": str(result.get("question") or "")[:TEXT_CHARS],
            "answer": str(result.get("answer") or "")[:TEXT_CHARS],
            "hypothesis": str(result.get("hypothesis") or "")[:TEXT_CHARS]}


def failure_cause(score: float | None, found_any: float | None, found_all: float | None,
                  result: dict[str, Any]) -> str:
    """ok | unscored | not_retrieved | partially_retrieved | judged_wrong | retrieved_but_misread | wrong_answer."""
    if score is None:
        return "unscored"
    if score >= 1.0:
        return "ok"
    if found_any == 0.0:
        return "not_retrieved"
    if found_all == 0.0:
        return "partially_retrieved"
    if _answer_in(result.get("answer"), result.get("hypothesis")):
        return "judged_wrong"  # the gold answer is in the reply: the grader, not the memory, disagreed
    return "retrieved_but_misread" if found_all == 1.0 else "wrong_answer"


def _answer_in(answer: Any, hypothesis: Any) -> bool:
    from benchmarker.eval.normalize import ARTICLES, token_texts

    def words(text: Any) -> str:  # articles dropped: "the Eiffel Tower" is in "Eiffel Tower"
        return " ".join(t for t in token_texts(str(text or "")) if t not in ARTICLES)

    gold, reply = words(answer), words(hypothesis)
    return len(gold) >= 2 and f" {gold} " in f" {reply} "  # whole tokens: "2 times" is not in "12 times"


def split_ids(rows: dict[str, dict[str, Any]], fraction: float, seed: int) -> dict[str, list[str]]:
    """Training / held-out question ids, stratified by question type, deterministic in `seed`."""
    by_type: dict[str, list[str]] = defaultdict(list)
    for qid in sorted(rows):
        if rows[qid]["score"] is not None:
            by_type[rows[qid]["type"]].append(qid)
    train: list[str] = []
    holdout: list[str] = []
    carry = 0.0  # rounding remainder carried across types keeps the overall fraction
    for qtype in sorted(by_type):
        ids = by_type[qtype]
        random.Random(f"{seed}:{qtype}").shuffle(ids)
        want = len(ids) * fraction + carry
        k = int(want + 0.5)
        if len(ids) >= 2:
            k = min(max(k, 1), len(ids) - 1)  # both sides see every type that has two questions
        k = min(k, len(ids))
        carry = want - k
        holdout += ids[:k]
        train += ids[k:]
    if not train or not holdout:
        raise UserError(f"the self-improve loop needs scored questions on both sides of the split; got "
                        f"{len(train)} training and {len(holdout)} held-out (select more questions)")
    return {"train": sorted(train), "holdout": sorted(holdout)}


def split_score(rows: dict[str, dict[str, Any]], ids: list[str]) -> dict[str, Any]:
    """Mean score over the ids that have one."""
    scores = [rows[i]["score"] for i in ids if i in rows and rows[i]["score"] is not None]
    return {"n": len(scores), "score": round(sum(scores) / len(scores), 4) if scores else None}
