"""A model's harder questions about a case's own turns (LongMemEval haystacks, in-house levels),
each checked against the dialogue before it is asked.

These datasets have no fact records to propose from, so a model ([models].eval) reads a sample
of the case's turns (the evidence turns first, then turns of other sessions: facts stated once
among distractors) and writes questions. The harness asks only those it can check:

- an answerable question cites turns that exist, quotes words that are in one of them verbatim
  (case and spacing aside), and every content word of its answer is in the cited turns: the gold
  answer is stated, not computed (a derived answer cannot be checked from the text and is dropped);
  the question must not give its answer away;
- a "never stated" question names the term it asks about (`absent`); it is kept only when the term
  is in the question and in no message of the case. Its gold answer is an abstention.

Dropped proposals are counted with their reason. The sample shown is seeded by case and round, so
a resumed run shows the model the same turns.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from benchmarker.datasets.schema import Case, Question
from benchmarker.memory.tool_mapping import render
from benchmarker.redact import clean_cut
from benchmarker.suites.long_horizon.data.adversary import Proposal, failures_text

TURNS_SHOWN = 60          # turns listed in the proposer's prompt
TURN_CHARS = 600          # each shown turn is cut to this many characters (verification reads it whole)
ABSTENTION_ANSWER = "The conversation never mentions this, so it cannot be answered."
_WORD = re.compile(r"[a-z0-9]+(?:[.,:/-][a-z0-9]+)*")
_STOP = frozenset("a an the of to in on at for and or but is are was were be been it its my our your their "
                  "i you we they he she his her me us them this that these those with by from as about".split())


@dataclass(frozen=True)
class Turn:
    """One message of the case with its place: `tid` is what the prompt calls it (T<global index>)."""

    index: int
    session_id: str
    turn_index: int
    date: str
    role: str
    content: str
    has_answer: bool = False

    @property
    def tid(self) -> str:
        return f"T{self.index}"


def case_turns(case: Case) -> list[Turn]:
    out, k = [], 0
    for session in case.sessions:
        for i, message in enumerate(session.messages):
            out.append(Turn(k, session.session_id, i, session.date, message.role, message.content, message.has_answer))
            k += 1
    return out


def shown_turns(case: Case, round_: int) -> list[Turn]:
    """What the proposer reads: every evidence turn (has_answer, or cited by a question), then a
    seeded sample of user turns from the other sessions, up to TURNS_SHOWN, in dialogue order."""
    turns = case_turns(case)
    flagged = {(str(pair[0]), int(pair[1])) for q in case.questions for pair in q.evidence.get("turns") or []
               if isinstance(pair, (list, tuple)) and len(pair) == 2}
    evidence = [t for t in turns if t.has_answer or (t.session_id, t.turn_index) in flagged]
    taken = {t.index for t in evidence}
    rest = [t for t in turns if t.index not in taken and t.role == "user" and len(t.content) > 20]
    random.Random(f"adversary:{case.case_id}:{round_}").shuffle(rest)
    chosen = evidence[:TURNS_SHOWN] + rest[:max(0, TURNS_SHOWN - len(evidence))]
    return sorted(chosen, key=lambda t: t.index)


def evidence_prompt(case: Case, *, weak: list[str], categories: list[str], failures: list[tuple[str, str]], n: int,
                    template: str, round_: int) -> str:
    """The proposer's prompt: the weak categories, a few failures, and the shown turns."""
    lines = "\n".join(f"[{t.tid}] {t.date} {t.role}: {clean_cut(_one_line(t.content), TURN_CHARS)}"
                      for t in shown_turns(case, round_))
    values = {"weak_categories": ", ".join(weak) or "(none: every answer was right)", "categories": ", ".join(categories),
              "failures": failures_text(failures), "n": str(n), "turns": lines}
    return render(template, values)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def check(item: dict[str, Any], turns: dict[str, Turn], corpus: str) -> str | None:
    """None when the proposal checks out against the dialogue, else why not."""
    question, answer = str(item.get("question", "")).strip(), str(item.get("answer", "")).strip()
    absent = str(item.get("absent") or "").strip()
    if absent:
        if len(absent) < 3 or absent.lower() not in question.lower():
            return "never-stated question: its absent term is not in the question"
        return f"{absent!r} does appear in the dialogue" if absent.lower() in corpus else None
    if not answer:
        return "no answer"
    cited = [turns.get(_tid(t)) for t in item.get("turns") or []]
    if not cited or None in cited:
        return "cites a turn that does not exist"
    text = _one_line(" ".join(t.content for t in cited if t)).lower()
    quote = _one_line(str(item.get("quote") or "")).lower().strip(" \"'.")
    if not quote or quote not in text:
        return "the quote is not in the cited turns"
    needed = _words(answer)
    if not needed or not needed <= _words(text):
        return "the answer is not stated in the cited turns"
    if _one_line(answer).lower() in _one_line(question).lower():
        return "the question gives its answer away"
    return None


def _tid(value: Any) -> str:
    text = str(value).strip().strip("[]")
    return text if text.startswith("T") else f"T{text}"


def checked_questions(case: Case, items: list[dict[str, Any]], *, asked: set[str], weak: list[str],
                      categories: list[str], round_: int, rubric_for=None) -> Proposal:
    """Keep each proposal that `check` accepts, as a Question of the case (ids `<case>-r<N>-m<k>`,
    `_abs` for a never-stated one). `rubric_for(answer, abstain)` gives level questions their rubric."""
    turns = {t.tid: t for t in case_turns(case)}
    corpus = "\n".join(t.content for t in turns.values()).lower()
    out = Proposal()
    qdate = next((q.question_date for q in case.questions if q.question_date), case.sessions[-1].date
                 if case.sessions else "")
    for item in items:
        out.proposed += 1
        question = str(item.get("question", "")).strip()
        if not question or question in asked:
            out.dropped.append((question, "empty, or asked before"))
            continue
        reason = check(item, turns, corpus)
        if reason is not None:
            out.dropped.append((question, reason))
            continue
        asked.add(question)
        abstain = bool(str(item.get("absent") or "").strip())
        category = str(item["category"]) if item.get("category") in categories else (weak or categories or [""])[0]
        cited = [] if abstain else [turns[_tid(t)] for t in item.get("turns") or []]
        answer = ABSTENTION_ANSWER if abstain else str(item["answer"]).strip()
        k = len(out.questions) + 1
        sessions = sorted({t.session_id for t in cited})
        out.questions.append(Question(
            f"{case.case_id}-r{round_}-m{k}" + ("_abs" if abstain else ""), category, question, answer, qdate,
            tuple(sessions), category, rubric_for(answer, abstain) if rubric_for else {},
            {"turns": [[t.session_id, t.turn_index] for t in cited], "quote": str(item.get("quote") or ""),
             "absent": str(item.get("absent") or ""), "question_key": f"{category}#r{round_}-m{k}",
             "template": "model", "round": round_}))
    return out
