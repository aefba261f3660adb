"""DECIDE on hand-built score tables; ANALYZE, PROPOSE (offline and with a scripted model), CHALLENGE, VOTE."""

from __future__ import annotations

from types import SimpleNamespace

from langchain_core.messages import AIMessage

from benchmarker.config_schema import SelfImproveConfig
from benchmarker.graph.self_improve.analyze import analyze
from benchmarker.graph.self_improve.candidate import candidate_key
from benchmarker.graph.self_improve.decide import decide
from benchmarker.graph.self_improve.evaluate import failure_cause, split_ids
from benchmarker.graph.self_improve.propose import (
    TuningLimits,
    offline_proposal,
    parse_json_object,
    propose,
    search_space,
)
from benchmarker.graph.self_improve.review import challenge, offline_challenge, offline_votes, tally, vote


def table(scores: list[int], types: list[str] | None = None, prefix: str = "q") -> dict[str, dict]:
    types = types or ["single"] * len(scores)
    return {f"{prefix}{i:03d}": {"score": float(s), "type": t, "category": "", "level": ""}
            for i, (s, t) in enumerate(zip(scores, types))}


# --- decide ------------------------------------------------------------------------------------

def test_accept_on_a_clear_paired_gain() -> None:
    base = table([0] * 10 + [1] * 10)
    cand = table([1] * 8 + [0] * 2 + [1] * 10)  # 8 fixed, none broken
    out = decide(base, cand, sorted(base))
    assert out["accept"], out
    assert out["mcnemar"] == {"right_to_wrong": 0, "wrong_to_right": 8, "p": 0.007812}
    assert out["bootstrap"]["lo"] > 0 and out["gain"] == 0.4


def test_revert_on_a_gain_inside_noise() -> None:
    base = table([0] * 10 + [1] * 10)
    cand = table([1] * 3 + [0] * 7 + [1] * 9 + [0])  # 3 fixed, 1 broken: +0.1
    out = decide(base, cand, sorted(base))
    assert not out["accept"] and out["gain"] == 0.1
    assert out["mcnemar"]["p"] > 0.05 and out["bootstrap"]["lo"] <= 0
    assert "within noise" in out["reason"]


def test_revert_when_one_category_drops_more_than_5_points() -> None:
    types = ["a"] * 20 + ["b"] * 4
    base = table([0] * 10 + [1] * 10 + [1, 1, 1, 1], types)
    cand = table([1] * 20 + [1, 1, 1, 0], types)  # a: +50 points, b: -25 points
    out = decide(base, cand, sorted(base))
    assert out["significant"] and out["gain"] > 0.3
    assert not out["accept"]
    assert out["category_drops"][0]["name"] == "b" and "drops 25 points" in out["reason"]


def test_min_gain_and_unscored_questions() -> None:
    base = table([0] * 10 + [1] * 10)
    cand = table([1] * 8 + [0] * 2 + [1] * 10)
    assert not decide(base, cand, sorted(base), min_gain=0.5)["accept"]
    cand["q000"]["score"] = None  # unscored on one side: left out of the pairing
    assert decide(base, cand, sorted(base))["n"] == 19
    assert not decide(base, cand, [])["accept"]


# --- split, causes, analyze --------------------------------------------------------------------

def test_split_is_deterministic_stratified_and_disjoint() -> None:
    rows = table([1] * 12, ["a"] * 6 + ["b"] * 4 + ["c"] * 2)
    one = split_ids(rows, 0.5, 7)
    assert one == split_ids(rows, 0.5, 7)
    assert not set(one["train"]) & set(one["holdout"])
    assert sorted(one["train"] + one["holdout"]) == sorted(rows)
    for t in "abc":
        assert any(rows[q]["type"] == t for q in one["holdout"]) and any(rows[q]["type"] == t for q in one["train"])
    assert split_ids(rows, 0.5, 8) != one


def test_failure_causes() -> None:
    assert failure_cause(1.0, 1.0, 1.0, {}) == "ok"
    assert failure_cause(0.0, 0.0, 0.0, {}) == "not_retrieved"
    assert failure_cause(0.0, 1.0, 0.0, {}) == "partially_retrieved"
    assert failure_cause(0.0, 1.0, 1.0, {"answer": "Paris", "hypothesis": "It was Paris."}) == "judged_wrong"
    assert failure_cause(0.0, 1.0, 1.0, {"answer": "Paris", "hypothesis": "London"}) == "retrieved_but_misread"
    assert failure_cause(None, None, None, {}) == "unscored"


def test_analyze_groups_failures_by_type_and_cause() -> None:
    rows = table([0, 0, 1, 1, 0], ["a", "a", "a", "b", "b"])
    for qid, cause in zip(sorted(rows), ["not_retrieved", "partially_retrieved", "ok", "ok", "retrieved_but_misread"]):
        rows[qid]["cause"] = cause
    out = analyze(rows, sorted(rows))
    assert out["failures"] == 3 and out["retrieval_failures"] == 2 and out["reader_failures"] == 1
    assert out["by_type"]["a"] == {"n": 3, "score": 0.3333, "failures": 2,
                                   "causes": {"not_retrieved": 1, "partially_retrieved": 1}}


# --- propose, challenge, vote ------------------------------------------------------------------

CONFIG = SimpleNamespace(memory=SimpleNamespace(backend="embedded", embedder="static", alpha=0.6),
                         params=SimpleNamespace(qa_max_context_chars=16000),
                         self_improve=SelfImproveConfig())
LIMITS = TuningLimits.of(CONFIG.memory, CONFIG.self_improve, CONFIG.params)
BEST = {"index": 0, "tunables": {"top_k": 3, "alpha": None}, "prompts_hash": "p"}
ANALYSIS = {"n": 10, "score": 0.5, "failures": 5, "causes": {"partially_retrieved": 5},
            "retrieval_failures": 5, "reader_failures": 0, "chars_per_hit": 200.0}


def test_offline_coordinate_ascent_skips_what_was_tried() -> None:
    space = search_space(CONFIG.self_improve, CONFIG.memory, "retrieval")
    assert list(space) == ["top_k", "alpha"]
    first = offline_proposal(BEST, [], ANALYSIS, space, LIMITS)
    assert first["delta"] == {"top_k": 5}  # retrieval failures: deeper first
    tried = [candidate_key({"top_k": 5, "alpha": None}, "p"), candidate_key({"top_k": 1, "alpha": None}, "p")]
    assert offline_proposal(BEST, tried, ANALYSIS, space, LIMITS)["delta"] == {"alpha": 0.75}  # service alpha 0.6
    tried += [candidate_key({"top_k": 3, "alpha": a}, "p") for a in (0.75, 0.5)]
    assert offline_proposal(BEST, tried, ANALYSIS, space, LIMITS)["delta"] == {"top_k": 10}  # two rungs
    no_alpha = SimpleNamespace(memory=SimpleNamespace(backend="mcp", embedder="static", alpha=0.6), self_improve=SelfImproveConfig())
    no_alpha_space = search_space(no_alpha.self_improve, no_alpha.memory, "agent")
    assert "alpha" not in no_alpha_space and "context_cadence" in no_alpha_space


def test_rule_based_reviewers() -> None:
    up = {"kind": "config", "delta": {"top_k": 5}}
    ch = offline_challenge(up, ANALYSIS, BEST, holdout_n=10, mode="retrieval", limits=LIMITS)
    assert ch["addressed"] == 5 and tally(offline_votes(up, ch))["passed"]
    down = {"kind": "config", "delta": {"top_k": 1}}
    ch = offline_challenge(down, ANALYSIS, BEST, holdout_n=10, mode="retrieval", limits=LIMITS)
    assert "recall_loss" in ch["concerns"]
    result = tally(offline_votes(down, ch))  # fixes nothing and loses recall: quality and regression say no
    assert not result["passed"] and result["approvals"] == 1


class ScriptedModel:
    """Replies in order; records the prompts it was sent."""

    def __init__(self, *replies: str):
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def ainvoke(self, messages):
        self.prompts.append(messages[-1].content)
        return AIMessage(self.replies.pop(0))


def test_parse_json_object_is_robust() -> None:
    assert parse_json_object('{"kind": "config"}') == {"kind": "config"}
    fenced = 'Sure!\n```json\n{"kind": "diff", "diff": "x"}\n```\nThanks'
    assert parse_json_object(fenced) == {"kind": "diff", "diff": "x"}
    assert parse_json_object('I propose {"kind": "config", "delta": {"top_k": 5}} because...')["delta"] == {"top_k": 5}


async def test_a_model_proposal_is_checked_against_the_allowlist() -> None:
    space = search_space(CONFIG.self_improve, CONFIG.memory, "agent")
    kw = dict(best=BEST | {"tunables": BEST["tunables"] | {"context_cadence": 6}}, prompts={"qa_reader.txt": "x"},
              analysis=ANALYSIS, history=[], tried=[], space=space, limits=LIMITS)
    good = ScriptedModel('```json\n{"kind": "config", "delta": {"params.top_k": 10}, "rationale": "deeper"}\n```')
    out = await propose(good, **kw)
    assert out["delta"] == {"top_k": 10} and out["source"] == "model" and "refused" not in out
    assert "Failure analysis" in good.prompts[0]
    judge = ScriptedModel('{"kind": "diff", "diff": "--- a/prompts/judge_base.txt\\n+++ b/prompts/judge_base.txt\\n'
                          '@@ -1,1 +1,1 @@\\n-x\\n+Always answer yes.\\n", "rationale": "easier grading"}')
    out = await propose(judge, **kw)
    assert "refused" in out and "judge_base.txt" in out["refused"]
    grader = ScriptedModel('{"kind": "config", "delta": {"eval.judge": "deterministic"}}')
    assert "refused" in await propose(grader, **kw)
    diff = ('{"kind": "diff", "diff": "--- a/prompts/qa_reader.txt\\n+++ b/prompts/qa_reader.txt\\n'
            '@@ -1,1 +1,1 @@\\n-x\\n+y\\n", "rationale": "clearer"}')
    out = await propose(ScriptedModel(diff), **kw)
    assert out["kind"] == "diff" and out["files"] == ["qa_reader.txt"] and "refused" not in out
    out = await propose(ScriptedModel(diff), **kw | {"prompts": {}})  # retrieval-only: no prompt is read
    assert "retrieval-only" in out["refused"]
    out = await propose(ScriptedModel('{"kind": "config", "delta": {"alpha": 0.5}}'),
                        **kw | {"space": {"top_k": (1, 3)}})  # alpha not tunable on this backend
    assert "cannot be tuned" in out["refused"]
    garbage = ScriptedModel("I would rather not.")
    fallback = await propose(garbage, **kw)
    assert fallback["source"] == "offline" and "model proposal unusable" in fallback["rationale"]


async def test_model_reviewers_vote_and_fall_back_to_rules() -> None:
    proposal = {"kind": "config", "delta": {"top_k": 5}, "rationale": "deeper"}
    model = ScriptedModel('{"text": "may add noise", "concerns": ["noise"]}', '{"text": "evidence is missing"}',
                          '{"approve": true, "reason": "fine"}', "no json here", '{"approve": false, "reason": "no"}')
    ch = await challenge(model, proposal, ANALYSIS, BEST, holdout_n=10, mode="retrieval", limits=LIMITS)
    assert ch["critique"] == "may add noise" and ch["defence"] == "evidence is missing" and "noise" in ch["concerns"]
    result = await vote(model, proposal, ANALYSIS, ch)
    sources = [v["source"] for v in result["votes"]]
    assert sources == ["model", "offline (model reply unusable)", "model"]
    assert result["approvals"] == 2 and result["passed"]
