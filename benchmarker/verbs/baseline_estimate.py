"""`baselines RUN_DIR --estimate`: tokens and USD of the baselines' pending reader and judge calls, with the
prompt-cache reads a shared conversation earns.

Reader input is counted with the tokenizer the baselines measure with (cl100k_base; a Claude or Nova model
counts somewhat differently), reader output is assumed (`QA_OUTPUT` per answer, as `estimate` does), the
judge's calls as `estimate` sizes them. The cache is modelled per case as the run sends it: its first
question writes the history prefix (Anthropic, Bedrock) or sends it plain (OpenAI), each later question of
the same case reads it, when it is at least the provider's shortest cacheable prefix (OpenAI: in 128-token
blocks); nothing expires between two questions of one case.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.config_schema import RunConfig
from benchmarker.log.records import AnswerRecord
from benchmarker.log.store import RunLog
from benchmarker.token_count import TOKENIZER, count_tokens
from benchmarker.verbs.baselines import BASELINES_DIR, Histories, prompt_messages, run_answers
from benchmarker.verbs.estimate_shapes import BaselineEstimate, BaselinesEstimate

if TYPE_CHECKING:
    from benchmarker.verbs.rescore import CaseRebuild
    from benchmarker.verbs.role_pricing import RolePricing

APPROXIMATION = (f"reader input counted in {TOKENIZER} tokens (the provider's own tokenizer may differ by ~10%), "
                 "reader output assumed at {qa_output} tokens an answer, judge calls sized as `estimate` sizes them; "
                 "cache: per case, the first question sends the history prefix and every later one reads it")


def _prefix_tokens(name: str, answer: Any, context: str, qa_model: str) -> tuple[int, int]:
    """(prefix, whole prompt) tokens of one question's two messages."""
    head, tail = (m.text for m in prompt_messages(name, answer, context, "openai", qa_model))
    prefix = count_tokens(head)
    return prefix, prefix + count_tokens(tail)


def _cached(prefix: int, first: bool, policy: Any) -> tuple[int, int]:
    """(cache read, cache write) tokens of one call whose prefix is `prefix` tokens."""
    from benchmarker.run.estimate_model import OPENAI_BLOCK

    if policy.kind == "none" or prefix < policy.min_tokens:
        return 0, 0
    if policy.kind == "automatic":
        return (0, 0) if first else (prefix // OPENAI_BLOCK * OPENAI_BLOCK, 0)
    return (0, prefix) if first else (prefix, 0)


@dataclass(frozen=True)
class BaselineCosts:
    """What the baselines' estimate reads of the config, taken once by `estimate_baselines`."""

    pricing: RolePricing       # the reader's and the judge's models, the provider, [batch], [prices]
    judged: bool               # an LLM judge judges the answers (role_pricing.llm_judged)
    full_context_tokens: int   # [baselines]
    cases: CaseRebuild


def estimate_baseline(name: str, run_dir: Path, costs: BaselineCosts,
                      answers: dict[str, AnswerRecord]) -> BaselineEstimate:
    """One baseline's pending calls: reader (with its cache reads and writes) and judge, in tokens and USD."""
    from benchmarker.agent.ledger import Usage
    from benchmarker.run.estimate_model import cache_policy
    from benchmarker.verbs.baseline_history import history_cases
    from benchmarker.verbs.estimate import QA_OUTPUT, judge_usage

    out_dir = run_dir / BASELINES_DIR / name
    done = RunLog(run_dir, answers_dir=out_dir).done if out_dir.is_dir() else None
    pending = [a for q, a in answers.items() if done is None or q not in done.judged]
    asked = [a for a in pending if done is None or a.question_id not in done.answered]
    pricing = costs.pricing
    policy = cache_policy(pricing.provider, pricing.models.qa, True)
    wanted = sorted({a.case_id for a in asked}) if name == "full_context" else []
    histories = Histories(costs.full_context_tokens, history_cases(costs.cases, run_dir, wanted))
    qa, seen = Usage(), set()
    for answer in asked:
        context = histories.get(answer.case_id).text if name == "full_context" else ""
        prefix, whole = _prefix_tokens(name, answer, context, pricing.models.qa)
        read, write = _cached(prefix, answer.case_id not in seen, policy)
        seen.add(answer.case_id)
        qa.add(Usage(1, whole, QA_OUTPUT, read, write))
    judge = judge_usage(costs.judged, pending)
    qa_usd, eval_usd = pricing.usd(qa, "qa"), pricing.usd(judge, "eval")
    return {"pending": len(pending), "cases": len({a.case_id for a in asked}), "qa": qa.as_dict(),
            "eval": judge.as_dict(), "cache": policy.note,
            "usd": None if qa_usd is None or eval_usd is None else qa_usd + eval_usd}


def estimate_baselines(run_dir: Path, config: RunConfig, names: tuple[str, ...]) -> BaselinesEstimate:
    """Every named baseline's estimate, their total USD and the approximation they use."""
    from benchmarker.verbs.estimate import QA_OUTPUT
    from benchmarker.verbs.rescore import CaseRebuild
    from benchmarker.verbs.role_pricing import llm_judged, role_pricing

    answers = run_answers(run_dir)
    costs = BaselineCosts(role_pricing(config.models, config.provider, config.batch, config.prices),
                          llm_judged(config.models, config.params, config.run), config.baselines.full_context_tokens,
                          CaseRebuild.of(config))
    each = {name: estimate_baseline(name, run_dir, costs, answers) for name in names}
    prices = [b["usd"] for b in each.values()]
    priced = [p for p in prices if p is not None]
    return {"questions": len(answers), "baselines": each,
            "usd": sum(priced) if len(priced) == len(prices) else None,
            "models": {"qa": config.models.qa, "eval": config.models.eval or None},
            "approximation": APPROXIMATION.format(qa_output=QA_OUTPUT)}
