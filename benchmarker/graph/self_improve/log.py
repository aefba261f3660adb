"""`<run_dir>/self_improve.jsonl` (one line per iteration) and `self_improve/best.json`.

A line is written by DECIDE; a resumed loop that re-runs DECIDE for an iteration already
logged writes nothing, so the file never holds an iteration twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from benchmarker.graph.self_improve.shapes import Brief, Candidate, IterationLine, Outcome, Stats
from benchmarker.graph.self_improve.state import LoopState
from benchmarker.log.jsonl import JsonlWriter, read_jsonl, write_json_atomic
from benchmarker.log.records import SelfImproveRecord

LOG_NAME = SelfImproveRecord.FILE
_PROPOSAL_KEYS = ("kind", "delta", "diff", "files", "rationale", "source", "move", "refused", "note")
# "analysis": which causes ANALYZE used ("analyst" or "retrieval"); retrieval_causes are kept beside the analyst's
_ANALYSIS_KEYS = ("n", "score", "failures", "causes", "dominant_cause", "worst")
_ANALYSIS_EXTRA = ("analysis", "retrieval_causes", "target_cause")


def brief(candidate: Candidate | None) -> Brief | None:
    if candidate is None:
        return None
    return {"index": candidate.get("index"), "key": candidate.get("key"), "tunables": candidate.get("tunables"),
            "dir": candidate.get("dir"), "train": candidate.get("train"), "holdout": candidate.get("holdout")}


def iteration_line(state: LoopState, outcome: Outcome, stats: Stats | None, new_best: Candidate) -> IterationLine:
    """Everything one iteration did: the diff or delta, the critique, the votes, the scores, the decision."""
    proposal = state.get("proposal")
    analysis = state.get("analysis") or {}
    vote = state.get("vote")
    return cast(IterationLine, SelfImproveRecord.model_validate({
        "iteration": state["iteration"],
        "decision": outcome["decision"], "stage": outcome["stage"], "reason": outcome["reason"],
        "proposal": None if proposal is None else {k: proposal.get(k) for k in _PROPOSAL_KEYS if k in proposal},
        "analysis": {k: analysis.get(k) for k in _ANALYSIS_KEYS}
                    | {k: analysis.get(k) for k in _ANALYSIS_EXTRA if k in analysis},
        "challenge": state.get("challenge"),
        "votes": vote.get("votes") if vote else None, "vote_passed": vote.get("passed") if vote else None,
        "base": brief(state["best"]), "candidate": brief(state.get("candidate")), "stats": stats,
        "best": brief(new_best), "start": brief(state["start"]),
    }).to_line())  # the record checks the line; its dump is the line's shape


def append_iteration(run_dir: Path, line: IterationLine) -> bool:
    """Append unless this iteration is already logged; True when written."""
    path = run_dir / LOG_NAME
    if any(old.get("iteration") == line["iteration"] for old in read_jsonl(path)):
        return False
    writer = JsonlWriter(path, durable=True)
    try:
        writer.write(dict(line))
    finally:
        writer.close()
    return True


def write_best(root: Path, best: Candidate, start: Candidate) -> None:
    """The configuration in force, with the config lines that reproduce it."""
    t = best["tunables"]
    toml = [f"[params]\ntop_k = {t['top_k']}"]
    if t.get("context_cadence") is not None:
        toml.append(f"context_cadence = {t['context_cadence']}")
    if t.get("alpha") is not None:
        toml.append(f"[memory]\nsearch_alpha = {t['alpha']}")
    write_json_atomic(root / "best.json", {
        **(brief(best) or {}), "start": brief(start), "toml": "\n".join(toml) + "\n",
        "prompts": f"{best['dir']}/prompts (to use them, copy them over a full prompts/ folder and point "
                   "MYCELIAN_LME_PROMPTS_DIR at it)",
    })
