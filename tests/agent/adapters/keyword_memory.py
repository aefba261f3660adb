"""The example agents' whole brain: remember messages, answer with the best keyword match.

Standalone on purpose (no `benchmarker` import): it shows how little an outside agent needs.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset("a an and are did do does i is it my of on the to was what when where which who why how "
                      "you your me name named".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS and len(w) > 2}


class KeywordMemory:
    def __init__(self) -> None:
        self.items: list[dict] = []

    def learn(self, item: dict) -> dict:
        """Store the message; the reply reports the one tool used, as the protocols allow."""
        self.items.append(item)
        return {"tool_calls": [{"name": "add_entry", "arguments": {"raw_entry": item["content"],
                                                                   "summary": item["content"][:120]}}]}

    def reset(self) -> None:
        self.items.clear()

    def answer(self, question: str, question_date: str) -> dict:
        asked = words(question)
        scored = [(len(asked & words(i["content"])), n, i) for n, i in enumerate(self.items)]
        best = max(scored, key=lambda s: (s[0], s[1]), default=None)
        if best is None or best[0] == 0:
            return {"answer": "I don't know.", "confidence": 0.0}
        hits, _, item = best
        return {"answer": item["content"], "confidence": round(hits / max(1, len(asked)), 3),
                "tool_calls": [{"name": "keyword_lookup", "arguments": {"words": sorted(asked)},
                                "output": item["session_id"]}],
                "reasoning_trace": f"{hits} shared words with a message from {item['date']}",
                "metadata": {"learned": len(self.items), "question_date": question_date}}
