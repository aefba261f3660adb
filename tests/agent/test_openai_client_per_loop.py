"""A chat model built in one event loop and another built in the next (two `run` commands in one process, or
two tests whose local servers got the same port) must not share pooled connections: langchain-openai caches its
default async HTTP client per base URL for the whole process, and a connection kept alive from a closed loop
fails the next call with "Event loop is closed" (a judge call lost, reported as an unjudged answer)."""

from __future__ import annotations

import asyncio

from langchain_core.messages import HumanMessage

from benchmarker.agent.providers import make_chat_model
from tests.fakes.openai_server import ScriptedOpenAIServer


def test_models_built_in_successive_event_loops_each_get_an_answer(monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-loop-test")
    with ScriptedOpenAIServer(lambda request: "yes") as server:
        async def ask() -> str:
            model = make_chat_model("openai", "gpt-4o-mini", role="eval", base_url=server.base_url,
                                    api_key_env="TEST_OPENAI_KEY")
            reply = await model.ainvoke([HumanMessage("is it right?")])
            return str(reply.content)

        answers = [asyncio.run(ask()) for _ in range(3)]
    assert answers == ["yes", "yes", "yes"]
