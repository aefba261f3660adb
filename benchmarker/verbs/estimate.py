"""`mycelian-longmemeval estimate CONFIG [--json]`: tokens and cost of a run before paying for it.

The selected data is streamed once and every memory-agent model call is simulated call by call
(benchmarker/run/estimate_model.py, which the run's cost floor in run/cost_floor.py shares): the offline agent's
call pattern per ingest unit, the tool schemas of `[agent] tools`, the case-stable system prompt, the session's
rolling transcript, and the provider's prompt cache. The same data is simulated under the settings worth comparing:
prompt cache off / on x ingest unit message / exchange / session with the configured tools, plus
"message, cache off, all 13 tools" (how every call was sent before `[agent]`), the baseline.
`[multi_agent]` adds calls on the judge's model (role eval, as the run's ledger counts them): the
adversary's extra questions (answered and judged, at their cap) and its model proposer, the
graders and the analyst's explanations, each kept apart in `roles.eval.parts`.

`--json` prints one object instead of the tables (schema_version 1):

    schema_version        1
    dataset               {questions, cases, sessions, messages[, adversary_questions]}
                          (adversary_questions: with [multi_agent] adversary, the extra questions at most)
    setting               {provider, agent_model, prompt_cache, ingest_unit, tools, cache}
                          (cache: what prompt caching means for this provider and model)
    roles                 {agent|qa|eval: {model, calls, input_tokens, output_tokens, cache_read_tokens,
                           cache_write_tokens, plain_input_tokens, cache_hit_share, cost_usd}}
                          (the memory agent under the configured setting; eval also has
                           parts: {judge|adversary_proposer|adversary_judge|graders|analyst: {calls, input_tokens,
                           ..., cost_usd}}, the judge's model by purpose, summing to eval; [multi_agent] parts
                           only when configured)
    total_usd             sum over priced roles (null when a used model has no price)
    comparison            [{label, prompt_cache, ingest_unit, tools, raw_entry, context_update,
                            context_every_sessions, baseline, matches_config, agent_calls, agent_input_tokens,
                            cache_read_tokens, cache_write_tokens, cache_hit_share, agent_output_tokens, agent_usd,
                            total_usd, times_cheaper, usd_per_question, floor_ratio}]
                          (times_cheaper: baseline / row; floor_ratio: total_usd / floor.usd)
    floor                 {input_tokens, output_tokens, usd, usd_per_question, summary_tokens, context_updates}
                          (the memory agent's floor: the haystack read once, one summary per message, the
                           context written once per session; null usd without a price)
    tool_schema_tokens    {all_tools, configured, saved_per_call, configured_tools}
    system_prompt_tokens  {message, exchange, session}
    assumptions           [text, ...]
    token_count           how the token figures are counted: "approximation: ~4 characters per token" (a run's
                          summary.json `budget` measures its readers' context with cl100k_base)
    price_notes           [text, ...]  (cache reads / writes priced at the input price for lack of a price)
    unpriced_models       [model, ...]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.agent.ledger import Usage
from benchmarker.config_schema import (
    MEMORY_AGENT_TOOLS,
    AgentConfig,
    MemoryConfig,
    MultiAgentConfig,
    ParamsConfig,
    RunConfig,
    RunSection,
)
from benchmarker.graph.evidence_adversary import TURN_CHARS, TURNS_SHOWN
from benchmarker.memory.limits import RAW_ENTRY_CHARS, SUMMARY_CHARS
from benchmarker.registry import plan_dataset, scoring_suite, suite_of_record
from benchmarker.run.cost_floor import FLOOR_SUMMARY_TOKENS, floor_case
from benchmarker.run.estimate_model import (
    ADD_ENTRY_ARGS_TOKENS,
    CALL_TOKENS,
    CHARS_PER_TOKEN,
    CONTEXT_BASE_CHARS,
    CONTEXT_CHARS_PER_MESSAGE,
    CONTEXT_MAX_CHARS,
    HARNESS_ADD_ENTRY_ARGS_TOKENS,
    LIST_ENTRY_OVERHEAD_CHARS,
    REPLY_TOKENS,
    AgentModel,
    CachePolicy,
    Setting,
    agent_model,
    cache_policy,
    simulate_case,
)
from benchmarker.scoring.analyst import HITS_SHOWN, TEXT_CHARS
from benchmarker.suites.long_horizon.data.adversary import FACTS_SHOWN
from benchmarker.suites.settings import PlanSettings
from benchmarker.verbs.estimate_shapes import (
    ComparisonRow,
    EstimateDataset,
    EstimateJson,
    Floor,
    RoleCost,
    SchemaTokens,
)
from benchmarker.verbs.role_pricing import RolePricing, llm_judged, role_pricing

if TYPE_CHECKING:
    from benchmarker.suites.base import Suite
    from benchmarker.suites.parts import AdversaryPolicy

SCHEMA_VERSION = 1
UNITS = ("message", "exchange", "session")
QA_OVERHEAD_TOKENS = 350         # the reader prompt around the retrieved context
ENTRY_TOKENS = 120               # a retrieved entry as shown to the reader
QA_OUTPUT = 60
JUDGE_INPUT, JUDGE_OUTPUT = 350, 5  # LongMemEval's judges: a short prompt, a yes/no reply (a suite may differ)
# [multi_agent]: extra calls on the judge's model (role eval, as the run's ledger counts them).
PROPOSER_FACTS, FACT_TOKENS = FACTS_SHOWN, 15   # long-horizon: the fact records the proposer's prompt lists
# other kinds: the turns it lists, each at most TURN_CHARS long (an upper bound: LongMemEval turns are long)
PROPOSER_TURNS, TURN_TOKENS = TURNS_SHOWN, round(TURN_CHARS / CHARS_PER_TOKEN)
PROPOSED_QUESTION_TOKENS = 60          # one proposed question as JSON: question, answer, facts, category
GRADER_TEXT_TOKENS, GRADER_OUTPUT = 300, 60      # question, gold and answer in a grader's prompt; a score + reason
# an explanation's prompt shows the answer, two evidence turns and the hits, each cut to TEXT_CHARS (an
# upper bound); the reply is a short explanation and fix
ANALYST_TEXT_TOKENS, ANALYST_OUTPUT = round((HITS_SHOWN + 3) * TEXT_CHARS / CHARS_PER_TOKEN), 120
EVAL_PARTS = ("judge", "adversary_proposer", "adversary_judge", "graders", "analyst")  # the order they are shown in
LEAN_EVERY = (1, 2, 4)      # context_every_sessions compared with context_update = "session"


@dataclass
class Variant:
    setting: Setting
    label: str
    baseline: bool = False
    agent: Usage = field(default_factory=Usage)


@dataclass(frozen=True)
class EstimateSettings:
    """The slice of CONFIG the estimate's tables and assumptions read, taken once by `estimate_run`."""

    pricing: RolePricing            # each role's model, the provider, [batch] and [prices]
    agent: AgentConfig
    memory: MemoryConfig
    context_cadence: int            # [params]
    dataset_kind: str
    multi_agent: MultiAgentConfig


@dataclass
class Estimate:
    settings: EstimateSettings
    configured: Setting
    variants: list[Variant]
    all_tools: tuple[str, ...]
    model: AgentModel | None = None      # None when the run makes no memory-agent call
    questions: int = 0
    cases: int = 0
    sessions: int = 0
    messages: int = 0
    qa: Usage = field(default_factory=Usage)
    adversary_questions: int = 0         # [multi_agent] adversary: extra questions asked, at most
    # The judge's model by purpose (EVAL_PARTS); [multi_agent] parts only when they make calls.
    eval_parts: dict[str, Usage] = field(default_factory=lambda: {"judge": Usage()})
    floor: Usage = field(default_factory=Usage)   # the memory agent's floor (floor_case), plain input

    @property
    def eval(self) -> Usage:
        """Role eval: every purpose of the judge's model, so cost() and the comparison price them all."""
        total = Usage()
        for usage in self.eval_parts.values():
            total.add(usage)
        return total

    def add_eval(self, part: str, usage: Usage) -> None:
        """Count `usage` under one purpose of the judge's model, kept in EVAL_PARTS order."""
        self.eval_parts.setdefault(part, Usage()).add(usage)
        self.eval_parts = {p: self.eval_parts[p] for p in EVAL_PARTS if p in self.eval_parts}

    @property
    def agent(self) -> Usage:
        """The memory agent under the configured setting."""
        return next(v.agent for v in self.variants if v.setting == self.configured and not v.baseline)

    @property
    def agent_calls(self) -> int:
        return self.agent.calls

    def usage(self, role: str) -> Usage:
        return {"agent": self.agent, "qa": self.qa, "eval": self.eval}[role]


def _settings(agent: AgentConfig, memory: MemoryConfig, all_tools: tuple[str, ...]) -> list[Variant]:
    tools = tuple(agent.tools)
    baseline = Setting(False, "message", all_tools)
    variants = [Variant(baseline, baseline.label(all_tools) + " (baseline)", baseline=True)]
    for unit in UNITS:
        for cached in (False, True):
            setting = Setting(cached, unit, tools)
            variants.append(Variant(setting, setting.label(all_tools)))
    seen = [v.setting for v in variants if not v.baseline]
    for setting in [*_lean_settings(agent, memory), configured_setting(agent)]:
        if setting not in seen:
            seen.append(setting)
            variants.append(Variant(setting, setting.label(all_tools)))
    return variants


def configured_setting(agent: AgentConfig) -> Setting:
    return Setting(agent.prompt_cache, agent.ingest_unit, tuple(agent.tools), agent.raw_entry, agent.context_update,
                   agent.context_every_sessions if agent.context_update == "session" else 1)


def _lean_settings(agent: AgentConfig, memory: MemoryConfig) -> list[Setting]:
    """The issue-28 levers side by side (session unit, cache on): the harness writes raw_entry, then the
    context once per session, every 2 and every 4 sessions."""
    tools = tuple(agent.tools)
    if memory.preset != "mycelian" or memory.mapping:  # a mapped server writes its own way
        return []
    return [Setting(True, "session", tools, "harness")] + [Setting(True, "session", tools, "harness", "session", n)
                                                           for n in LEAN_EVERY]


def estimate_run(config: RunConfig, scratch_dir: Path) -> Estimate:
    """Walk the selected cases once (streamed) and simulate what every setting would send."""
    configured = configured_setting(config.agent)
    outside = config.agent.type != "memory_agent"  # an outside agent's own model calls are its business
    agent_used = config.run.mode == "agent" and "ingest" in config.run.phases and not outside
    model = agent_model(config.params, config.memory) if agent_used else None
    all_tools = tuple(model.schema_chars) if model else tuple(MEMORY_AGENT_TOOLS)
    pricing = role_pricing(config.models, config.provider, config.batch, config.prices)
    settings = EstimateSettings(pricing, config.agent, config.memory, config.params.context_cadence,
                                config.dataset.kind, config.multi_agent)
    est = Estimate(settings, configured, _settings(config.agent, config.memory, all_tools), all_tools, model)
    answering = Answering.of(config.params, config.run, llm_judged(config.models, config.params, config.run))
    policies = {cached: cache_policy(config.provider.type, config.models.agent, cached) for cached in (False, True)}
    plan, scoring = plan_dataset(PlanSettings.of(config), scratch_dir), scoring_suite(config.dataset.kind)
    for group in plan.groups:
        for case in group.cases():
            est.cases += 1
            est.questions += len(case.questions) or 1
            est.sessions += len(case.sessions)
            est.messages += sum(len(s.messages) for s in case.sessions)
            if model is not None:
                est.floor.add(floor_case(case, model))
                for v in est.variants:
                    v.agent.add(simulate_case(case, v.setting, model, policies[v.setting.prompt_cache]))
            if config.run.mode == "agent" and "qa" in config.run.phases:
                _answer(est, answering, scoring, len(case.questions), "judge", outside)
                if config.multi_agent.adversary:
                    _adversary(est, config.multi_agent, answering, scoring, outside)
    _after_cases(est, config.multi_agent)
    return est


@dataclass(frozen=True)
class Answering:
    """What one question costs to answer and judge: the reader's context and whether a model judges it."""

    context_tokens: float
    judged: bool

    @classmethod
    def of(cls, params: ParamsConfig, run: RunSection, judged: bool) -> Answering:
        context = min(params.top_k * ENTRY_TOKENS, params.qa_max_context_chars / CHARS_PER_TOKEN)
        if run.context_budget_tokens:  # the reader's context is cut to the budget
            context = min(context, run.context_budget_tokens)
        return cls(context, judged)


def _answer(est: Estimate, answering: Answering, scoring: Suite, n: int, part: str, outside: bool) -> None:
    """n questions of a case: a reader call each (qa) and a judge call each (eval, under `part`)."""
    if not outside:  # an outside agent answers itself: no reader call of ours
        est.qa.add(Usage(n, int(n * (QA_OVERHEAD_TOKENS + answering.context_tokens)), n * QA_OUTPUT))
    if answering.judged:
        judge_in, judge_out = judge_call(scoring)
        est.add_eval(part, Usage(n, n * judge_in, n * judge_out))


def _adversary(est: Estimate, ma: MultiAgentConfig, answering: Answering, scoring: Suite, outside: bool) -> None:
    """A case's adversarial rounds at their cap: every round asks adversary_questions more, each
    answered and judged like a dataset question, plus the model proposer's call per round."""
    extra = ma.rounds * ma.adversary_questions
    est.adversary_questions += extra
    _answer(est, answering, scoring, extra, "adversary_judge", outside)
    if ma.proposer == "model" and answering.judged:
        est.add_eval("adversary_proposer", Usage(ma.rounds, ma.rounds * proposer_input_tokens(scoring.adversary),
                                                 ma.rounds * ma.adversary_questions * PROPOSED_QUESTION_TOKENS))


def _after_cases(est: Estimate, ma: MultiAgentConfig) -> None:
    """Graders and the analyst's explanations read the judged answers of the whole run (dataset and
    adversarial questions alike), so they are counted once the cases are."""
    judged = sum(est.eval_parts[p].calls for p in ("judge", "adversary_judge") if p in est.eval_parts)
    if not judged:  # no answer judged by the judge's model: no grader or explanation either
        return
    for name in ma.graders:
        est.add_eval("graders", Usage(judged, judged * grader_input_tokens(name), judged * GRADER_OUTPUT))
    if ma.analyst_explain:
        n = min(judged, ma.explain_max)  # every answer could be wrong: an upper bound
        est.add_eval("analyst", Usage(n, n * analyst_input_tokens(), n * ANALYST_OUTPUT))


def _prompt_tokens(name: str) -> int:
    """Tokens of a prompt file as shipped (load_prompt names the file when it is missing)."""
    from benchmarker.agent.prompts import load_prompt

    return round(len(load_prompt(name)) / CHARS_PER_TOKEN)


def proposer_input_tokens(policy: AdversaryPolicy | None) -> int:
    """One proposer call: its prompt plus the material it lists (fact records, or evidence turns)."""
    if policy is not None and policy.proposes_from_facts:
        return _prompt_tokens("adversary_propose") + PROPOSER_FACTS * FACT_TOKENS
    return _prompt_tokens("adversary_evidence") + PROPOSER_TURNS * TURN_TOKENS


def grader_input_tokens(name: str) -> int:
    """One grader call: its perspective's prompt plus the question, gold and answer."""
    return _prompt_tokens(f"grader_{name}") + GRADER_TEXT_TOKENS


def analyst_input_tokens() -> int:
    """One explanation call: its prompt plus the diagnosed answer, its evidence and its hits."""
    return _prompt_tokens("analyst_explain") + ANALYST_TEXT_TOKENS


def judge_usage(judged: bool, answers: Iterable[Any]) -> Usage:
    """The judge calls these answers will cost (`oracle`, `baselines`): none when no model judges them
    (`judged`: llm_judged)."""
    judge = Usage()
    if judged:
        for answer in answers:
            j_in, j_out = judge_tokens(answer.kind)
            judge.add(Usage(1, j_in, j_out))
    return judge


def judge_tokens(kind: str) -> tuple[int, int]:
    """(input, output) tokens of one judge call for an answer line of this kind (its suite's, else the usual)."""
    return judge_call(suite_of_record(kind))


def judge_call(scoring: Suite) -> tuple[int, int]:
    """(input, output) tokens of one judge call of the suite that scores the answers (its JudgeCost part)."""
    return scoring.judge_cost.per_call(CHARS_PER_TOKEN, (JUDGE_INPUT, JUDGE_OUTPUT))


# --- cost --------------------------------------------------------------------------------------

def cost(est: Estimate, pricing: RolePricing, notes: list[str] | None = None) -> dict[str, float | None]:
    """USD per role under the configured setting (None: the model has no price in [prices])."""
    return {role: pricing.usd(est.usage(role), role, notes, batch=pricing.batched(role))
            for role in ("agent", "qa", "eval")}


def eval_parts_cost(est: Estimate, pricing: RolePricing, notes: list[str] | None = None) -> dict[str, float | None]:
    """USD of each purpose of the judge's model (they sum to cost()["eval"])."""
    return {part: pricing.usd(usage, "eval", notes, batch=pricing.batched("eval"))
            for part, usage in est.eval_parts.items()}


def _total(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]


def comparison(est: Estimate, pricing: RolePricing, notes: list[str] | None = None) -> list[ComparisonRow]:
    """One row per compared setting (QA and judge are the same in every row)."""
    rest = [pricing.usd(est.qa, "qa", notes, batch=pricing.batched("qa")),
            pricing.usd(est.eval, "eval", notes, batch=pricing.batched("eval"))]
    rows: list[ComparisonRow] = []
    for v in est.variants:
        agent_usd = pricing.usd(v.agent, "agent", notes)
        rows.append({"label": v.label, "prompt_cache": v.setting.prompt_cache, "ingest_unit": v.setting.unit,
                     "tools": list(v.setting.tools), "raw_entry": v.setting.raw_entry,
                     "context_update": v.setting.context_update, "context_every_sessions": v.setting.every,
                     "baseline": v.baseline,
                     "matches_config": v.setting == est.configured, "agent_calls": v.agent.calls,
                     "agent_input_tokens": v.agent.input_tokens, "cache_read_tokens": v.agent.cache_read_tokens,
                     "cache_write_tokens": v.agent.cache_write_tokens, "cache_hit_share": v.agent.cache_hit_share,
                     "agent_output_tokens": v.agent.output_tokens, "agent_usd": agent_usd,
                     "total_usd": _total([agent_usd, *rest])})
    base = rows[0]["total_usd"]
    floor = floor_usd(est, pricing)
    for row in rows:
        row["times_cheaper"] = base / row["total_usd"] if base and row["total_usd"] else None
        row["usd_per_question"] = row["total_usd"] / est.questions if row["total_usd"] is not None and est.questions \
            else None
        row["floor_ratio"] = row["total_usd"] / floor if floor and row["total_usd"] is not None else None
    return rows


def floor_usd(est: Estimate, pricing: RolePricing) -> float | None:
    """The floor in USD at the agent model's price (None: no agent calls, or no price)."""
    if est.model is None or not est.floor.calls:
        return None
    return pricing.usd(est.floor, "agent")


def floor_json(est: Estimate, pricing: RolePricing) -> Floor | None:
    if est.model is None:
        return None
    usd = floor_usd(est, pricing)
    return {"input_tokens": est.floor.input_tokens, "output_tokens": est.floor.output_tokens, "usd": usd,
            "usd_per_question": usd / est.questions if usd is not None and est.questions else None,
            "summary_tokens": FLOOR_SUMMARY_TOKENS, "context_updates": est.floor.calls}


def schema_tokens(est: Estimate) -> SchemaTokens:
    if est.model is None:
        return {"all_tools": 0, "configured": 0, "saved_per_call": 0, "configured_tools": list(est.configured.tools)}
    full, mine = est.model.tools_tokens(est.all_tools), est.model.tools_tokens(est.configured.tools)
    return {"all_tools": full, "configured": mine, "saved_per_call": full - mine,
            "configured_tools": list(est.configured.tools)}


# How every token figure here is counted: an approximation, not the tokenizer a run's budget block measures with.
TOKEN_COUNT = f"approximation: ~{CHARS_PER_TOKEN:g} characters per token"


def assumptions(est: Estimate) -> list[str]:
    config = est.settings
    policy = cache_policy(config.pricing.provider, config.pricing.models.agent, True)  # what the cache-on rows mean
    out = [f"{TOKEN_COUNT} (real tokenizers differ by some 10-20%; a run measures what each reader saw with "
           "cl100k_base instead: summary.json `budget`)."]
    if est.model is not None:
        out += _agent_assumptions(config.context_cadence, config.agent.prompt_cache, policy)
        if config.memory.preset != "mycelian" or config.memory.mapping:
            out.append(f"the memory agent is costed on Mycelian's tools and capture policy; [memory] names another "
                       f"server ({config.memory.mapping or config.memory.preset}), whose own tools and prompt the "
                       "agent gets instead: read the agent rows as the order of magnitude, not the figure.")
    if config.agent.type != "memory_agent":
        out.append(f"the agent is outside ([agent] type = {config.agent.type!r}): it learns and answers with its own "
                   "models, which the harness neither sees nor counts (report them in the answer's metadata); only "
                   "the judge is costed here.")
    scoring = scoring_suite(config.dataset_kind)
    judge_in, judge_out = judge_call(scoring)
    why = scoring.judge_cost.note
    out.append(f"QA: {QA_OVERHEAD_TOKENS} tokens of reader prompt + min(top_k x {ENTRY_TOKENS}, "
               f"qa_max_context_chars / {CHARS_PER_TOKEN:g}) of context in, {QA_OUTPUT} out; judge {judge_in} in, "
               f"{judge_out} out{why}; both one-shot, never cached.")
    return out + _multi_agent_assumptions(config.multi_agent)


def _multi_agent_assumptions(ma: MultiAgentConfig) -> list[str]:
    """One rule per [multi_agent] part configured; all of them run on the judge's model (role eval)."""
    out: list[str] = []
    if ma.adversary:
        out.append(f"adversary: {ma.rounds} round(s) x {ma.adversary_questions} questions per case, the cap (the "
                   "harness drops proposals it cannot verify, and a round with none ends the case's rounds); each "
                   "is answered (qa) and judged (eval, adversary_judge) like a dataset question.")
    if ma.adversary and ma.proposer == "model":
        out.append(f"adversary proposer: one call per case and round, its prompt plus up to {PROPOSER_FACTS} fact "
                   f"records x {FACT_TOKENS} tokens (long-horizon) or {PROPOSER_TURNS} evidence turns x "
                   f"{TURN_TOKENS} tokens (other kinds) in, {PROPOSED_QUESTION_TOKENS} tokens per asked question out.")
    if ma.graders:
        out.append(f"graders ({', '.join(ma.graders)}): one call per judged answer (dataset and adversarial) and "
                   f"perspective, its prompt + {GRADER_TEXT_TOKENS} tokens of question and answers in, "
                   f"{GRADER_OUTPUT} out; only with an LLM judge.")
    if ma.analyst_explain:
        out.append(f"analyst explanations: one call per wrong answer, at most explain_max = {ma.explain_max}; how many "
                   "answers are wrong is unknown before the run, so every judged answer is counted as wrong (an upper "
                   f"bound); prompts/analyst_explain.txt + {ANALYST_TEXT_TOKENS} tokens of answer, evidence and hits "
                   f"in, {ANALYST_OUTPUT} out.")
    return out


def _agent_assumptions(cadence: int, prompt_cache: bool, policy: CachePolicy) -> list[str]:
    out = [f"memory-agent calls follow the offline agent's policy (bootstrap get_context + list_entries on a "
           f"session's first turn, one add_entry per message, await_consistency + get_context + put_context every "
           f"{cadence} messages and at a session's end; message unit: one tool call per "
           "model call, exchange / session: independent calls in one reply) plus one call for the final reply; "
           "real models make more or fewer calls.",
           "each call sends the tool schemas of [agent] tools (the embedded service's real definitions), the "
           "system prompt (composed once per case), the session's human messages so far and this turn's earlier "
           "calls and results; earlier turns' tool calls are not re-sent.",
           f"agent output (raw_entry model): add_entry re-emits the message as raw_entry (<= {RAW_ENTRY_CHARS} chars) "
           "plus a summary "
           f"(<= {SUMMARY_CHARS} chars) and ~{ADD_ENTRY_ARGS_TOKENS} tokens of ids and tags; put_context the context document "
           f"(min({CONTEXT_MAX_CHARS}, {CONTEXT_BASE_CHARS} + {CONTEXT_CHARS_PER_MESSAGE} x messages so far) chars); "
           f"other calls ~{CALL_TOKENS} tokens; the final reply ~{REPLY_TOKENS}. Results re-sent within a turn: "
           f"list_entries the 10 newest entries (raw entry + summary + {LIST_ENTRY_OVERHEAD_CHARS} chars each), "
           "get_context the current document, the rest a one-word acknowledgement.",
           f"raw_entry harness rows: add_entry names the message (~{HARNESS_ADD_ENTRY_ARGS_TOKENS} tokens of JSON "
           "around the summary; the harness stores the text and fills the ids); context rows (every session / every N "
           "sessions): bootstrap get_context + list_entries, then ONE reply with every add_entry and put_context on "
           "the session's last turn when due (every N-th session and the case's last; a later turn reads "
           "get_context first), and no closing call: the harness ends a turn once everything is recorded.",
           f"prompt cache (the cache-on rows{'' if prompt_cache else '; this config has it off'}): "
           f"{policy.note}" + ("; cache-on rows therefore cost the same as cache-off ones." if policy.kind == "none"
                               else ".")]
    if policy.kind != "none":
        out.append("all calls of one case fall within the 5-minute cache TTL (each hit refreshes it); nothing is "
                   "shared between cases; a call reads the longest prefix an earlier call of its case stored"
                   + (" (Anthropic's 20-block look-back is assumed to reach it)." if policy.kind == "breakpoints"
                      else "."))
    return out


# --- output ------------------------------------------------------------------------------------

def estimate_json(est: Estimate) -> EstimateJson:
    notes: list[str] = []
    config, pricing = est.settings, est.settings.pricing
    usd = cost(est, pricing, notes)
    models = pricing.role_models
    rows = comparison(est, pricing, notes)
    unpriced = sorted({models[r] for r, c in usd.items() if c is None}
                      | ({models["agent"]} if any(r["agent_usd"] is None for r in rows) else set()))
    policy = cache_policy(pricing.provider, pricing.models.agent, config.agent.prompt_cache)
    dataset: EstimateDataset = {"questions": est.questions, "cases": est.cases, "sessions": est.sessions,
                                "messages": est.messages}
    if config.multi_agent.adversary:
        dataset["adversary_questions"] = est.adversary_questions
    return {
        "schema_version": SCHEMA_VERSION,
        "dataset": dataset,
        "setting": {"provider": pricing.provider, "agent_model": pricing.models.agent,
                    "prompt_cache": est.configured.prompt_cache, "ingest_unit": est.configured.unit,
                    "tools": list(est.configured.tools), "cache": policy.note},
        "roles": _roles(est, pricing, usd, notes),
        "total_usd": _total(list(usd.values())),
        "comparison": rows,
        "floor": floor_json(est, pricing),
        "tool_schema_tokens": schema_tokens(est),
        "system_prompt_tokens": {u: est.model.system_tokens(u) for u in UNITS} if est.model else {},
        "assumptions": assumptions(est),
        "token_count": TOKEN_COUNT,
        "price_notes": notes,
        "unpriced_models": unpriced,
    }


def _roles(est: Estimate, pricing: RolePricing, usd: dict[str, float | None], notes: list[str]) -> dict[str, RoleCost]:
    """Each role's usage and cost; eval also by purpose, so the [multi_agent] calls stay visible."""
    models = pricing.role_models
    roles: dict[str, RoleCost] = {role: {"model": models[role] or None, **est.usage(role).as_dict(), "cost_usd": usd[role],
                    "batch": pricing.batched(role),
                    # what the role would cost without [batch] (the same as cost_usd when not batched)
                    "sync_usd": pricing.usd(est.usage(role), role) if pricing.batched(role) else usd[role]}
             for role in ("agent", "qa", "eval")}
    part_usd = eval_parts_cost(est, pricing, notes)
    roles["eval"]["parts"] = {part: {**usage.as_dict(), "cost_usd": part_usd[part]}
                              for part, usage in est.eval_parts.items()}
    return roles


def _money(value: float | None) -> str:
    return "no price in [prices]" if value is None else f"{value:,.2f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def format_comparison(rows: list[ComparisonRow]) -> str:
    lines = ["| setting | agent calls | agent input tokens | cache-hit share | agent output tokens | agent USD "
             "| USD total | USD / question | x cheaper | x floor |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mark = " **<- this config**" if r["matches_config"] else ""
        times = "-" if r["times_cheaper"] is None else f"{r['times_cheaper']:.1f}x"
        floor = "-" if r.get("floor_ratio") is None else f"{r['floor_ratio']:.2f}x"
        lines.append(f"| {r['label']}{mark} | {r['agent_calls']:,} | {r['agent_input_tokens']:,} | "
                     f"{_share(r['cache_hit_share'])} | {r['agent_output_tokens']:,} | {_money(r['agent_usd'])} | "
                     f"{_money(r['total_usd'])} | {_money(r.get('usd_per_question'))} | {times} | {floor} |")
    return "\n".join(lines)


def format_floor(floor: Floor | None) -> list[str]:
    """The floor line under the comparison (x floor = a row's USD total / this)."""
    if not floor:
        return []
    usd = "no price in [prices]" if floor["usd"] is None else f"${floor['usd']:,.2f} (${floor['usd_per_question']:,.2f} " \
                                                                "per question)"
    return ["", f"floor: {usd} = the haystack read once ({floor['input_tokens']:,} input tokens) + one "
                f"~{floor['summary_tokens']}-token summary per message + the context written once per session "
                f"({floor['context_updates']:,} updates; {floor['output_tokens']:,} output tokens in all), at the agent "
                "model's prices; x floor = a row's USD total (QA and judge included) / the floor."]


def _multi_agent_lines(est: Estimate, data: EstimateJson) -> list[str]:
    """The judge's model by purpose and the adversary's extra questions; nothing without [multi_agent] calls."""
    lines: list[str] = []
    if "adversary_questions" in data["dataset"]:
        lines += ["", f"adversary: up to {est.adversary_questions:,} extra questions (cases x rounds x "
                      "adversary_questions), each answered and judged like a dataset question."]
    parts = data["roles"]["eval"]["parts"]
    if len(parts) > 1:
        lines += ["", "eval by purpose (the judge's model; the rows sum to the eval role):", "",
                  "| purpose | calls | input tokens | output tokens | cost (USD) |", "|---|---|---|---|---|"]
        lines += [f"| {part} | {r['calls']:,} | {r['input_tokens']:,} | {r['output_tokens']:,} | "
                  f"{_money(r['cost_usd'])} |" for part, r in parts.items()]
    return lines


def format_estimate(est: Estimate) -> str:
    data = estimate_json(est)
    s = data["setting"]
    lines = [f"questions {est.questions}, cases (memories) {est.cases}, sessions {est.sessions}, "
             f"messages {est.messages}, agent model calls ~{est.agent_calls:,} "
             f"(ingest unit {s['ingest_unit']}, prompt cache {'on' if s['prompt_cache'] else 'off'}, "
             f"{len(s['tools'])} tools)", "",
             "| role | model | input tokens | cache read | cache write | output tokens | batch | cost (USD) |",
             "|---|---|---|---|---|---|---|---|"]
    for role, r in data["roles"].items():
        batch = f"x{est.settings.pricing.batch.price_factor:g} (was {_money(r['sync_usd'])})" if r["batch"] else "-"
        lines.append(f"| {role} | {r['model'] or '-'} | {r['input_tokens']:,} | {r['cache_read_tokens']:,} | "
                     f"{r['cache_write_tokens']:,} | {r['output_tokens']:,} | {batch} | {_money(r['cost_usd'])} |")
    known = sum(r["cost_usd"] for r in data["roles"].values() if r["cost_usd"] is not None)
    lines += _multi_agent_lines(est, data)
    lines += ["", f"total (priced roles): ${known:,.2f}"]
    if est.model is not None:
        t = data["tool_schema_tokens"]
        lines += ["", "Settings compared on the same data (QA and judge are the same in every row; x cheaper is "
                      "against the baseline):", "", format_comparison(data["comparison"]), *format_floor(data["floor"]), "",
                  f"tool subset: {len(t['configured_tools'])} of {len(est.all_tools)} tools, {t['configured']:,} "
                  f"schema tokens per agent call instead of {t['all_tools']:,} (saves {t['saved_per_call']:,} "
                  f"tokens per call, {t['saved_per_call'] * est.agent_calls:,} over this run's agent calls)."]
    else:
        lines += ["", "no memory-agent calls in this run (retrieval mode, no ingest phase, or an outside agent)."]
    lines += ["", f"token counts: {data['token_count']} (no tokenizer runs here)"]
    lines += ["", "Assumptions: " + " ".join(f"({i}) {a}" for i, a in enumerate(data["assumptions"], start=1))]
    lines += [f"note: {n}" for n in data["price_notes"]]
    return "\n".join(lines)


__all__ = ["Estimate", "EstimateSettings", "RolePricing",
           "estimate_run", "format_estimate", "estimate_json", "cost", "eval_parts_cost",
           "comparison", "role_pricing"]
