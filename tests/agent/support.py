"""Helpers for the agent tests: a connected memory session, scripted chat models, the agent setup."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from tests.fakes.mcp_memory import FakeMemoryServer

SESSION_DATE = "2023/05/20 (Sat) 02:21"


@asynccontextmanager
async def memory_session(server: FakeMemoryServer, title: str = "mem-1", **connect_kw: Any):
    """(client, vault_id, memory_id, default_prompts) — opened and closed inside the test's own task."""
    from benchmarker.memory.client import MemoryClient

    async with MemoryClient.connect(server.url, **connect_kw) as client:
        vault_id = await client.ensure_vault("agent-tests")
        memory = await client.create_memory(vault_id, title)
        prompts = await client.get_default_prompts("chat")
        yield client, vault_id, memory["memoryId"], prompts


class LoopingToolModel(BaseChatModel):
    """Asks for the same tool call forever: the tool-call cap must stop it."""

    tool: str = "get_context"
    args: dict[str, Any] = {}
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "LoopingToolModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls += 1
        call = {"name": self.tool, "args": dict(self.args), "id": f"loop_{self.calls}", "type": "tool_call"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])


def offline_setup(client: Any, *, cap: int = 5, model: Any = None, decisions: list | None = None,
                  ledger: Any = None, provider: str = "offline", policy: Any = None) -> Any:
    """The memory agent over the client's MCP tools, with a list-collecting decision sink."""
    from benchmarker.agent.memory_agent import build_memory_agent
    from benchmarker.agent.offline import OfflineMemoryAgentModel
    from benchmarker.agent.retry import RetryPolicy

    sink = (lambda ctx, record: decisions.append((ctx, record))) if decisions is not None else None
    return build_memory_agent(model or OfflineMemoryAgentModel(), client.tools, max_tool_calls_per_turn=cap,
                              retry_policy=policy or RetryPolicy(max_attempts=3, initial_backoff_s=0.01,
                                                                 max_backoff_s=0.1),
                              ledger=ledger, decision_sink=sink, provider=provider)


def agent_context(vault_id: str, memory_id: str, prompts: dict, *, session_id: str = "s1",
                  session_date: str = SESSION_DATE, cadence: int = 6) -> Any:
    from benchmarker.agent.memory_agent import MemoryAgentContext
    from benchmarker.agent.prompts import MEMORY_AGENT_PREFIX, compose_memory_system_prompt, load_prompt

    system = compose_memory_system_prompt(load_prompt(MEMORY_AGENT_PREFIX), prompts, vault_id=vault_id,
                                          memory_id=memory_id, context_cadence=cadence)
    return MemoryAgentContext(system_prompt=system, run_id="run-1", case_id="case-1", question_id="q-1",
                              vault_id=vault_id, memory_id=memory_id, session_id=session_id,
                              session_date=session_date)


async def run_session(agent: Any, context: Any, messages: list[tuple[str, str]], *, recursion_limit: int = 40):
    """Stream a session's messages through the agent the way the harness does; the outcomes."""
    from benchmarker.agent.memory_agent import run_agent_turn, turn_message

    transcript, outcomes = [], []
    for i, (role, content) in enumerate(messages):
        transcript.append(turn_message(context.session_id, context.session_date, i + 1, len(messages), role,
                                       content))
        outcomes.append(await run_agent_turn(agent, transcript, context.for_turn(i, role),
                                             recursion_limit=recursion_limit))
    return outcomes
