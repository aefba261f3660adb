"""`mycelian-longmemeval estimate CONFIG`: tokens and cost of a run before paying for it.

A run's agent cost is dominated by the rolling transcript: turn t of a session sends the system
prompt plus all t messages so far, once per model call of that turn. This counts exactly that
from the selected data (tokens ~ characters / 4, the usual rule of thumb for English), with the
call pattern of Mycelian's capture rules (bootstrap on the first turn, one add_entry per
message, put_context on cadence). Real models vary; the estimate says which assumptions it used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.datasets.source import plan_dataset

CHARS_PER_TOKEN = 4.0
SYSTEM_PROMPT_TOKENS = 2400      # our prefix + Mycelian's four default prompt texts
TOOL_SCHEMA_TOKENS = 1500        # 13 MCP tool schemas sent with every agent call
CALLS_PER_TURN = 2               # the add_entry call, then the final "recorded" reply
BOOTSTRAP_CALLS = 2              # get_context, list_entries on a session's first message
CONTEXT_CALLS = 3                # await_consistency, get_context, put_context on cadence
AGENT_OUTPUT_PER_CALL = 120      # a summary-bearing tool call or a short reply
QA_OVERHEAD_TOKENS = 350         # the reader prompt around the retrieved context
ENTRY_TOKENS = 120               # a retrieved entry as shown to the reader
QA_OUTPUT = 60
JUDGE_INPUT, JUDGE_OUTPUT = 350, 5


@dataclass
class Estimate:
    questions: int = 0
    cases: int = 0
    sessions: int = 0
    messages: int = 0
    agent_calls: int = 0
    tokens: dict[str, dict[str, int]] = field(default_factory=lambda: {r: {"input": 0, "output": 0}
                                                                       for r in ("agent", "qa", "eval")})

    def add(self, role: str, calls: int, input_tokens: float, output_tokens: float) -> None:
        self.tokens[role]["input"] += int(input_tokens)
        self.tokens[role]["output"] += int(output_tokens)
        if role == "agent":
            self.agent_calls += calls


def _tokens(text: str) -> float:
    return len(text) / CHARS_PER_TOKEN


def estimate_run(config, scratch_dir: Path) -> Estimate:
    """Walk the selected cases once (streamed) and count what the run would send."""
    plan = plan_dataset(config, scratch_dir)
    est = Estimate()
    cadence = config.params.context_cadence
    agent_mode = config.run.mode == "agent"
    for group in plan.groups:
        for case in group.cases():
            est.cases += 1
            est.questions += len(case.questions) or 1
            for session in case.sessions:
                est.sessions += 1
                so_far = 0.0
                for turn, message in enumerate(session.messages, start=1):
                    est.messages += 1
                    so_far += _tokens(message.content) + 20  # + the turn header
                    if not agent_mode or "ingest" not in config.run.phases:
                        continue
                    calls = CALLS_PER_TURN + (BOOTSTRAP_CALLS if turn == 1 else 0)
                    if turn % cadence == 0 or turn == len(session.messages):
                        calls += CONTEXT_CALLS
                    prompt = SYSTEM_PROMPT_TOKENS + TOOL_SCHEMA_TOKENS + so_far
                    # each later call of the turn also re-sends the earlier calls and their results
                    est.add("agent", calls, calls * prompt + calls * (calls - 1) / 2 * 150,
                            calls * AGENT_OUTPUT_PER_CALL)
            if agent_mode and "qa" in config.run.phases:
                context = min(config.params.top_k * ENTRY_TOKENS, config.params.qa_max_context_chars / CHARS_PER_TOKEN)
                n = len(case.questions)
                est.add("qa", n, n * (QA_OVERHEAD_TOKENS + context), n * QA_OUTPUT)
                if config.models.eval and config.params.use_llm_judge and "eval" in config.run.phases:
                    est.add("eval", n, n * JUDGE_INPUT, n * JUDGE_OUTPUT)
    return est


def cost(est: Estimate, config) -> dict[str, float | None]:
    prices = {k: v for k, v in config.prices.items()}
    out: dict[str, float | None] = {}
    for role, model in (("agent", config.models.agent), ("qa", config.models.qa), ("eval", config.models.eval)):
        tokens = est.tokens[role]
        if not tokens["input"] and not tokens["output"]:
            out[role] = 0.0
        elif model.startswith("offline"):
            out[role] = 0.0
        elif model in prices:
            out[role] = (tokens["input"] * prices[model].input + tokens["output"] * prices[model].output) / 1e6
        else:
            out[role] = None
    return out


def format_estimate(est: Estimate, config) -> str:
    usd = cost(est, config)
    lines = [f"questions {est.questions}, cases (memories) {est.cases}, sessions {est.sessions}, "
             f"messages {est.messages}, agent model calls ~{est.agent_calls:,}", "",
             "| role | model | input tokens | output tokens | cost (USD) |", "|---|---|---|---|---|"]
    models: dict[str, Any] = {"agent": config.models.agent, "qa": config.models.qa, "eval": config.models.eval or "-"}
    for role in ("agent", "qa", "eval"):
        t = est.tokens[role]
        c = usd[role]
        lines.append(f"| {role} | {models[role]} | {t['input']:,} | {t['output']:,} | "
                     + ("no price in [prices]" if c is None else f"{c:,.2f}") + " |")
    known = [c for c in usd.values() if c is not None]
    lines += ["", f"total (priced roles): ${sum(known):,.2f}. Assumptions: ~{CHARS_PER_TOKEN:g} characters per token, "
              f"{CALLS_PER_TURN} agent calls per message (+{BOOTSTRAP_CALLS} at a session's start, "
              f"+{CONTEXT_CALLS} every {config.params.context_cadence} messages), the rolling transcript re-sent "
              "on every call; real models make more or fewer tool calls."]
    return "\n".join(lines)
