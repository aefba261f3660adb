"""Run directories for the run browser's tests, written file by file (no benchmark is run).

`write_runs(root)` makes:
    run-a/                 finished LongMemEval-like run: one question per attribution stage, an unjudged
                           one, an XSS question, a re-judged line (the last wins) and a torn last line;
                           decisions, oracle answers, graders, errors, plots (one a symlink leading outside)
    run-a/points/alpha=0.5 a sweep point
    run-b/                 the same questions later: q-correct regressed, q-not-used improved
    run-live/              in progress (no ended_at)
    run-evil/              results.jsonl is a symlink to a file outside the served folder
    calibration/llm/       a judge calibration
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

XSS_QUESTION = "<script>alert(1)</script> Where did I park?"
XSS_HYPOTHESIS = "<img src=x onerror=alert(1)> on level 3"
SECRET_LOOKING = "https://user:hunter2secret@example.com/x"

# qid: (type, label in A, stage in A, label in B, stage in B, written, hit rank of the evidence turn)
QUESTIONS: dict[str, tuple[str, bool | None, str, bool | None, str, bool, int | None]] = {
    "q-correct": ("single-session-user", True, "correct", False, "not_retrieved", True, 1),
    "q-false_abs": ("single-session-user", False, "false_answer", False, "false_answer", True, None),
    "q-not-written": ("multi-session", False, "not_written", False, "not_written", False, None),
    "q-not-retrieved": ("multi-session", False, "not_retrieved", False, "not_retrieved", True, None),
    "q-not-used": ("temporal-reasoning", False, "not_used", True, "correct", True, 2),
    "q-no-evidence": ("temporal-reasoning", False, "no_evidence", False, "no_evidence", False, None),
    "q-unattributed": ("knowledge-update", False, "unattributed", False, "unattributed", False, None),
    "q-unjudged": ("knowledge-update", None, "", None, "", True, 1),
    "q-xss": ("single-session-user", False, "not_used", False, "not_used", True, 1),
}


def _png() -> bytes:
    """A valid 1x1 PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def _gold(qid: str) -> str:
    return f"I parked the blue car on level 3 of the Elm Street garage ({qid})."


def result(qid: str, run: str) -> dict[str, Any]:
    qtype, label_a, stage_a, label_b, stage_b, _, rank = QUESTIONS[qid]
    label, stage = (label_a, stage_a) if run == "a" else (label_b, stage_b)
    evidence = qid != "q-no-evidence"
    session = f"s-{qid}"
    hits = [{"entry_id": f"e{i}", "score": round(1 - i / 10, 2), "rank": i, "session_id": session if i == rank else f"other-{i}",
             "session_date": "2023/05/01 (Mon) 10:00", "turn_index": 0 if i == rank else i, "role": "user",
             "summary": f"summary of hit {i}" + (f": {_gold(qid)}" if i == rank else ""),
             "raw_preview": _gold(qid) if i == rank else f"unrelated chatter number {i} about the weather"}
            for i in range(1, 6)]
    line: dict[str, Any] = {
        "question_id": qid, "case_id": qid, "question_type": qtype, "kind": "longmemeval",
        "is_abstention": qid.endswith("_abs"),
        "question": XSS_QUESTION if qid == "q-xss" else f"Where did I park the car? ({qid})",
        "answer": {"text": "level 3"} if qid == "q-not-used" else "level 3", "question_date": "2023/05/20 (Sat) 09:00",
        "hypothesis": XSS_HYPOTHESIS if qid == "q-xss" else f"You parked on level {3 if label else 5}. {SECRET_LOOKING}",
        "label": label,
        "grade": {"judge": "llm", "model": "gpt-4o-mini", "reason": f"judge said {'yes' if label else 'no'}",
                  "reply": "yes" if label else "no", "score": None},
        "retrieved": hits, "evidence_turns": [[session, 0]] if evidence else [],
        "evidence": [{"session_id": session, "turn_index": 0, "role": "user", "content": _gold(qid)}] if evidence else [],
        "timings": {"ingest_s": 1.5, "qa_s": 0.8, "search_ms": 12.0, "eval_s": 0.3},
        "tokens": {"qa": {"input": 1200, "output": 40}}, "cost_usd": {"qa": 0.0004},
        "attribution": stage or None, "evidence_seen": "1 of 1" if rank else "0 of 1",
        "evidence_written": "1 of 1" if QUESTIONS[qid][5] else "0 of 1",
        "reader_context": "## Memory context\n- the user drives a blue car\n" + (_gold(qid) if rank else ""),
    }
    if qid == "q-unattributed":
        line["agent"] = "outside"
        del line["retrieved"]
    return line


def _decisions(qids: list[str]) -> list[dict[str, Any]]:
    out = []
    for qid in qids:
        session = f"s-{qid}"
        out.append({"schema_version": 1, "case_id": qid, "caller": "agent", "tool": "get_context", "question_id": qid,
                    "session_id": session, "turn": 0, "args": {}, "result_preview": "ctx", "latency_ms": 3.2, "error": None})
        if QUESTIONS[qid][5]:
            out.append({"schema_version": 1, "case_id": qid, "caller": "agent", "tool": "add_entry", "question_id": qid,
                        "session_id": session, "turn": 0,
                        "args": {"raw_entry": f"user: {_gold(qid)}", "summary": f"Parked on level 3 ({qid})",
                                 "tags": {"session_id": session, "turn_index": 0}},
                        "result_preview": "ok", "latency_ms": 8.5, "error": None})
        out.append({"case_id": qid, "caller": "harness", "tool": "search_memories", "question_id": qid,
                    "session_id": None, "turn": None, "args": {"query": "car"}, "result_preview": "5 hits",
                    "latency_ms": 20.0, "error": None})
    return out


def _summary(run_id: str, lines: list[dict[str, Any]], oracle: bool) -> dict[str, Any]:
    judged = [x for x in lines if x["label"] is not None]
    correct = sum(bool(x["label"]) for x in judged)

    def cell(n: int, c: int) -> dict[str, Any]:
        return {"n": n, "correct": c, "accuracy": c / n if n else None, "ci95": [0.1, 0.6], "unjudged": 0}
    types = sorted({x["question_type"] for x in lines})
    by_type = {t: cell(sum(1 for x in judged if x["question_type"] == t),
                       sum(1 for x in judged if x["question_type"] == t and x["label"])) for t in types}
    stages = [x["attribution"] for x in judged]
    counts = {s: stages.count(s) for s in ("correct", "false_answer", "not_written", "not_retrieved", "not_used",
                                          "no_evidence", "unattributed")}
    summary: dict[str, Any] = {
        "run_id": run_id, "qa": {"overall": cell(len(judged), correct), "by_type": by_type},
        "retrieval": {"metrics": {"session.recall_any@5": 0.8, "turn.recall_any@10": 0.7, "turn.recall_any@30": None}},
        "cost": {"usd": {"agent": 0.01, "qa": 0.002, "total": 0.012}}, "counts": {"questions": len(lines)},
        "attribution": {"stages": list(counts), "n": len(judged), "counts": counts,
                        "shares": {s: c / len(judged) for s, c in counts.items()}, "lost": 3,
                        "by_type": {t: {"n": by_type[t]["n"], "counts": counts, "shares": {}} for t in types},
                        "write_match": "tags or text", "seen_match": "hit or context", "notes": ["a note <b>bold</b>"]}}
    if oracle:
        summary["oracle"] = {"overall": cell(len(judged), len(judged) - 1), "by_type": by_type}
    return summary


def _jsonl(path: Path, lines: list[dict[str, Any]], tail: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail, encoding="utf-8")


def _manifest(run_id: str, started: str, ended: str | None) -> dict[str, Any]:
    return {"run_id": run_id, "started_at": started, **({"ended_at": ended} if ended else {}),
            "dataset": {"kind": "longmemeval", "questions": len(QUESTIONS)},
            "models": {"agent": "gpt-4o-mini", "qa": "gpt-4o-mini", "offline": False}, "config_path": "configs/x.toml"}


def write_run(folder: Path, run: str, started: str, ended: str | None = "2024-01-01T11:00:00+00:00") -> None:
    qids = list(QUESTIONS)
    lines = [result(q, run) for q in qids]
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps(_manifest(folder.name, started, ended)))
    (folder / "summary.json").write_text(json.dumps(_summary(folder.name, lines, oracle=run == "a")))
    # q-correct first judged wrong, then re-judged: the last line wins; then a torn line mid-write.
    first = {**result("q-correct", run), "label": not lines[0]["label"]}
    _jsonl(folder / "results.jsonl", [first] + lines, tail='{"question_id": "q-torn", "label": tr')
    _jsonl(folder / "decisions.jsonl", _decisions(qids))
    _jsonl(folder / "oracle" / "results.jsonl", [{**result(q, run), "hypothesis": f"oracle says level 3 ({q})", "label": True,
                                                  "grade": {"judge": "llm", "reason": "oracle judged correct"}}
                                                 for q in qids])
    _jsonl(folder / "graders.jsonl", [{"question_id": q, "perspective": "strict", "status": "graded", "label": True,
                                       "score": 1.0, "reason": "strict grader agrees"} for q in qids])
    _jsonl(folder / "errors.jsonl", [{"case_id": "q-not-written", "error": "TimeoutError: memory call past 30 s"}])
    (folder / "plots").mkdir()
    (folder / "plots" / "accuracy_by_type.png").write_bytes(_png())


def write_runs(root: Path) -> Path:
    """The served folder (root/runs) and, beside it, a file outside it that symlinks point at."""
    runs = root / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    point = runs / "run-a" / "points" / "alpha=0.5"
    _jsonl(point / "results.jsonl", [result(q, "a") for q in QUESTIONS])
    (point / "summary.json").write_text(json.dumps(_summary("run-a", [result(q, "a") for q in QUESTIONS], oracle=False)))
    write_run(runs / "run-b", "b", "2024-01-02T10:00:00+00:00")
    write_run(runs / "run-live", "a", "2024-01-03T10:00:00+00:00", ended=None)
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET outside the served folder\n")
    _jsonl(outside / "results.jsonl", [{**result("q-correct", "a"), "question": "TOP SECRET question"}])
    (runs / "run-a" / "plots" / "evil.png").symlink_to(outside / "secret.txt")
    (runs / "run-evil").mkdir()
    (runs / "run-evil" / "results.jsonl").symlink_to(outside / "results.jsonl")
    calibration = runs / "calibration" / "llm"
    calibration.mkdir(parents=True)
    (calibration / "calibration.json").write_text(json.dumps({
        "judge": {"label": "llm", "kind": "llm", "model": "gpt-4o-mini"}, "n": 20, "agreement": 0.9, "kappa": 0.78,
        "kappa_ci95": [0.6, 0.9], "unjudged": 0,
        "by_type": {"multi-session": {"n": 10, "agreement": 0.8, "kappa": 0.6, "precision": 0.9, "recall": 0.8, "unjudged": 0}}}))
    _jsonl(calibration / "calibration.jsonl", [{"question_id": "cal-1", "question_type": "multi-session", "file": "x.jsonl",
                                                "line": 3, "question": "How many?", "gold": "3", "answer": "4",
                                                "label": False, "verdict": True, "reason": "judge said yes"}])
    return runs
