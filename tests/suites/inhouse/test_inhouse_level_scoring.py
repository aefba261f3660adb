"""L13-L16 scoring: tool traces, stale values, adversarial baselines, decisions."""

from __future__ import annotations

import pytest

from benchmarker.suites.levels.data import ExpectedCall, build_level
from benchmarker.suites.levels.scoring import (
    parse_decision,
    score_adversarial,
    score_decision,
    score_forgetting,
    score_level,
    score_tool_trace,
    trace_for_session,
)

BIND = {"vault_id": "v1", "memory_id": "m1"}
EXPECTED = [
    ExpectedCall("get_context", {"memory_id": {"equals": "$memory_id"}}),
    ExpectedCall("list_entries", {"memory_id": {"equals": "$memory_id"}}),
    ExpectedCall("add_entry", {"memory_id": {"equals": "$memory_id"}, "raw_entry": {"contains": "Berlin"}}),
    ExpectedCall("await_consistency", {"memory_id": {"equals": "$memory_id"}}),
    ExpectedCall("put_context", {"content": {"contains_any": ["Berlin", "moving"]}}),
]


def call(tool, **args):
    return {"tool": tool, "args": {"memory_id": "m1", **args}}


PERFECT = [call("get_context"), call("list_entries"), call("add_entry", raw_entry="I'm moving to Berlin in May."),
           call("await_consistency"), call("put_context", content="Facts: user moves to Berlin (May).")]


def test_perfect_trace_scores_one():
    s = score_tool_trace(EXPECTED, PERFECT, bindings=BIND)
    assert (s.tool_precision, s.tool_recall, s.order, s.args, s.score) == (1.0, 1.0, 1.0, 1.0, 1.0)


def test_missing_call():
    s = score_tool_trace(EXPECTED, [c for c in PERFECT if c["tool"] != "await_consistency"], bindings=BIND)
    assert s.tool_recall == pytest.approx(0.8) and s.tool_precision == 1.0
    assert s.order == pytest.approx(0.8) and s.args == pytest.approx(0.8)
    assert s.missing_tools == ["await_consistency"] and s.score < 0.9


def test_wrong_order():
    s = score_tool_trace(EXPECTED, list(reversed(PERFECT)), bindings=BIND)
    assert s.tool_f1 == 1.0 and s.args == 1.0  # right tools and arguments, checked even out of order
    assert s.order == pytest.approx(0.2) and s.score == pytest.approx(0.4 + 0.3 * 0.2 + 0.3)


def test_wrong_arguments():
    bad = [dict(c) for c in PERFECT]
    bad[2] = call("add_entry", raw_entry="I'm moving to Munich in May.")
    bad[0] = {"tool": "get_context", "args": {"memory_id": "someone-else"}}
    s = score_tool_trace(EXPECTED, bad, bindings=BIND)
    assert s.tool_f1 == 1.0 and s.order == 1.0
    assert s.args == pytest.approx((0 + 1 + 0.5 + 1 + 1) / 5)  # add_entry: id right, text wrong
    failed = [c for c in s.arg_checks if not all(c["checks"].values())]
    assert [c["tool"] for c in failed] == ["get_context", "add_entry"]


def test_extra_calls_lower_precision():
    noisy = PERFECT[:3] + [call("search_memories", query="x"), call("add_entry", raw_entry="dup Berlin")] + PERFECT[3:]
    s = score_tool_trace(EXPECTED, noisy, bindings=BIND)
    assert s.tool_recall == 1.0 and s.order == 1.0 and s.args == 1.0
    assert s.tool_precision == pytest.approx(5 / 7) and sorted(s.extra_tools) == ["add_entry", "search_memories"]
    assert s.score < 1.0


def test_unbound_placeholder_only_needs_the_argument():
    assert score_tool_trace(EXPECTED, PERFECT).args == 1.0
    no_id = [{"tool": c["tool"], "args": {k: v for k, v in c["args"].items() if k != "memory_id"}} for c in PERFECT]
    assert score_tool_trace(EXPECTED, no_id).args < 1.0


def test_optional_calls_cost_nothing_either_way():
    expected = EXPECTED[:4] + [ExpectedCall("get_context", {"memory_id": {"equals": "$memory_id"}}, optional=True),
                               EXPECTED[4]]
    with_read = PERFECT[:4] + [call("get_context")] + PERFECT[4:]
    assert score_tool_trace(expected, PERFECT, bindings=BIND).score == 1.0
    assert score_tool_trace(expected, with_read, bindings=BIND).score == 1.0
    assert score_tool_trace(EXPECTED, with_read, bindings=BIND).tool_precision == pytest.approx(5 / 6)
    assert ExpectedCall.from_dict(expected[4].to_dict()) == expected[4]


def test_empty_trace_scores_zero_recall():
    s = score_tool_trace(EXPECTED, [])
    assert s.tool_recall == 0.0 and s.order == 0.0 and s.args == 0.0 and s.score == 0.0


def test_trace_for_session_filters_session_and_caller():
    log = [{"session_id": "a", "tool": "get_context", "args": {}, "caller": "agent"},
           {"session_id": "b", "tool": "add_entry", "args": {}, "caller": "agent"},
           {"session_id": "a", "tool": "add_entry", "args": {"x": 1}, "caller": "harness"},
           {"session_id": "a", "tool": "put_context", "args": {}, "caller": "agent"}]
    assert [c["tool"] for c in trace_for_session(log, "a")] == ["get_context", "put_context"]
    assert len(trace_for_session(log, "a", callers=("agent", "harness"))) == 3


def _satisfy(expected: ExpectedCall, bindings: dict) -> dict:
    args = {}
    for name, check in expected.args.items():
        if "equals" in check:
            value = check["equals"]
            args[name] = bindings.get(value[1:], value) if isinstance(value, str) and value.startswith("$") else value
        elif "contains" in check:
            args[name] = f"text with {check['contains']} inside"
        elif "contains_any" in check:
            args[name] = f"about {check['contains_any'][0]}"
        else:
            args[name] = "present"
    return {"tool": expected.tool, "args": args}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l13_level_with_a_perfect_decision_log(seed):
    spec = build_level("L13", seed)
    assert spec.scoring == "tool_trace" and len(spec.tool_scenarios) >= 5
    session_ids = {s.session_id for s in spec.case.sessions}
    log = []
    for sc in spec.tool_scenarios:
        assert sc.session_id in session_ids
        assert [c.tool for c in sc.expected[:2]] == ["get_context", "list_entries"]
        required = [c.tool for c in sc.expected if not c.optional]
        assert required[-2:] == ["await_consistency", "put_context"]
        log += [{**_satisfy(c, BIND), "session_id": sc.session_id, "caller": "agent"} for c in sc.expected]
    gold = {q.question_id: q.answer for q in spec.case.questions}
    result = score_level(spec, gold, decisions=log, bindings=BIND)
    assert result["score"] == 1.0
    assert all(d["score"] == 1.0 for d in result["detail"].values())
    six = next(sc for sc in spec.tool_scenarios if sc.scenario_id == "six_messages")
    assert [c.tool for c in six.expected].count("add_entry") == 6
    twelve = next(sc for sc in spec.tool_scenarios if sc.scenario_id == "twelve_messages")
    assert [c.tool for c in twelve.expected].count("put_context") == 2
    no_log = score_level(spec, gold)
    assert no_log["detail"]["tool_trace"] is None and no_log["score"] == 1.0


# ---- L14
def test_stale_value_presented_as_current_is_penalised():
    spec = build_level("L14", 3)
    facts = spec.expectations["facts"]
    qid, fact = next((k, v) for k, v in facts.items() if len(v["stale"]) >= 2)
    question = next(q for q in spec.case.questions if q.question_id == qid)
    current, stale = fact["current"], fact["stale"]
    assert score_forgetting(question, question.answer)["score"] == 1.0
    mixed = score_forgetting(question, f"{question.answer} or maybe {stale[0]}")
    assert mixed["score"] == 0.5 and mixed["stale_unmarked"] == [stale[0]]
    marked = score_forgetting(question, f"{question.answer}; it was previously {stale[0]}")
    assert marked["score"] == 1.0 and marked["stale_marked"] == [stale[0]]
    assert score_forgetting(question, f"{stale[-1]}")["score"] == 0.0
    two = score_forgetting(question, f"{question.answer}, {stale[0]}, {stale[1]}")
    assert two["score"] == 0.0
    gold = {q.question_id: q.answer for q in spec.case.questions}
    assert score_level(spec, gold)["score"] == 1.0
    assert current


# ---- L15
@pytest.mark.parametrize("seed", [0, 1, 5])
def test_adversarial_baselines_score_below_a_correct_agent(seed):
    spec = build_level("L15", seed)
    questions = spec.case.questions
    adversarial = set(spec.expectations["adversarial_ids"])
    assert len(adversarial) == 5 and len(spec.expectations["control_ids"]) == 5
    correct = score_adversarial((q, q.answer) for q in questions)
    refuse = score_adversarial((q, "I don't know.") for q in questions)
    answer_all = score_adversarial((q, q.answer if q.question_id not in adversarial else "It was at 7:30, in the Copper Pot.")
                                   for q in questions)
    assert correct["score"] == 1.0
    assert refuse["score"] <= 0.5 and answer_all["score"] <= 0.5
    assert refuse["balanced_mean"] <= 0.5 and answer_all["balanced_mean"] <= 0.5
    assert refuse["control_accuracy"] == 0.0 and answer_all["abstention_rate"] == 0.0
    gold = {q.question_id: q.answer for q in questions}
    assert score_level(spec, gold)["score"] == 1.0
    assert score_level(spec, {q.question_id: "I don't know" for q in questions})["score"] <= 0.5


# ---- L16
OPTIONS = {"A": "Northwind Data", "B": "Corvid Analytics", "C": "Tessellate"}


@pytest.mark.parametrize("answer,label", [
    ("Decision: B. Corvid is SOC 2 certified.", "B"), ("decision - c", "C"), ("DECISION: (A)", "A"),
    ("I recommend option C because it is in the EU.", "C"), ("Go with Tessellate.", "C"),
    ("Northwind Data is too expensive, so I'd pick Corvid Analytics.", "B"),
    ("Northwind Data or Corvid Analytics, hard to say", None), ("I don't know.", None),
    ("Decision: D", None), ("B) Corvid Analytics", "B"),
    ("Which one: A) Northwind Data, B) Corvid Analytics or C) Tessellate? Pick one.", None),
    ("Options were A) Northwind Data, B) Corvid Analytics, C) Tessellate; I recommend Tessellate.", "C"),
])
def test_decision_parsing(answer, label):
    assert parse_decision(answer, OPTIONS) == label


@pytest.mark.parametrize("seed", [0, 4])
def test_decision_scoring_weights(seed):
    spec = build_level("L16", seed)
    assert spec.scoring == "decision" and spec.weights == {"decision": 0.5, "reasoning": 0.3, "recall": 0.2}
    for q in spec.case.questions:
        correct = q.rubric["choice"]["correct"]
        wrong = next(label for label in "ABC" if label != correct)
        assert score_decision(q, q.answer)["score"] == 1.0
        assert score_decision(q, f"Decision: {correct}")["score"] == 0.5
        assert score_decision(q, f"Decision: {wrong}")["score"] == 0.0
        assert score_decision(q, "I don't know")["score"] == 0.0
        reasoned_wrong = score_decision(q, q.answer.replace(f"Decision: {correct}", f"Decision: {wrong}", 1))
        assert reasoned_wrong["decision"] == 0.0 and reasoned_wrong["score"] == 0.5
