"""The self-improve loop's types (graph/self_improve/shapes.py) name exactly the keys each phase writes.

The TypedDicts are only checked by mypy against the code that reads them; these tests hold them to the values the
phases really build, so a key added to (or dropped from) a phase cannot leave its type saying otherwise.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, NotRequired, get_origin, get_type_hints

from benchmarker.agent.prompts import prompts_dir
from benchmarker.config_schema import SelfImproveConfig
from benchmarker.graph.self_improve import shapes
from benchmarker.graph.self_improve.analyze import analyze
from benchmarker.graph.self_improve.candidate import apply_proposal, baseline_candidate
from benchmarker.graph.self_improve.decide import decide
from benchmarker.graph.self_improve.evaluate import question_row, split_score
from benchmarker.graph.self_improve.log import iteration_line
from benchmarker.graph.self_improve.propose import TuningLimits
from benchmarker.graph.self_improve.review import offline_challenge, offline_votes, tally


def keys(typed: Any) -> set[str]:
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


def required(typed: Any) -> set[str]:
    """The keys a TypedDict always has (its string annotations hide NotRequired from __required_keys__ on 3.11)."""
    hints = get_type_hints(typed, include_extras=True)
    return {k for k in typed.__required_keys__ if get_origin(hints[k]) is not NotRequired}


def rows() -> dict[str, Any]:
    """Six scored questions of two types, categories and levels; the analyst gave every failure a cause."""
    out = {}
    for i, score in enumerate([0.0, 1.0, 0.0, 1.0, 0.0, 1.0]):
        out[f"q{i}"] = {"score": score, "type": "ab"[i % 2], "category": "cd"[i % 2], "level": "L1",
                        "cause": "ok" if score else "not_retrieved", "analyst_cause": "ok" if score else "not_written",
                        "context_chars": 400, "hits": 2, "question": "Q?", "answer": "A", "hypothesis": "B"}
    return out


def test_a_question_row_holds_the_keys_of_QuestionRow() -> None:
    result = {"question_id": "q1", "question_type": "single-session-user", "label": False, "question": "Where?",
              "answer": "Paris", "hypothesis": "London"}
    row = question_row(result, "agent")
    assert set(row) == required(shapes.QuestionRow)
    assert set(split_score({"q1": row}, ["q1"])) == keys(shapes.SplitScore)


def test_analysis_and_decision_hold_the_keys_of_their_types() -> None:
    table = rows()
    analysis = analyze(table, sorted(table))
    assert set(analysis) == keys(shapes.Analysis) - {"note"}  # `note` is PROPOSE's, for the model's prompt
    assert set(analysis["by_type"]["a"]) == keys(shapes.Group)
    assert set(analysis["examples"]["not_written"][0]) == keys(shapes.Example)
    better = {qid: row | {"score": 1.0} for qid, row in table.items()}
    stats = decide(table, better, sorted(table))
    assert set(stats) == keys(shapes.Stats) and set(stats["mcnemar"]) == keys(shapes.McNemar)


def test_candidates_reviews_and_the_log_line_hold_the_keys_of_their_types(tmp_path: Path) -> None:
    root = tmp_path / "self_improve"
    base = baseline_candidate(root, {"top_k": 3, "alpha": None}, prompts_dir())
    assert set(base) == required(shapes.Candidate)
    proposal: shapes.Proposal = {"kind": "config", "delta": {"top_k": 5}, "rationale": "deeper", "source": "offline"}
    applied = apply_proposal(root, base, proposal, 1)
    assert set(applied) == required(shapes.Candidate) and applied["tunables"] == {"top_k": 5, "alpha": None}
    limits = TuningLimits.of(SimpleNamespace(backend="embedded", embedder="static", alpha=0.6), SelfImproveConfig(),
                             SimpleNamespace(qa_max_context_chars=16000))
    table = rows()
    analysis = analyze(table, sorted(table))
    challenge = offline_challenge(proposal, analysis, base, holdout_n=3, mode="retrieval", limits=limits)
    assert set(challenge) == keys(shapes.Challenge)
    votes = tally(offline_votes(proposal, challenge))
    assert set(votes) == keys(shapes.Tally) and all(set(v) == keys(shapes.Vote) for v in votes["votes"])
    state: Any = {"iteration": 1, "best": base, "start": base, "analysis": analysis, "proposal": proposal,
                  "challenge": challenge, "vote": votes, "candidate": applied}
    line = iteration_line(state, {"decision": "reverted", "stage": "vote", "reason": "no"}, None, base)
    assert set(line) == keys(shapes.IterationLine)
    assert set(line["analysis"]) == keys(shapes.AnalysisBrief)
    assert set(line["base"] or {}) == keys(shapes.Brief)
