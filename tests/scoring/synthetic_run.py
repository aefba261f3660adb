"""Hand-built results lines and run directories for summary, compare and report tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarker.scoring.grade import Grade

TYPES = ["single-session-user", "single-session-assistant", "single-session-preference", "multi-session",
         "temporal-reasoning", "knowledge-update"]


def result(qid: str, qtype: str, label: bool | None, *, judge: str = "llm", hits: list | None = None,
           evidence: list[str] | None = None, top_k: int = 10, kind: str = "longmemeval") -> dict[str, Any]:
    """One results line in the documented shape."""
    evidence = evidence if evidence is not None else [f"{qid}-s1"]
    record = {
        "schema_version": 1, "case_id": qid, "question_id": qid, "question_type": qtype, "kind": kind,
        "is_abstention": qid.endswith("_abs"), "question": f"What about {qid}? | pipes too",
        "answer": f"answer of {qid}", "question_date": "2023/05/30 (Tue) 23:40",
        "hypothesis": f"I think it is <b>{qid}</b>", "answer_session_ids": evidence,
        "evidence_turns": [[s, 1] for s in evidence], "top_k": top_k, "context_chars": 1200,
        "retrieved": hits, "timings": {"ingest_s": 2.0, "qa_s": 0.5, "eval_s": 0.1},
        "tokens": {"agent": {"input": 1000, "output": 100}, "qa": {"input": 500, "output": 20},
                   "eval": {"input": 50, "output": 1}},
        "cost_usd": {"agent": 0.01, "qa": 0.005, "eval": 0.0005},
        "tool_latency_ms": [10.0, 20.0, 30.0],
    }
    model = None if judge == "deterministic" else "gpt-4o-mini"
    record.update(Grade(label=label, judge=judge, model=model, reason="test", attempts=1).line_fields())
    return record


def hits_for(qid: str, found: bool, n: int = 10) -> list[dict[str, Any]]:
    """n ranked hits; the evidence session at rank 2 when `found`."""
    out = []
    for rank in range(1, n + 1):
        session = f"{qid}-s1" if (found and rank == 2) else f"{qid}-other{rank}"
        out.append({"entry_id": f"{qid}-e{rank}", "score": 1 / rank, "rank": rank, "session_id": session,
                    "session_date": "2023/05/20", "turn_index": 1, "role": "user",
                    "summary": f"User said thing {rank} | with a pipe", "raw_preview": f"raw {rank}"})
    return out


def small_run() -> list[dict[str, Any]]:
    """Twelve questions over the six types, two abstentions, one unjudged, mixed retrieval."""
    rows = []
    for i, qtype in enumerate(TYPES):
        rows.append(result(f"q{i}a", qtype, True, hits=hits_for(f"q{i}a", True)))
        rows.append(result(f"q{i}b", qtype, i % 2 == 0, hits=hits_for(f"q{i}b", i % 3 == 0)))
    rows.append(result("q9_abs", "multi-session", True, hits=hits_for("q9_abs", False)))
    rows.append(result("q8", "temporal-reasoning", None, hits=hits_for("q8", True)))
    return rows


def write_run(run_dir: Path, results: list[dict[str, Any]], run_id: str | None = None) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / "results.jsonl", "w", encoding="utf-8") as fh:
        for r in results:
            fh.write(json.dumps(r) + "\n")
    if run_id:
        (run_dir / "manifest.json").write_text(json.dumps({"run_id": run_id}), encoding="utf-8")
    return run_dir
