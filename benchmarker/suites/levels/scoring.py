"""Special scoring for L13-L16, and one entry point that scores any level from its answers.

Weights and penalties are `[eval.thresholds]` (trace_weights, stale_penalty, decision_weights);
the numbers below are their defaults.

L13 tool selection: score = 0.4 * tool F1 (multiset precision/recall of tool names) + 0.3 * order
    (longest common subsequence of tool names / expected length) + 0.3 * arguments (per expected
    call, the share of its argument checks the aligned actual call passes; unmatched calls score 0).
    Optional expected calls (reading the context before rewriting it) are neither missing when
    absent nor extra when present. Feed the decision-log lines of the scenario's session, in order.
L14 selective forgetting: 1 for the current value, minus 0.5 for each stale value presented as
    current (named without a marker such as "previously", "was", "changed from"), floor 0.
L15 adversarial recall: score = harmonic mean of control accuracy and adversarial abstention rate,
    so refusing everything and answering everything both score 0 (the arithmetic mean is reported too).
L16 decision from memory: 0.5 * decision (parsed "Decision: B" or the one option named) + 0.3 *
    reasoning (justifying facts named) + 0.2 * recall (recalled facts named).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import mean
from typing import cast

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Question
from benchmarker.log.lines import DecisionLine, Json
from benchmarker.scoring.normalize import find_phrase, matches, token_texts
from benchmarker.scoring.rubric import grade_answer_deterministic
from benchmarker.scoring.rubric_facts import decision_breakdown, factual_accuracy, parse_choice, unmarked_mentions
from benchmarker.suites.levels.data.spec import ArgCheck, ExpectedCall, ExpectedCallDict, LevelSpec, ToolScenario
from benchmarker.suites.levels.shapes import (
    AdversarialScore,
    CallChecks,
    DecisionScore,
    ForgettingScore,
    LevelDetail,
    LevelScore,
    ToolCall,
    ToolTraceDict,
    UnscoredTrace,
)


@dataclass
class ToolTraceScore:
    tool_precision: float
    tool_recall: float
    tool_f1: float
    order: float
    args: float
    score: float
    alignment: list[tuple[int, int | None]] = field(default_factory=list)  # (expected index, actual index)
    arg_checks: list[CallChecks] = field(default_factory=list)
    missing_tools: list[str] = field(default_factory=list)
    extra_tools: list[str] = field(default_factory=list)

    def to_dict(self) -> ToolTraceDict:
        return cast(ToolTraceDict, asdict(self))


def _as_call(item: ExpectedCall | ExpectedCallDict) -> ExpectedCall:
    return item if isinstance(item, ExpectedCall) else ExpectedCall.from_dict(item)


def _lcs_pairs(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _text(value: Json) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def check_arg(args: Mapping[str, Json], name: str, check: ArgCheck,
              bindings: Mapping[str, str | None] | None = None) -> bool:
    """Does the actual call's argument `name` pass one ExpectedCall check?"""
    present = name in args and args[name] not in (None, "", [], {})
    value = args.get(name)
    if "equals" in check:
        want = check["equals"]
        if isinstance(want, str) and want.startswith("$"):
            if want[1:] not in (bindings or {}):
                return present
            want = (bindings or {})[want[1:]]
        return present and (value == want or _text(value) == _text(want))
    if "contains" in check:
        return present and matches(_text(value), str(check["contains"]))
    if "contains_any" in check:
        return present and any(matches(_text(value), str(p)) for p in check["contains_any"])
    if "matches" in check:
        return present and re.search(str(check["matches"]), _text(value), re.I) is not None
    return present if check.get("present", True) else not present


def score_tool_trace(expected: Sequence[ExpectedCall | ExpectedCallDict], actual: Sequence[ToolCall], *,
                     bindings: Mapping[str, str | None] | None = None,
                     thresholds: ThresholdsConfig | None = None) -> ToolTraceScore:
    """Score an actual tool trace ([{"tool", "args"}, ...] in call order) against the expected calls.

    Optional expected calls never count as missing; when present they are matched (not extra).
    """
    exp = [_as_call(e) for e in expected]
    act = [(str(a.get("tool", "")), dict(a.get("args") or {})) for a in actual]
    e_tools, a_tools = [e.tool for e in exp], [tool for tool, _ in act]
    required = [e.tool for e in exp if not e.optional]
    remaining = list(a_tools)
    matched, missing = 0, []
    for tool in required:
        if tool in remaining:
            remaining.remove(tool)
            matched += 1
        else:
            missing.append(tool)
    optional_hits = 0
    for tool in (e.tool for e in exp if e.optional):
        if tool in remaining:
            remaining.remove(tool)
            optional_hits += 1
    precision = (matched + optional_hits) / len(a_tools) if a_tools else 1.0
    recall = matched / len(required) if required else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    pairs = _lcs_pairs(e_tools, a_tools)
    in_order = sum(1 for i, _ in pairs if not exp[i].optional)
    order = in_order / len(required) if required else 1.0
    aligned: dict[int, int] = dict(pairs)
    used = set(aligned.values())
    for i, call in enumerate(exp):  # calls out of order still get their arguments checked
        if i not in aligned:
            j = next((j for j, (tool, _) in enumerate(act) if tool == call.tool and j not in used), None)
            if j is not None:
                aligned[i] = j
                used.add(j)
    checks: list[CallChecks] = []
    per_call = []
    for i, call in enumerate(exp):
        j = aligned.get(i)
        if not call.args or (call.optional and j is None):
            continue
        results = {name: (j is not None and check_arg(act[j][1], name, chk, bindings))
                   for name, chk in call.args.items()}
        per_call.append(sum(results.values()) / len(results))
        checks.append({"expected_index": i, "tool": call.tool, "actual_index": j, "checks": results})
    args_score = mean(per_call) if per_call else 1.0
    weights = (thresholds or ThresholdsConfig()).trace_weights
    score = weights["selection"] * f1 + weights["order"] * order + weights["args"] * args_score
    return ToolTraceScore(round(precision, 6), round(recall, 6), round(f1, 6), round(order, 6), round(args_score, 6),
                          round(score, 6), sorted((i, aligned.get(i)) for i in range(len(exp))), checks, missing,
                          remaining)


def trace_for_session(decisions: Iterable[DecisionLine], session_id: str,
                      callers: tuple[str, ...] = ("agent",)) -> list[ToolCall]:
    """The decision-log lines of one session, in order, keeping only the given callers."""
    return [{"tool": d.get("tool"), "args": d.get("args") or {}} for d in decisions
            if d.get("session_id") == session_id and d.get("caller", "agent") in callers]


def score_forgetting(question: Question, answer: str, *,
                     thresholds: ThresholdsConfig | None = None) -> ForgettingScore:
    """L14: credit for the current value, minus `stale_penalty` per stale value presented as current."""
    thresholds = thresholds or ThresholdsConfig()
    rub = dict(question.rubric)
    stale = [str(s) for s in rub.get("stale", [])]
    toks = token_texts(answer)
    unmarked = unmarked_mentions(toks, stale, negation_only=False)
    mentioned = [s for s in stale if find_phrase(toks, token_texts(s)) is not None]
    current, _ = factual_accuracy({k: v for k, v in rub.items() if k not in ("stale", "forbidden")}, answer,
                                  thresholds=thresholds)
    score = max(0.0, current - thresholds.stale_penalty * len(unmarked))
    return {"current_credit": current, "stale_unmarked": unmarked,
            "stale_marked": [s for s in mentioned if s not in unmarked], "score": score}


def score_adversarial(pairs: Iterable[tuple[Question, str]], *,
                      thresholds: ThresholdsConfig | None = None) -> AdversarialScore:
    """L15: controls must be answered, adversarial (never-stated) questions declined."""
    controls: list[float] = []
    adversarial: list[float] = []
    for question, answer in pairs:
        score, _ = factual_accuracy(question.rubric, answer, thresholds=thresholds)
        (adversarial if question.rubric.get("abstain") else controls).append(score)
    control_acc = mean(controls) if controls else 0.0
    abstention = mean(adversarial) if adversarial else 0.0
    f_score = 2 * control_acc * abstention / (control_acc + abstention) if control_acc + abstention else 0.0
    return {"control_accuracy": control_acc, "abstention_rate": abstention, "f_score": f_score,
            "balanced_mean": (control_acc + abstention) / 2, "score": f_score,
            "n_controls": len(controls), "n_adversarial": len(adversarial)}


def parse_decision(answer: str, options: Mapping[str, str]) -> str | None:
    """L16: the option label the answer decides on, or None when it decides nothing (or is ambiguous)."""
    return parse_choice(answer, dict(options))


def score_decision(question: Question, answer: str, *, thresholds: ThresholdsConfig | None = None) -> DecisionScore:
    """L16 breakdown: decision, reasoning, recall and their weighted score (decision_weights)."""
    return cast(DecisionScore, decision_breakdown(question.rubric, answer, thresholds=thresholds))


def _scenario_scores(scenarios: tuple[ToolScenario, ...], decisions: Sequence[DecisionLine],
                     bindings: Mapping[str, str | None] | None, callers: tuple[str, ...],
                     thresholds: ThresholdsConfig) -> dict[str, ToolTraceDict]:
    out = {}
    for sc in scenarios:
        trace = trace_for_session(decisions, sc.session_id, callers)
        out[sc.scenario_id] = score_tool_trace(list(sc.expected), trace, bindings=bindings,
                                               thresholds=thresholds).to_dict()
    return out


def score_level(spec: LevelSpec, answers: Mapping[str, str], *, decisions: Sequence[DecisionLine] | None = None,
                bindings: Mapping[str, str | None] | None = None, callers: tuple[str, ...] = ("agent",),
                thresholds: ThresholdsConfig | None = None) -> LevelScore:
    """Score one level: per-question deterministic grades plus the level's own score (see module doc).

    `answers` maps question_id -> answer text. For L13 pass the run's decision-log lines
    (`decisions`, dicts with session_id, tool, args, caller) and `bindings` {"vault_id", "memory_id"};
    L13 then scores 0.7 * mean scenario score + 0.3 * recall accuracy (weights from spec.weights).
    Rubric levels (L1-L12) score the mean factual accuracy of their questions.
    """
    thresholds = thresholds or ThresholdsConfig()
    questions = list(spec.case.questions)
    grades = {q.question_id: grade_answer_deterministic(q, answers.get(q.question_id, ""), thresholds=thresholds)
              for q in questions}
    per_q: dict[str, dict[str, Json]] = {qid: g.to_dict() for qid, g in grades.items()}
    pairs = [(q, answers.get(q.question_id, "")) for q in questions]
    detail: LevelDetail = {}
    qa = mean(_accuracy(g.scores) for g in grades.values()) if grades else 0.0
    if spec.scoring == "forgetting":
        forgetting = {q.question_id: score_forgetting(q, a, thresholds=thresholds) for q, a in pairs}
        detail, score = forgetting, mean(d["score"] for d in forgetting.values())
    elif spec.scoring == "adversarial":
        adversarial = score_adversarial(pairs, thresholds=thresholds)
        detail, score = adversarial, adversarial["score"]
    elif spec.scoring == "decision":
        decided = {q.question_id: score_decision(q, a, thresholds=thresholds) for q, a in pairs if "choice" in q.rubric}
        detail, score = decided, mean(d["score"] for d in decided.values())
    elif spec.scoring == "tool_trace":
        if decisions is None:
            unscored: UnscoredTrace = {"tool_trace": None, "note": "no decision log given: tool selection not scored"}
            detail, score = unscored, qa
        else:
            traced = _scenario_scores(spec.tool_scenarios, decisions, bindings, callers, thresholds)
            tool = mean(d["score"] for d in traced.values()) if traced else 0.0
            detail, score = traced, spec.weights.get("tool_trace", 0.7) * tool + spec.weights.get("qa", 0.3) * qa
    else:
        score = qa
    return {"level_id": spec.level_id, "seed": spec.seed, "scoring": spec.scoring, "score": round(score, 6),
            "qa_accuracy": round(qa, 6), "detail": detail, "questions": per_q}


__all__ = ["ToolTraceScore", "score_tool_trace", "trace_for_session", "check_arg", "score_forgetting",
           "score_adversarial", "parse_decision", "score_decision", "score_level"]


def _accuracy(scores: Mapping[str, float | None]) -> float:
    value = scores["factual_accuracy"]
    assert value is not None  # the deterministic grader always grades factual accuracy
    return value
