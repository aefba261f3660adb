"""The analyst: for each wrong answer, where the memory pipeline lost it, decided from the run's logs.

A wrong answer failed at the first stage that did not hold (issue 17, deterministic part):

    not_written     no entry was written while an evidence message was being ingested (the
                    writes' tags name the message: decisions.jsonl, add_entry by the agent, the
                    retrieval-mode harness or a replay, into the case's finished memory)
    not_retrieved   an evidence message was written, but no retrieved hit comes from one
    misread         an evidence hit was retrieved, and the answer still misses the gold answer
    judged_wrong    the hypothesis contains the gold answer, yet the judge said wrong (check the judge)
    answered_unanswerable   an abstention question got an answer instead of "I don't know"
    no_evidence     the question records no evidence turns (in-house suites without per-turn
                    evidence): nothing to trace

"Any" evidence message counts (a multi-session question whose evidence was half written shows
as not_retrieved or misread, not as not_written). Counts per cause overall and per category,
with examples, go to summary.json under "analyst" and to a report section.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, NotRequired, TypedDict

from benchmarker.log.lines import DecisionLine, Json, MemoryLine, ResultLine
from benchmarker.memory.tool_mapping import render
from benchmarker.scoring.entry_match import turn_number

CAUSES = ("not_written", "not_retrieved", "misread", "judged_wrong", "answered_unanswerable", "no_evidence")
WRITERS = ("agent", "retrieval", "replay", "harness")
EXAMPLES_PER_CAUSE = 3


class Example(TypedDict):
    """One wrong answer shown under its cause; a model's explanation and fix once analyst.jsonl has them."""

    question_id: str | None
    question: str | None
    answer: Json
    hypothesis: str
    explanation: NotRequired[str]
    fix: NotRequired[str]


class AnalystBlock(TypedDict):
    """summary.json's `analyst`, in the order its keys are written."""

    wrong: int
    counts: dict[str, int]
    by_category: dict[str, dict[str, int]]
    examples: dict[str, list[Example]]
    rule: str
    explained: NotRequired[int]


class ExplanationLine(TypedDict, total=False):
    """An analyst.jsonl line: a model's explanation of one wrong answer's diagnosis."""

    schema_version: int
    question_id: str
    case_id: str | None
    cause: str
    status: str            # "explained" | "unparsed"
    explanation: str
    fix: str
    error: str


def written_turns(decisions: Iterable[DecisionLine], memory_ids: dict[str, str]) -> dict[str, set[tuple[str, int]]]:
    """Per case, the (session_id, turn_index) of every message an entry was written for, counting only
    writes into the case's finished memory (`memory_ids`: case id -> memory id)."""
    out: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for call in decisions:
        if call.get("tool") != "add_entry" or call.get("error") or call.get("caller") not in WRITERS:
            continue
        args = call.get("args") or {}
        case_id = call.get("case_id", "")
        if memory_ids.get(case_id) not in (None, args.get("memory_id")):
            continue
        tags = raw if isinstance(raw := args.get("tags"), dict) else {}
        session, turn = tags.get("session_id") or call.get("session_id"), tags.get("turn_index", call.get("turn"))
        try:
            out[case_id].add((str(session), int(turn)))  # type: ignore[arg-type]  # None, a list: TypeError, skipped
        except (TypeError, ValueError, OverflowError):
            continue
    return out


def _contains_answer(hypothesis: str, answer: Json) -> bool:
    from benchmarker.scoring.normalize import clean

    gold, said = clean(str(answer)), clean(str(hypothesis))
    return bool(gold) and gold in said


def diagnose(result: ResultLine, written: set[tuple[str, int]]) -> str:
    """The cause of one wrong answer (CAUSES)."""
    if result.get("is_abstention"):
        from benchmarker.scoring.abstention import abstains

        return "judged_wrong" if abstains(str(result.get("hypothesis", ""))) else "answered_unanswerable"
    # a pair whose turn is not a whole number ("x", null) is no evidence turn: skipped, never a traceback
    evidence = {(str(p[0]), turn_number(p[1])) for p in result.get("evidence_turns") or result.get("evidence_messages") or []
                if isinstance(p, list | tuple) and len(p) == 2 and turn_number(p[1]) is not None}
    if not evidence:
        return "no_evidence"
    if not evidence & written:
        return "not_written"
    hits = {(str(h.get("session_id")), turn_number(h.get("turn_index"))) for h in result.get("retrieved") or []
            if isinstance(h, dict) and turn_number(h.get("turn_index")) is not None}
    if not evidence & hits:
        return "not_retrieved"
    return "judged_wrong" if _contains_answer(result.get("hypothesis", ""), result.get("answer")) else "misread"


def analyse(results: Sequence[ResultLine], decisions: Iterable[DecisionLine],
            memory_ids: dict[str, str]) -> AnalystBlock:
    """summary.json's "analyst" block: counts per cause, per category, and a few examples each."""
    written = written_turns(decisions, memory_ids)
    wrong = [r for r in results if r.get("label") is False]
    counts: Counter[str] = Counter()
    by_category: dict[str | int, Counter[str]] = defaultdict(Counter)   # LoCoMo's categories are numbers
    examples: dict[str, list[Example]] = defaultdict(list)
    for result in wrong:
        cause = diagnose(result, written.get(result.get("case_id", ""), set()))
        counts[cause] += 1
        by_category[result.get("category") or result.get("question_type") or "uncategorised"][cause] += 1
        if len(examples[cause]) < EXAMPLES_PER_CAUSE:
            examples[cause].append({"question_id": result.get("question_id"), "question": result.get("question"),
                                    "answer": result.get("answer"), "hypothesis": str(result.get("hypothesis"))[:300]})
    return {"wrong": len(wrong), "counts": {c: counts.get(c, 0) for c in CAUSES},
            # sorted as read (numbers as numbers), then keyed as JSON writes them
            "by_category": {str(cat): {c: n for c, n in sorted(causes.items())}
                            for cat, causes in sorted(by_category.items())},
            "examples": dict(examples),
            "rule": "first failing stage: written -> retrieved -> read -> judged (any evidence message counts)"}


def analyst_section(block: AnalystBlock) -> str:
    """The report's "Where answers were lost" section."""
    explained = f" {block['explained']} explained by a model (analyst.jsonl)." if block.get("explained") else ""
    lines = [f"{block['wrong']} wrong answers, by the first stage that did not hold ({block['rule']}).{explained}", "",
             "| cause | answers |", "|---|---|"]
    lines += [f"| {cause} | {n} |" for cause, n in block["counts"].items() if n]
    if block["by_category"]:
        lines += ["", "| category | " + " | ".join(CAUSES) + " |", "|---|" + "---|" * len(CAUSES)]
        lines += [f"| {cat} | " + " | ".join(str(c.get(cause, 0)) for cause in CAUSES) + " |"
                  for cat, c in block["by_category"].items()]
    for cause, rows in block["examples"].items():
        lines += ["", f"**{cause}**", ""]
        for r in rows:
            lines.append(f"- `{r['question_id']}`: {r['question']} gold: {r['answer']!s}; said: {r['hypothesis']}")
            if r.get("explanation"):
                lines.append(f"  - why (model-written): {r['explanation']}" + (f" Fix: {r['fix']}" if r.get("fix") else ""))
    return "\n".join(lines)


def finished_memories(memories: Iterable[MemoryLine]) -> dict[str, str]:
    """case id -> the memory id of its newest ingested attempt (memories.jsonl lines)."""
    best: dict[str, tuple[int, str]] = {}
    for line in memories:
        if line.get("status") == "ingested" and line.get("attempt", 0) >= best.get(line["case_id"], (-1, ""))[0]:
            best[line["case_id"]] = (line.get("attempt", 0), line.get("memory_id", ""))
    return {case: memory for case, (_, memory) in best.items()}


# --- optional: a model explains each diagnosis ([multi_agent] analyst_explain) --------------------

EXPLAIN_FILE = "analyst.jsonl"
MEANINGS = {
    "not_written": "no entry was written for any message that states the answer",
    "not_retrieved": "an entry was written, but the search returned none of them",
    "misread": "the search returned an entry that states the answer, and the answer still missed it",
    "judged_wrong": "the answer contains the gold answer, yet the judge said wrong",
    "answered_unanswerable": "the question cannot be answered from the conversation, and it answered anyway",
    "no_evidence": "the dataset names no evidence turns for this question",
}
HITS_SHOWN = 5
TEXT_CHARS = 500


def explain_prompt(result: ResultLine, cause: str, evidence: list[str], template: str) -> str:
    hits = [h.get("raw_entry") or h.get("summary") or "" for h in (result.get("retrieved") or [])[:HITS_SHOWN]]
    values = {"question": str(result.get("question", "")), "gold": str(result.get("answer", "")),
              "hypothesis": str(result.get("hypothesis", ""))[:TEXT_CHARS], "cause": cause,
              "cause_meaning": MEANINGS.get(cause, cause),
              "evidence": "\n".join(f"- {t[:TEXT_CHARS]}" for t in evidence) or "- (none named)",
              "retrieved": "\n".join(f"{i}. {h[:TEXT_CHARS]}" for i, h in enumerate(hits, 1)) or "(nothing)"}
    return render(template, values)


def parse_explanation(text: str) -> dict[str, str]:
    from benchmarker.scoring.json_reply import json_objects

    for obj in json_objects(text):
        if isinstance(obj.get("explanation"), str) and obj["explanation"].strip():
            return {"explanation": obj["explanation"].strip()[:1000], "fix": str(obj.get("fix", "")).strip()[:500]}
    raise ValueError('no JSON object with an "explanation"')


def to_explain(results: Sequence[ResultLine], decisions: Iterable[DecisionLine], memory_ids: dict[str, str],
               done: set[str], limit: int) -> list[tuple[ResultLine, str]]:
    """(result, cause) of the wrong answers to explain: the first `limit` in results order, minus
    those already explained (a resumed run explains the same ones, never more than `limit`)."""
    written = written_turns(decisions, memory_ids)
    wrong = [r for r in results if r.get("label") is False][:limit]
    return [(r, diagnose(r, written.get(r.get("case_id", ""), set()))) for r in wrong if r["question_id"] not in done]


async def explain_run(answers_dir, run_dir, model: Any, *, evidence_texts, template: str, limit: int, retries: int,
                      concurrency: int) -> int:
    """Explain the diagnosis of each wrong answer not explained yet; one durable line each in
    analyst.jsonl. `evidence_texts(results)` gives, per question id, the texts of its evidence
    messages. Returns how many were asked."""
    import asyncio

    from benchmarker.log.jsonl import JsonlWriter, latest_by, read_decisions, read_lines, read_memories, read_results
    from benchmarker.scoring.judge_policy import ask_prompt_until_parsed

    results = latest_by(read_results(answers_dir / "results.jsonl"), "question_id")
    done = {line["question_id"] for line in read_lines(answers_dir / EXPLAIN_FILE, ExplanationLine)}
    pending = to_explain(results, list(read_decisions(run_dir / "decisions.jsonl")),
                         finished_memories(read_memories(run_dir / "memories.jsonl")), done, limit)
    texts = evidence_texts([r for r, _ in pending])
    writer = JsonlWriter(answers_dir / EXPLAIN_FILE, durable=True)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(result: ResultLine, cause: str) -> None:
        prompt = explain_prompt(result, cause, texts.get(result["question_id"], []), template)
        async with semaphore:
            got = await ask_prompt_until_parsed(model, prompt, parse_explanation, retries)
        if got.failed:
            return   # the call failed: left for the next run of the same command
        writer.write({"schema_version": 1, "question_id": result["question_id"], "case_id": result.get("case_id"),
                      "cause": cause, "status": "explained" if got.value else "unparsed",
                      **(got.value or {"explanation": "", "fix": "", "error": got.error})})

    try:
        await asyncio.gather(*(one(r, c) for r, c in pending))
    finally:
        writer.close()
    return len(pending)


def attach_explanations(block: AnalystBlock, lines: Iterable[ExplanationLine]) -> AnalystBlock:
    """The analyst block with each example's explanation and fix, and how many answers were explained."""
    by_id = {line["question_id"]: line for line in lines if line.get("status") == "explained"}
    for rows in block["examples"].values():
        for row in rows:
            if row["question_id"] in by_id:
                row["explanation"], row["fix"] = by_id[row["question_id"]]["explanation"], by_id[row["question_id"]]["fix"]
    block["explained"] = len(by_id)
    return block
