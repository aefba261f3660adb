"""summary.json's `attribution` and, after `oracle RUN_DIR`, its `oracle` block: recomputed from the run's files.

write_outputs (reporting/outputs.py) adds both; they live here so each stays a function of the results lines,
the decisions and the oracle's own files alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypedDict

from benchmarker.log.jsonl import latest_by
from benchmarker.log.lines import DecisionLine, Json, ResultLine
from benchmarker.reporting.summary_model import load_summary
from benchmarker.scoring.attribution_shapes import AttributionSummary
from benchmarker.scoring.qa_metrics import AccuracyCell
from benchmarker.scoring.records import checked_results


class WithEvidence(TypedDict):
    memory: AccuracyCell
    oracle: AccuracyCell


class EvidenceSplit(TypedDict, total=False):
    """summary.json's `oracle.no_evidence` (questions per type) and `oracle.with_evidence` (both accuracies)."""

    no_evidence: dict[str, int]
    with_evidence: WithEvidence


class OracleBlock(EvidenceSplit, total=False):
    """summary.json's `oracle`: the oracle's accuracy, overall and per type (cells as its summary wrote them)."""

    questions: int
    overall: dict[str, Json] | None
    by_type: dict[str, dict[str, Json]]


class AttributionAndOracle(TypedDict, total=False):
    attribution: AttributionSummary
    oracle: OracleBlock


def attribution_and_oracle(results: Sequence[ResultLine], decisions: Iterable[DecisionLine], answers_dir: Path,
                           write_tool: str | None) -> AttributionAndOracle:
    """summary.json's `attribution` (recomputed from results and decisions, never read from the lines) and,
    after `oracle`, its accuracy with the gold evidence only."""
    from benchmarker.scoring.attribution import WRITE_TOOLS, attribute_results, attribution_block

    tools = WRITE_TOOLS | ({write_tool} if write_tool else set())
    stages = {q: a.stage for q, a in attribute_results(results, decisions, frozenset(tools)).items()}
    out: AttributionAndOracle = {}
    block = attribution_block(results, stages)
    if block:
        out["attribution"] = block
    oracle = load_summary(answers_dir / "oracle" / "summary.json").qa
    if oracle is not None and not oracle.is_empty():
        overall = oracle.overall.as_dict() if oracle.overall is not None else None
        out["oracle"] = {"questions": (overall or {}).get("n", 0), "overall": overall,
                         "by_type": {t: cell.as_dict() for t, cell in (oracle.by_type or {}).items()}}
        oracle_path = answers_dir / "oracle" / "results.jsonl"
        oracle_lines = latest_by(checked_results(oracle_path), "question_id") if oracle_path.exists() else []
        out["oracle"] |= without_evidence(results, oracle_lines)
    return out


def without_evidence(results: Sequence[ResultLine], oracle_lines: Sequence[ResultLine]) -> EvidenceSplit:
    """The oracle's judged questions that had no gold evidence, per type (`no_evidence`), and both accuracies over
    the others (`with_evidence`): with nothing to read the oracle reader declines, which an abstention question
    (BEAM's) counts correct, so there its accuracy measures no memory and the gap is not comparable. {} when none."""
    from benchmarker.scoring.qa_metrics import cell

    judged = [r for r in oracle_lines if r.get("label") is not None]
    lacking = [r for r in judged if not r.get("evidence")]
    if not lacking:
        return {}
    types: dict[str, int] = {}
    for r in lacking:
        name = str(r.get("question_type") or "unknown")
        types[name] = types.get(name, 0) + 1
    kept = {str(r.get("question_id")) for r in judged if r.get("evidence")}
    return {"no_evidence": types,
            "with_evidence": {"memory": cell(r.get("label") for r in results if str(r.get("question_id")) in kept),
                              "oracle": cell(r.get("label") for r in judged if str(r.get("question_id")) in kept)}}
