"""The `offline` provider: deterministic models that need no key and no network.

`OfflineMemoryAgentModel` drives the prebuilt memory agent with real tool calls
(offline_agent.py); `OfflineReaderModel` answers QA prompts extractively (offline_reader.py).
There is no offline judge model: the harness grades offline runs with the deterministic grader.
Offline numbers are a floor, and every output labels them as offline.
"""

from benchmarker.agent.offline_agent import OfflineMemoryAgentModel, build_context, summarize_message
from benchmarker.agent.offline_reader import ABSTAIN_ANSWER, OfflineReaderModel, extract_answer

__all__ = ["ABSTAIN_ANSWER", "OfflineMemoryAgentModel", "OfflineReaderModel", "build_context", "extract_answer",
           "summarize_message"]
