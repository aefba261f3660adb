"""An OpenAI-compatible fake's answer to the fact-enumeration judge prompt (prompts/fact_judge.txt):
the three inputs are read back out of the rendered prompt and enumerated deterministically
(suites/fact_extraction/fact_enumeration.py), so the real langchain-openai client, the retry layer, the ledger and
the judge's JSON parsing are all exercised, with answers a test can predict."""

from __future__ import annotations

import json
import re
from typing import Any

from benchmarker.suites.fact_extraction.fact_enumeration import enumerate_facts

_SECTION = re.compile(r"## Input 1: CONVERSATION\n(?P<conv>.*?)\n\n## Input 2:[^\n]*\n(?P<mem>.*?)\n\n"
                      r"## Input 3:[^\n]*\n(?P<out>.*?)\n\n---", re.S)


def judge_reply(prompt: str) -> str:
    m = _SECTION.search(prompt)
    if m is None:
        return "I cannot tell."
    conversation = []
    for line in m["conv"].splitlines():
        role, _, content = line.partition(": ")
        conversation.append({"role": role.lower(), "content": content})
    memory = [] if m["mem"].strip() == "(empty)" else [x.removeprefix("- ") for x in m["mem"].splitlines()]
    out = [] if m["out"].strip() == "(nothing was written)" else [x.removeprefix("- ") for x in m["out"].splitlines()]
    return json.dumps(enumerate_facts(conversation, memory, out))


def openai_judge_script(request: dict[str, Any]) -> dict[str, Any]:
    """ScriptedOpenAIServer(script=openai_judge_script): every request is a judge prompt."""
    content = request["messages"][-1]["content"]
    text = content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)
    return {"text": judge_reply(text)}
