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
from typing import Any, Iterable

CAUSES = ("not_written", "not_retrieved", "misread", "judged_wrong", "answered_unanswerable", "no_evidence")
WRITERS = ("agent", "retrieval", "replay", "harness")
EXAMPLES_PER_CAUSE = 3


def written_turns(decisions: Iterable[dict[str, Any]], memory_ids: dict[str, str]) -> dict[str, set[tuple[str, int]]]:
    """Per case, the (session_id, turn_index) of every message an entry was written for, counting only
    writes into the case's finished memory (`memory_ids`: case id -> memory id)."""
    out: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for call in decisions:
        if call.get("tool") != "add_entry" or call.get("error") or call.get("caller") not in WRITERS:
            continue
        args = call.get("args") or {}
        case_id = call.get("case_id")
        if memory_ids.get(case_id) not in (None, args.get("memory_id")):
            continue
        tags = args.get("tags") or {}
        session, turn = tags.get("session_id") or call.get("session_id"), tags.get("turn_index", call.get("turn"))
        try:
            out[case_id].add((str(session), int(turn)))
        except (TypeError, ValueError):
            continue
    return out


def _contains_answer(hypothesis: str, answer: Any) -> bool:
    from benchmarker.eval.normalize import clean

    gold, said = clean(str(answer)), clean(str(hypothesis))
    return bool(gold) and gold in said


def diagnose(result: dict[str, Any], written: set[tuple[str, int]]) -> str:
    """The cause of one wrong answer (CAUSES)."""
    if result.get("is_abstention"):
        from benchmarker.eval.abstention import abstains

        return "judged_wrong" if abstains(str(result.get("hypothesis", ""))) else "answered_unanswerable"
    evidence = {(str(s), int(t)) for s, t in result.get("evidence_turns") or result.get("evidence_messages") or []}
    if not evidence:
        return "no_evidence"
    if not evidence & written:
        return "not_written"
    hits = {(str(h.get("session_id")), int(h["turn_index"])) for h in result.get("retrieved") or []
            if h.get("turn_index") is not None}
    if not evidence & hits:
        return "not_retrieved"
    return "judged_wrong" if _contains_answer(result.get("hypothesis", ""), result.get("answer")) else "misread"


def analyse(results: list[dict[str, Any]], decisions: list[dict[str, Any]],
            memory_ids: dict[str, str]) -> dict[str, Any]:
    """summary.json's "analyst" block: counts per cause, per category, and a few examples each."""
    written = written_turns(decisions, memory_ids)
    wrong = [r for r in results if r.get("label") is False]
    counts: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in wrong:
        cause = diagnose(result, written.get(result.get("case_id"), set()))
        counts[cause] += 1
        by_category[result.get("category") or result.get("question_type") or "uncategorised"][cause] += 1
        if len(examples[cause]) < EXAMPLES_PER_CAUSE:
            examples[cause].append({"question_id": result.get("question_id"), "question": result.get("question"),
                                    "answer": result.get("answer"), "hypothesis": str(result.get("hypothesis"))[:300]})
    return {"wrong": len(wrong), "counts": {c: counts.get(c, 0) for c in CAUSES},
            "by_category": {cat: {c: n for c, n in sorted(causes.items())} for cat, causes in sorted(by_category.items())},
            "examples": dict(examples),
            "rule": "first failing stage: written -> retrieved -> read -> judged (any evidence message counts)"}


def analyst_section(block: dict[str, Any]) -> str:
    """The report's "Where answers were lost" section."""
    lines = [f"{block['wrong']} wrong answers, by the first stage that did not hold ({block['rule']}).", "",
             "| cause | answers |", "|---|---|"]
    lines += [f"| {cause} | {n} |" for cause, n in block["counts"].items() if n]
    if block["by_category"]:
        lines += ["", "| category | " + " | ".join(CAUSES) + " |", "|---|" + "---|" * len(CAUSES)]
        lines += [f"| {cat} | " + " | ".join(str(c.get(cause, 0)) for cause in CAUSES) + " |"
                  for cat, c in block["by_category"].items()]
    for cause, rows in block["examples"].items():
        lines += ["", f"**{cause}**", ""]
        lines += [f"- `{r['question_id']}`: {r['question']} gold: {r['answer']!s}; said: {r['hypothesis']}" for r in rows]
    return "\n".join(lines)


def finished_memories(memories: Iterable[dict[str, Any]]) -> dict[str, str]:
    """case id -> the memory id of its newest ingested attempt (memories.jsonl lines)."""
    best: dict[str, tuple[int, str]] = {}
    for line in memories:
        if line.get("status") == "ingested" and line.get("attempt", 0) >= best.get(line["case_id"], (-1, ""))[0]:
            best[line["case_id"]] = (line.get("attempt", 0), line.get("memory_id", ""))
    return {case: memory for case, (_, memory) in best.items()}
