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

With `[multi_agent] analyst = true` every row also gets `analyst_cause`: the analyst's
diagnosis (scoring/analyst.py) of where the pipeline lost the answer, from the write trace of the
ingestion the candidate searched and the candidate's own results. What each candidate truly has:
- its results (hits, hypothesis, label) are its own, so not_retrieved / misread / judged_wrong
  are the candidate's;
- the write trace (decisions.jsonl add_entry calls, tagged session_id / turn_index, into the
  case's finished memory in memories.jsonl) is that of the ingestion it searched. A candidate
  that shares the run's ingestion (every candidate in retrieval mode; top_k, alpha or the QA
  prompt in agent mode) is diagnosed against the run's own trace: nothing was re-ingested, so
  its not_written questions are exactly the run's, and no such candidate can change them. A
  candidate ingested afresh (agent mode: context cadence or the memory agent's prompts) is
  diagnosed against its own ingestion's trace (`self_improve/ingest/<ingest key>/`).
When that ingestion recorded no add_entry at all (a memory server mapped to other write tools,
or an outside agent), the trace cannot show what was written and no analyst cause is added.
Kept as the analyst says, except: "no_evidence" (nothing to trace) keeps the retrieval cause,
and in retrieval mode (nothing is read or judged, a failure is missing evidence) only
"not_written" replaces the retrieval cause. `cause` always stays the retrieval-metric cause.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.errors import UserError
from benchmarker.graph.self_improve.candidate import ingest_key, prompts_of
from benchmarker.graph.self_improve.shapes import Candidate, QuestionRow, Scores, SplitScore
from benchmarker.log.jsonl import write_json_atomic
from benchmarker.log.lines import ResultLine
from benchmarker.redact import masked_preview

if TYPE_CHECKING:
    from benchmarker.graph.state import Setup

SCORES_FILE = "scores.json"
ATTEMPT_STRIDE = 100  # candidate n's fresh memories use attempts from 100 * n up: titles never collide
TEXT_CHARS = 300


def eval_dir(root: Path, candidate: Candidate) -> Path:
    return root / "evals" / candidate["key"]


def load_scores(root: Path, candidate: Candidate) -> Scores | None:
    path = eval_dir(root, candidate) / SCORES_FILE
    if not path.exists():
        return None
    questions: Scores = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return questions


async def evaluate(ctx, root: Path, candidate: Candidate, baseline: Candidate, setup: Setup) -> Scores:
    """{question_id: row} for the candidate (row: score, type, category, level, cause, texts)."""
    cached = load_scores(root, candidate)
    if cached is not None:
        return cached
    if candidate["key"] == baseline["key"] and {"qa", "eval"} <= set(ctx.phases):
        results = ctx.log.load_results()
    else:
        results = await _run_candidate(ctx, root, candidate, baseline, setup)
    rows = {r["question_id"]: question_row(r, ctx.mode) for r in results}
    if ctx.multi_agent.analyst:
        written = written_turns_in(ingestion_dir(ctx, root, candidate, baseline))
        if written is not None:
            add_analyst_causes(rows, results, written, ctx.mode)
    write_json_atomic(eval_dir(root, candidate) / SCORES_FILE,
                      {"key": candidate["key"], "tunables": candidate["tunables"], "mode": ctx.mode,
                       "questions": rows})
    return rows


async def _run_candidate(ctx, root: Path, candidate: Candidate, baseline: Candidate,
                         setup: Setup) -> list[ResultLine]:
    from benchmarker.graph.build import run_cases
    from benchmarker.graph.context import RunPoint, SearchSettings
    from benchmarker.graph.progress import RunProgress
    from benchmarker.log.store import RunLog

    answers = eval_dir(root, candidate)
    key = ingest_key(candidate, ctx.mode)
    run_done = ctx.log.done
    if key == ingest_key(baseline, ctx.mode):
        log = RunLog(answers)
        log.done.memories = {cid: m for cid, m in run_done.memories.items() if m.ingested}
        phases: tuple[str, ...] = ("qa", "eval")
    else:
        log = RunLog(root / "ingest" / key, answers_dir=answers)
        floor = ATTEMPT_STRIDE * candidate["index"]
        for cid in set(run_done.max_attempt) | set(log.done.max_attempt):
            log.done.max_attempt[cid] = max(log.done.max_attempt.get(cid, 0), run_done.max_attempt.get(cid, 0) + floor)
        phases = ("ingest", "qa", "eval")
    tunables = candidate["tunables"]
    point = RunPoint(search=SearchSettings(top_k=tunables["top_k"], alpha=tunables.get("alpha"),
                                           label=f"self-improve-{candidate['index']}"),
                     phases=phases, prompts_dir=prompts_of(root, candidate),
                     context_cadence=tunables.get("context_cadence"))
    derived = dataclasses.replace(ctx, log=log, point=point, progress=RunProgress(0, enabled=False, stats=dict))
    try:
        await run_cases(ctx.executor.cases(), derived, setup)  # a failed case is logged and simply has no score
    finally:
        log.close()
    return log.load_results()


def ingestion_dir(ctx, root: Path, candidate: Candidate, baseline: Candidate) -> Path:
    """Where the memories the candidate searched were written (memories.jsonl, decisions.jsonl):
    the run's own directory, or the candidate's fresh ingestion (as `_run_candidate` chooses)."""
    key = ingest_key(candidate, ctx.mode)
    return ctx.log.run_dir if key == ingest_key(baseline, ctx.mode) else root / "ingest" / key


def written_turns_in(directory: Path) -> dict[str, set[tuple[str, int]]] | None:
    """Per case, the (session_id, turn_index) the ingestion in `directory` wrote an entry for (into the
    case's finished memory); None when no add_entry was recorded at all (no write trace to read)."""
    from benchmarker.log.jsonl import read_decisions, read_memories
    from benchmarker.scoring.analyst import finished_memories, written_turns

    decisions = [d for d in read_decisions(directory / "decisions.jsonl") if d.get("tool") == "add_entry"]
    if not decisions:
        return None
    return written_turns(decisions, finished_memories(read_memories(directory / "memories.jsonl")))


def add_analyst_causes(rows: Scores, results: Sequence[ResultLine],
                       written: dict[str, set[tuple[str, int]]], mode: str) -> None:
    """Set `analyst_cause` on every row of `results` (ok / unscored for the ones that did not fail)."""
    for result in results:
        row = rows.get(result["question_id"])
        if row is not None:
            row["analyst_cause"] = analyst_cause(row, result, written.get(result.get("case_id", ""), set()), mode)


def analyst_cause(row: QuestionRow, result: ResultLine, written: set[tuple[str, int]], mode: str) -> str:
    """The analyst's cause of a failing row (see the module docstring for the two exceptions)."""
    from benchmarker.scoring.analyst import diagnose

    if row["score"] is None:
        return "unscored"
    if row["score"] >= 1.0:
        return "ok"
    cause = diagnose(result, written)
    if cause == "not_written":
        return cause
    if cause == "no_evidence" or mode == "retrieval":
        return row["cause"]
    return cause


def question_row(result: ResultLine, mode: str) -> QuestionRow:
    """The per-question facts ANALYZE and DECIDE use, from one results line."""
    from benchmarker.scoring.retrieval_metrics import question_retrieval

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
            "question": masked_preview(str(result.get("question") or ""), TEXT_CHARS),
            "answer": masked_preview(str(result.get("answer") or ""), TEXT_CHARS),
            "hypothesis": masked_preview(str(result.get("hypothesis") or ""), TEXT_CHARS)}


def failure_cause(score: float | None, found_any: float | None, found_all: float | None,
                  result: ResultLine) -> str:
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
    from benchmarker.scoring.normalize import ARTICLES, token_texts

    def words(text: Any) -> str:  # articles dropped: "the Eiffel Tower" is in "Eiffel Tower"
        return " ".join(t for t in token_texts(str(text or "")) if t not in ARTICLES)

    gold, reply = words(answer), words(hypothesis)
    return len(gold) >= 2 and f" {gold} " in f" {reply} "  # whole tokens: "2 times" is not in "12 times"


def split_ids(rows: Scores, fraction: float, seed: int) -> dict[str, list[str]]:
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


def split_score(rows: Scores, ids: list[str]) -> SplitScore:
    """Mean score over the ids that have one."""
    scores = [score for i in ids if i in rows and (score := rows[i]["score"]) is not None]
    return {"n": len(scores), "score": round(sum(scores) / len(scores), 4) if scores else None}
