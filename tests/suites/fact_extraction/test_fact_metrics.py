"""Metric formulas, conflict resolution, minimalism, summary and report section."""

from __future__ import annotations

import pytest

from benchmarker.reporting.section_render import section_pair
from benchmarker.suites.fact_extraction.data import context_facts, load_fact_cases, seed_context
from benchmarker.suites.fact_extraction.facts import CaseScore, fact_report_section, prf, score_case, summarize_fact_scores

CASES = {c.id: c for c in load_fact_cases()}


@pytest.mark.parametrize("counts, expected", [
    ((3, 1, 2), (0.75, 0.6, 2 * 0.75 * 0.6 / 1.35)),
    ((0, 0, 0), (1.0, 1.0, 1.0)),      # nothing expected, nothing written
    ((0, 2, 0), (0.0, 1.0, 0.0)),      # only hallucinations: recall's denominator is 0
    ((0, 0, 3), (1.0, 0.0, 0.0)),      # only misses: precision's denominator is 0
    ((2, 0, 0), (1.0, 1.0, 1.0)),
    ((0, 1, 1), (0.0, 0.0, 0.0)),      # precision + recall = 0 -> F1 = 0
])
def test_prf_formulas_and_zero_denominators(counts, expected):
    assert prf(*counts) == pytest.approx(expected)


def _score(case_id, scenario, tp, fp, fn, **kw):
    return CaseScore(case_id=case_id, scenario=scenario, tp=tp, fp=fp, fn=fn, **kw)


def test_summary_micro_macro_by_scenario_hand_computed():
    per_case = [
        _score("a", "simple_extraction", 3, 1, 0),          # P .75  R 1   F1 .857142...
        _score("b", "simple_extraction", 1, 0, 1),          # P 1    R .5  F1 .666...
        _score("c", "chit_chat", 0, 0, 0, minimal=True),    # P 1    R 1   F1 1
        _score("d", "conflict_resolution", 1, 0, 0, conflict_resolved=False),
        _score("e", "conflict_resolution", 0, 0, 0, judged=False, method="deterministic"),
    ]
    s = summarize_fact_scores(per_case)
    assert s["micro"] == pytest.approx({"cases": 4, "tp": 5, "fp": 1, "fn": 1,
                                        "precision": 5 / 6, "recall": 5 / 6, "f1": 5 / 6})
    f1a, f1b = 2 * 0.75 / 1.75, 2 * 0.5 / 1.5
    assert s["macro"] == pytest.approx({"cases": 4, "precision": (0.75 + 1 + 1 + 1) / 4,
                                        "recall": (1 + 0.5 + 1 + 1) / 4, "f1": (f1a + f1b + 1 + 1) / 4})
    assert list(s["by_scenario"]) == ["simple_extraction", "chit_chat", "conflict_resolution"]
    simple = s["by_scenario"]["simple_extraction"]
    assert (simple["tp"], simple["fp"], simple["fn"], simple["precision"]) == (4, 1, 1, 0.8)
    assert s["by_scenario"]["conflict_resolution"]["cases"] == 2
    assert s["by_scenario"]["conflict_resolution"]["judged"] == 1
    assert s["conflict_resolution_rate"] == 0.0 and s["minimalism_rate"] == 1.0
    assert s["unjudged"] == ["e"]
    targets = {t["metric"]: t for t in s["targets"]}
    assert set(targets) == {"precision", "recall", "f1", "conflict_resolution_rate", "minimalism_rate"}
    assert targets["precision"] == {"metric": "precision", "target": 0.95, "op": ">",
                                  "value": pytest.approx(0.9375), "pass": False, "basis": "macro"}
    assert targets["recall"]["pass"] is True
    assert targets["conflict_resolution_rate"]["pass"] is False
    assert targets["minimalism_rate"]["pass"] is True


def test_summary_with_nothing_judged_reports_none_not_zero():
    s = summarize_fact_scores([_score("x", "simple_extraction", 0, 0, 0, judged=False, method="llm")])
    assert s["macro"]["precision"] is None and s["micro"]["f1"] is None
    assert all(t["pass"] is None for t in s["targets"])
    assert s["unjudged"] == ["x"] and s["method"] == "llm"


def test_unjudged_case_is_not_scored_as_zero():
    judged = [_score("a", "simple_extraction", 2, 0, 0)]
    s = summarize_fact_scores(judged + [_score("b", "simple_extraction", 0, 0, 0, judged=False)])
    assert s["macro"]["f1"] == 1.0 and s["micro"]["precision"] == 1.0


def test_chit_chat_with_one_written_fact_fails_minimalism():
    fc = CASES["chit_chat_01"]
    quiet = score_case(fc, [])
    chatty = score_case(fc, ["User greeted the assistant"])
    assert quiet.minimal is True and (quiet.precision, quiet.recall, quiet.f1) == (1.0, 1.0, 1.0)
    assert chatty.minimal is False and (chatty.tp, chatty.fp, chatty.fn) == (0, 1, 0)
    assert (chatty.precision, chatty.recall, chatty.f1) == (0.0, 1.0, 0.0)
    s = summarize_fact_scores([quiet, chatty])
    assert s["minimalism_rate"] == 0.5
    assert next(t for t in s["targets"] if t["metric"] == "minimalism_rate")["pass"] is False


def test_conflict_case_resolved_when_old_value_is_only_history():
    fc = CASES["conflict_resolution_01"]  # budget $3,000 -> $4,500
    context = "## Facts\n- Trip budget: $4,500 (previously $3,000)\n- User is traveling to Portugal\n- Sister joining"
    extracted = ["Trip budget: $4,500 (previously $3,000)", "Sister joining"]
    score = score_case(fc, extracted, context_facts=context_facts(context))
    assert score.conflict_resolved is True and score.details["stale_facts"] == []


def test_conflict_case_with_stale_value_presented_as_current_fails():
    fc = CASES["conflict_resolution_01"]
    context = seed_context(fc.existing_memory) + "\n- Trip budget is $4,500\n- Sister is joining"
    extracted = ["Trip budget is $4,500", "Sister is joining"]
    score = score_case(fc, extracted, context_facts=context_facts(context))
    assert (score.tp, score.fp, score.fn) == (2, 0, 0)  # the new facts are all there...
    assert score.conflict_resolved is False  # ...but "Trip budget is $3,000" still reads as current
    assert score.details["stale_facts"] == ["Trip budget is $3,000"]


def test_conflict_case_without_the_new_value_fails():
    fc = CASES["conflict_resolution_03"]  # release March 3 -> March 17
    score = score_case(fc, ["Release moved from March 3"], context_facts=[])
    assert score.conflict_resolved is False
    assert score.details["missing_new_values"] == ["Release date is March 17"]
    assert score.details["stale_facts"] == []


def test_case_score_round_trips_through_its_dict():
    fc = CASES["conflict_resolution_02"]
    score = score_case(fc, ["Wedding venue is the Lakeside Pavilion", "Cake is chocolate"])
    d = score.to_dict()
    assert (d["tp"], d["fp"], d["fn"], d["precision"], d["recall"]) == (1, 1, 0, 0.5, 1.0)
    assert CaseScore.from_dict(d) == score


def test_report_section_shows_targets_pass_and_fail():
    per_case = [score_case(CASES["chit_chat_02"], ["User said thanks"]),
                score_case(CASES["simple_extraction_02"], ["Backend in Go", "Postgres stores data",
                                                           "Deployed on Kubernetes"])]
    md = section_pair(fact_report_section(summarize_fact_scores(per_case)))[1]
    assert md.startswith("## Fact extraction (deterministic scoring, 2 cases)")
    assert "| precision (macro) | > 0.950 | 0.500 | **FAIL** |" in md
    assert "| recall (macro) | > 0.850 | 1.000 | pass |" in md
    assert "| minimalism rate | >= 100% | 0% | **FAIL** |" in md
    assert "| conflict resolution rate | >= 100% | n/a | n/a |" in md
    assert "| simple_extraction | 1 | 3 | 0 | 0 | 1.000 | 1.000 | 1.000 |" in md
