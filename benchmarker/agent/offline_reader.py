"""The offline QA reader: an extractive, deterministic floor every real model must beat.

It reads the sections of `prompts/qa_reader.txt` back out of the prompt (question, question
date, memory context), scores each sentence of the context by the content words it shares with
the question (rarer words weigh more; numbers and dates earn a bonus when the question asks
how many / when), and answers with the best sentence (the whole entry when it is short), or
abstains when too little matches. The small text helpers here are shared with the offline agent.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarker.agent.prompts import parse_qa_prompt

ABSTAIN_ANSWER = "I don't know: the memory does not contain this."
ZERO_USAGE = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself yourselves
also am did get got may might must shall tell told know let us ever still yet well really much many
please thanks thank okay ok yes yeah sure like one previous mentioned remember said say recall
""".split())

COUNT_RE = re.compile(r"\b(how many|how much|how long|how old|how often|what number|total|count)\b", re.I)
TIME_RE = re.compile(r"\b(when|what date|what day|what time|which day|which month|which year|how long ago|"
                     r"first|last|before|after|earlier|later|ago)\b", re.I)
DATE_RE = re.compile(r"\b(\d{4})[/-](\d{1,2})[/-](\d{1,2})\b")
ENTRY_PREFIX_RE = re.compile(r"^\[(?P<date>[^\]]*)\]\s*(?:(?P<role>user|assistant):)?\s*", re.I)
SHORT_ENTRY = 200
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def iso_date(session_date: str) -> str:
    """"2023/05/20 (Sat) 02:21" -> "2023-05-20" (unchanged when it holds no date)."""
    match = DATE_RE.search(session_date or "")
    if match is None:
        return session_date
    year, month, day = match.groups()
    return f"{year}-{int(month):02d}-{int(day):02d}"


ABBREVIATIONS = frozenset("dr mr mrs ms st jr sr vs etc e.g i.e no approx prof inc ltd co mt ft".split())


def split_sentences(text: str) -> list[str]:
    """Lines, then sentences within lines (not after "Dr." and the like); empty pieces dropped."""
    out: list[str] = []
    for line in text.splitlines():
        pieces = [p.strip() for p in SENTENCE_SPLIT_RE.split(line.strip()) if p.strip()]
        merged: list[str] = []
        for piece in pieces:
            last_word = merged[-1].rsplit(" ", 1)[-1].rstrip(".").lower() if merged else ""
            if merged and merged[-1].endswith(".") and last_word in ABBREVIATIONS:
                merged[-1] += " " + piece
            else:
                merged.append(piece)
        out.extend(merged)
    return out


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_words(text: str) -> list[str]:
    """Lower-cased, stemmed words that carry meaning (stopwords dropped, numbers kept)."""
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())
    return [_stem(w.split("'")[0]) for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def has_number(text: str) -> bool:
    return bool(re.search(r"\d", text)) or bool(re.search(
        r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|dozen)\b", text, re.I))


def _candidates(context: str) -> list[tuple[str, str, str]]:
    """(sentence, its whole entry line, the entry's date) for every sentence of the context."""
    out: list[tuple[str, str, str]] = []
    for line in context.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if not line or line.startswith("#") or line.startswith("==="):
            continue
        date = ""
        prefix = ENTRY_PREFIX_RE.match(line)
        if prefix:
            date = iso_date(prefix.group("date"))
            line = line[prefix.end():]
        elif DATE_RE.search(line):
            date = iso_date(line)
        out.extend((sentence, line, date) for sentence in split_sentences(line))
    return out


NEAR_TIE = 0.9  # candidates scoring within 10% of the best count as tied


def extract_answer(question: str, context: str, *, min_overlap_ratio: float = 0.34) -> str:
    """The best-matching context sentence, or ABSTAIN_ANSWER when too few question words match."""
    q_words = set(content_words(question))
    candidates = _candidates(context)
    if not q_words or not candidates:
        return ABSTAIN_ANSWER
    doc_freq = Counter(w for sentence, _, _ in candidates for w in set(content_words(sentence)))
    n = len(candidates)
    wants_count, wants_time = bool(COUNT_RE.search(question)), bool(TIME_RE.search(question))
    scored: list[tuple[float, int, str, str, str]] = []
    for sentence, line, date in candidates:
        matched = q_words & set(content_words(sentence))
        if not matched:
            continue
        score = sum(1.0 + math.log((n + 1) / (1 + doc_freq[w])) for w in matched)
        if wants_count and has_number(sentence):
            score += 1.0
        if wants_time and (date or DATE_RE.search(sentence)):
            score += 0.5
        scored.append((score, len(matched), sentence, line, date))
    needed = max(1, round(min_overlap_ratio * len(q_words)))
    if not scored or max(s[0] for s in scored) <= 0:
        return ABSTAIN_ANSWER
    top = max(s[0] for s in scored)
    # Near-ties go to the most recent entry (the prompt's rule: the latest statement is the current
    # state, e.g. an updated value); among equals the earlier sentence (higher-ranked hit) wins.
    near = [s for s in scored if s[0] >= NEAR_TIE * top and s[1] >= needed]
    if not near:
        return ABSTAIN_ANSWER
    best = max(near, key=lambda s: (s[4], s[0], -scored.index(s)))
    _, _, sentence, line, date = best
    # A short entry is answered whole: its other sentences often carry the answer ("She works as ...").
    answer = line if len(line) <= SHORT_ENTRY else sentence
    answer = answer if len(answer) <= 300 else answer[:297].rsplit(" ", 1)[0] + "..."
    if wants_time and date and date not in answer:
        answer = f"On {date}: {answer}"
    return answer


def messages_text(messages: list[BaseMessage]) -> str:
    return "\n\n".join(m.text for m in messages if m.text)


class OfflineReaderModel(BaseChatModel):
    """Extractive QA reader over the `qa_reader.txt` prompt; deterministic, zero tokens."""

    model_name: str = "offline-reader"
    min_overlap_ratio: float = 0.34

    @property
    def _llm_type(self) -> str:
        return "offline-reader"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        text = messages_text(messages)
        prompt = parse_qa_prompt(text)
        if prompt is None:
            answer = "I can only answer prompts written with prompts/qa_reader.txt."
        else:
            answer = extract_answer(prompt.question, prompt.context, min_overlap_ratio=self.min_overlap_ratio)
        message = AIMessage(content=answer, usage_metadata=dict(ZERO_USAGE),
                            response_metadata={"model_name": self.model_name, "offline": True})
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, **kwargs)
