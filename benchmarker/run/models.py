"""The chat models of a run (agent, qa, judge), the ledger that counts their tokens, and the judge choice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from benchmarker.config_schema import BatchConfig, EvalConfig, ModelsConfig, ProviderConfig, RetryConfig, RunConfig
from benchmarker.memory.driver import MemoryDriver
from benchmarker.scoring.judges import LLMJudge, OfficialJudge, choose_judge, judge_class
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.agent.ledger import EarlierTotals, LedgerSnapshot
    from benchmarker.log.lines import Json, ManifestTokens


@dataclass
class RunModels:
    provider: str
    agent_model: Any | None
    qa: Any | None
    judge: Any | None
    judge_kind: str           # deterministic | llm | official
    judge_note: str
    official_prompt: Any | None
    ledger: Any
    retry_policy: Any
    max_tool_calls_per_turn: int
    model_ids: dict[str, str]
    prompt_cache: bool = False
    agent_tools: tuple[str, ...] = ()
    agent_tools_explicit: bool = False   # [agent] tools set in the file (else a mapped server's own list)
    batch_hub: Any | None = None         # [batch]: the hub the batched roles' calls go through
    raw_entry: str = "model"             # [agent] raw_entry: who writes an entry's text
    context_update: str = "cadence"      # [agent] context_update

    @property
    def offline(self) -> bool:
        return self.provider == "offline"

    def build_agent(self, memory: MemoryDriver):
        """The memory agent over the `[agent] tools` subset of the memory server's tools (in server
        order); on a mapped server the mapping's agent tools unless `[agent] tools` is set. Its tool
        calls are recorded through each turn's own sink (MemoryAgentContext.decision_sink)."""
        from benchmarker.agent.memory_agent import build_memory_agent

        names = memory.agent_tool_names(self.agent_tools, self.agent_tools_explicit)
        chosen = [tool for tool in memory.client.tools if not names or tool.name in names]
        model = self.agent_model
        write = memory.offline_write()
        # The offline policy writes the mapping's way.
        if write is not None and model is not None and hasattr(model, "mapped_write"):
            model = model.model_copy(update={"mapped_write": write})
        return build_memory_agent(model, chosen, max_tool_calls_per_turn=self.max_tool_calls_per_turn,
                                  retry_policy=self.retry_policy, ledger=self.ledger,
                                  provider=self.provider, model_id=self.model_ids["agent"],
                                  prompt_cache=self.prompt_cache, raw_entry=self.raw_entry)

    def judge_for(self, settings: EvalConfig, max_failures_in_a_row: int) -> Any:
        """The eval phase's judge (benchmarker.scoring.judges): its model, `[eval]` retries, votes and thresholds,
        and `[run] max_failures_in_a_row`."""
        from benchmarker.scoring.judges import JudgeFailures, make_judge

        return make_judge(self.judge_kind, model=self.judge, official_prompt=self.official_prompt,
                          retries=settings.judge_retries, votes=settings.votes,
                          thresholds=settings.thresholds, failures=JudgeFailures(max_failures_in_a_row))

    def prompt_cache_note(self) -> str:
        from benchmarker.agent.caching import prompt_cache_middleware

        return prompt_cache_middleware(self.provider, self.model_ids["agent"], enabled=self.prompt_cache)[1]

    def describe(self) -> dict[str, Json]:
        return {"provider": self.provider, **self.model_ids, "judge": self.judge_kind,
                "offline": self.offline, "prompt_cache": self.prompt_cache_note(),
                "agent_tools": list(self.agent_tools), "raw_entry": self.raw_entry,
                "context_update": self.context_update,
                "note": "offline: deterministic policy, extractive reader and grader; a floor, not a model score"
                if self.offline else ""}


def build_models(config: RunConfig, *, earlier_tokens: EarlierTotals | LedgerSnapshot | ManifestTokens | None = None,
                 with_agent: bool = True) -> RunModels:
    """The run's models; `with_agent=False` never builds the memory agent's model (replay re-applies
    recorded writes instead of calling it)."""
    from benchmarker.agent.ledger import TokenLedger
    from benchmarker.agent.providers import make_chat_model
    from benchmarker.agent.retry import RetryPolicy

    provider = config.provider.type
    ledger = TokenLedger(prices=dict(config.prices), earlier=earlier_tokens, batch_factor=config.batch.price_factor)
    retry_policy = RetryPolicy(max_attempts=config.retry.max_attempts,
                               initial_backoff_s=config.retry.initial_backoff_s,
                               max_backoff_s=config.retry.max_backoff_s)
    common: ChatModelKwargs = {"temperature": config.models.temperature, "max_tokens": config.models.max_tokens,
                               **provider_kwargs(config.provider, config.retry)}
    agent_model = qa_model = judge_model = None
    if config.run.mode == "agent":
        if with_agent and "ingest" in config.run.phases:
            agent_model = make_chat_model(provider, config.models.agent, role="agent", **common)
        from benchmarker.agent.retry import RetryingModel

        qa_model = RetryingModel(make_chat_model(provider, config.models.qa, role="qa", **common),
                                 policy=retry_policy, ledger=ledger, role="qa", model_id=config.models.qa,
                                 provider=provider)
    judge_kind, note = choose_judge(config.eval, config.models, config.provider, config.run, config.params,
                                    config.config_path)
    if judge_class(judge_kind).needs_model:
        from benchmarker.agent.retry import RetryingModel

        judge_kwargs: ChatModelKwargs = {**common, "temperature": 0.0}
        raw_judge = make_chat_model(provider, config.models.eval, role="eval", **judge_kwargs)
        judge_model = RetryingModel(raw_judge, policy=retry_policy, ledger=ledger, role="eval",
                                    model_id=config.models.eval, provider=provider)
    hub = _batch_hub(config.batch, config.models, config.provider, config.run_dir)
    if hub is not None:
        if config.batch.qa and qa_model is not None:
            qa_model = _batched(hub, config.models, "qa", ledger) or qa_model
        if config.batch.eval and judge_model is not None:
            judge_model = _batched(hub, config.models, "eval", ledger) or judge_model
    official, reason = official_prompt_for(judge_kind, PlanSettings.of(config))
    if official is not None:
        note = reason
    elif reason:  # the official judge without LongMemEval's evaluator: our own prompts, said so
        note = f"official evaluator not found ({reason}); using our own judge prompts"
        judge_kind = LLMJudge.name
    return RunModels(provider=provider, agent_model=agent_model, qa=qa_model, judge=judge_model,
                     judge_kind=judge_kind, judge_note=note, official_prompt=official, ledger=ledger,
                     retry_policy=retry_policy, max_tool_calls_per_turn=config.params.max_tool_calls_per_turn,
                     model_ids={"agent": config.models.agent, "qa": config.models.qa, "eval": config.models.eval},
                     prompt_cache=config.agent.prompt_cache, agent_tools=tuple(config.agent.tools),
                     agent_tools_explicit="tools" in config.agent.model_fields_set, batch_hub=hub,
                     raw_entry=config.agent.raw_entry, context_update=config.agent.context_update)


def _batch_hub(b: BatchConfig, role_models: ModelsConfig, provider: ProviderConfig, run_dir: Path) -> Any | None:
    """The run's batch hub when `[batch]` sends a real model's calls through a batch API."""
    wanted = [role for role in ("qa", "eval") if getattr(b, role)]
    models = [getattr(role_models, role) for role in wanted]
    if provider.type == "offline" or not any(m and not m.startswith("offline-") for m in models):
        return None
    from benchmarker.agent.batch.apis import batch_api
    from benchmarker.agent.batch.hub import BatchHub

    return BatchHub(batch_api(provider, b), run_dir, poll_s=b.poll_s, max_wait_s=b.max_wait_s,
                    max_requests=b.max_requests, collect_s=b.collect_s)


def _batched(hub: Any, models: ModelsConfig, role: str, ledger: Any) -> Any:
    from benchmarker.agent.batch.model import BatchModel

    model_id = getattr(models, role)
    if model_id.startswith("offline-"):
        return None
    temperature = 0.0 if role == "eval" else models.temperature
    return BatchModel(hub, role=role, model_id=model_id, temperature=temperature,
                      max_tokens=models.max_tokens, ledger=ledger)


class ProviderKwargs(TypedDict, total=False):
    """agent.providers.make_chat_model's keywords that `[provider]` and `[retry]` decide."""

    base_url: str | None
    api_key_env: str
    region: str
    request_timeout_s: float


class ChatModelKwargs(ProviderKwargs, total=False):
    """ProviderKwargs and the role's `[models]` sampling keys."""

    temperature: float
    max_tokens: int


def provider_kwargs(p: ProviderConfig, retry: RetryConfig) -> ProviderKwargs:
    """The chat-model keywords of `[provider]` and `[retry] request_timeout_s` (a run's models, judge-online's judge)."""
    timeout = retry.request_timeout_s  # a hung call fails (and is retried), never waits
    if p.type == "openai":
        return {"base_url": p.openai.base_url or None, "api_key_env": p.openai.api_key_env, "request_timeout_s": timeout}
    if p.type == "anthropic":
        return {"base_url": p.anthropic.base_url or None, "api_key_env": p.anthropic.api_key_env,
                "request_timeout_s": timeout}
    if p.type == "bedrock":
        return {"region": p.bedrock.region, "request_timeout_s": timeout}
    return {}


def official_prompt_for(name: str, settings: PlanSettings) -> tuple[Any | None, str]:
    """(the benchmark's official prompts, where they came from) for the official judge, (None, why not) when
    the clone lacks them; (None, "") for any other judge, which needs none."""
    if not issubclass(judge_class(name), OfficialJudge):
        return None, ""
    from benchmarker.registry import suite

    source = suite(settings.dataset.kind).official_judge
    if source is None:
        return None, f'[dataset].kind = "{settings.dataset.kind}" has no official judge'
    return source.load(settings)
