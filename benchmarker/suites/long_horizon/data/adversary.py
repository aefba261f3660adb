"""The offline adversary: new long-horizon questions aimed at the categories a run got wrong, each
with a gold answer the harness checked against the dialogue before asking it.

The generator knows far more questions than a run asks (`questions_available`); each comes with
the fact records it is built on (value, the global turn that delivered it). The adversary takes
unasked ones from the weakest categories and verifies each against the ground truth:

- every evidence fact is delivered in the dialogue: the message at the fact's turn states its
  value verbatim (case-insensitive);
- the gold answer states one of those values, or is derived from them (counting, ordering,
  arithmetic, multi-hop: the generator computed it from the verified facts);
- a "never mentioned" question about an invented entity (a ghost project or incident) is kept
  only when that name appears in no message; other never-mentioned questions (an attribute never
  given) cannot be checked from the text and are dropped.

Dropped questions are counted with their reason. Same dialogue, same results so far, same
questions: a resumed run proposes the same ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchmarker.datasets.schema import Case, Question
from benchmarker.memory.tool_mapping import render
from benchmarker.suites.long_horizon.data import all_candidates
from benchmarker.suites.long_horizon.data.dialogue import build_world, layout
from benchmarker.suites.long_horizon.data.questions import Candidate

DERIVED = {"counting", "numerical_reasoning", "temporal_ordering", "multi_hop", "past_value", "latest_value",
           "contradiction"}
_GHOST = re.compile(r"\b(?:Project\s+[A-Z][\w-]+|INC-\d+)")


@dataclass
class Proposal:
    """One round's questions for one case, and what was dropped on the way."""

    questions: list[Question] = field(default_factory=list)
    proposed: int = 0
    dropped: list[tuple[str, str]] = field(default_factory=list)   # (question text, why it was dropped)

    @property
    def verified(self) -> int:
        return len(self.questions)


def weakest_categories(labels: dict[str, list[bool]], k: int = 3) -> list[str]:
    """Categories by accuracy, lowest first (ties: more questions first); only those with a wrong answer."""
    scored = [(sum(v) / len(v), -len(v), cat) for cat, v in labels.items() if v and not all(v)]
    return [cat for _, _, cat in sorted(scored)[:k]]


def _forms(value: str) -> list[str]:
    """How a value can be written in the dialogue: as stored, a number also with thousands commas, an ISO
    date also as "April 18"."""
    forms = [value.lower()]
    if re.fullmatch(r"\d{4,}", value):
        forms.append(f"{int(value):,}")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        from benchmarker.suites.long_horizon.data.questions import _md

        forms.append(_md(value).lower())
    return forms


def verify(cand: Candidate, facts: dict, messages: list[str]) -> str | None:
    """None when the gold answer checks out against the dialogue, else why not."""
    if cand.rubric.get("abstain"):
        ghosts = _GHOST.findall(cand.question)
        if not ghosts:
            return "never-mentioned attribute: its absence cannot be checked from the text"
        text = "\n".join(messages).lower()
        return f"{ghosts[0]} does appear in the dialogue" if any(g.lower() in text for g in ghosts) else None
    if not cand.facts:
        return "no evidence facts"
    values = []
    for fid in cand.facts:
        fact = facts.get(fid)
        if fact is None or fact.turn < 0 or fact.turn >= len(messages):
            return f"fact {fid} is never delivered"
        said = [form for form in _forms(str(fact.value)) if form in messages[fact.turn].lower()]
        if not said:
            return f"fact {fid} ({fact.value!r}) is not stated at turn {fact.turn}"
        values += said
    if cand.category not in DERIVED and not any(v in cand.answer.lower() for v in values):
        return "the gold answer states none of its evidence values"
    return None


def _world(case: Case):
    """The case's generated world with every fact placed at its turn (as its dialogue was laid out),
    and the question partition the case asks from."""
    seed, turns = case.metadata["seed"], case.metadata["turns"]
    world = build_world(turns, seed)
    layout(world, seed)
    return world, 1 if case.metadata.get("holdout") else 0


def propose(case: Case, *, asked: set[str], weak: list[str], n: int, round_: int) -> Proposal:
    """Up to `n` verified questions from `weak` categories (round-robin, weakest first) not in `asked`."""
    world, part = _world(case)
    messages = [m.content for s in case.sessions for m in s.messages]
    pool = {cat: [c for c in all_candidates(world) if c.category == cat and c.part == part and c.question not in asked]
            for cat in weak}
    out = Proposal()
    qdate = case.questions[0].question_date if case.questions else ""
    while len(out.questions) < n and any(pool.values()):
        for cat in weak:
            if not pool[cat] or len(out.questions) >= n:
                continue
            cand = pool[cat].pop(0)
            out.proposed += 1
            reason = verify(cand, world.facts, messages)
            if reason is not None:
                out.dropped.append((cand.question, reason))
                continue
            k = len(out.questions) + 1
            turns_of = sorted({world.facts[f].turn for f in cand.facts})
            sessions = sorted({world.facts[f].session_id for f in cand.facts})
            qid = f"{case.case_id}-r{round_}-{k}" + ("_abs" if cand.rubric.get("abstain") else "")
            out.questions.append(Question(qid, cand.category, cand.question, cand.answer, qdate, tuple(sessions),
                                          cand.category, cand.rubric,
                                          {"turns": turns_of, "facts": list(cand.facts), "sessions": sessions,
                                           "question_key": f"{cand.category}#r{round_}-{k}",
                                           "template": cand.template, "round": round_}))
    return out


# --- a model proposes, the harness verifies ------------------------------------------------------

FACTS_SHOWN = 80   # facts listed in the proposer's prompt (seeded sample of the case's partition)


def proposer_prompt(case: Case, *, asked: set[str], weak: list[str], failures: list[tuple[str, str]], n: int,
                    template: str) -> tuple[str, dict]:
    """The prompt for a proposing model, and the world whose facts verify its questions."""
    import random

    world, part = _world(case)
    seed = case.metadata["seed"]
    facts = [f for f in world.facts.values() if f.part == part and f.turn >= 0]
    random.Random(f"adversary:{seed}:{len(asked)}").shuffle(facts)
    lines = "\n".join(f"{f.fact_id} | {f.subject} | {f.attribute} | {f.value}" for f in facts[:FACTS_SHOWN])
    values = {"weak_categories": ", ".join(weak), "failures": failures_text(failures), "n": str(n), "facts": lines}
    return render(template, values), world.facts


def failures_text(failures: list[tuple[str, str]]) -> str:
    """A proposer prompt's examples of wrong answers: up to five questions with their gold answers."""
    return "\n".join(f"- {q} (gold: {a})" for q, a in failures[:5]) or "- (none recorded)"


def verified_from_model(case: Case, items: list[dict], facts: dict, *, asked: set[str], weak: list[str],
                        round_: int) -> Proposal:
    """Keep each proposed question whose gold answer checks out against the dialogue (`verify`)."""
    from benchmarker.suites.levels.data.spec import rubric
    from benchmarker.suites.long_horizon.data.questions import BASE, CATEGORIES

    messages = [m.content for s in case.sessions for m in s.messages]
    out = Proposal()
    qdate = case.questions[0].question_date if case.questions else ""
    for item in items:
        out.proposed += 1
        question, answer = str(item.get("question", "")).strip(), str(item.get("answer", "")).strip()
        category = str(item["category"]) if item.get("category") in CATEGORIES else (weak[0] if weak else "detail_recall")
        ids = [str(f) for f in item.get("facts") or []]
        if not question or not answer or question in asked:
            out.dropped.append((question, "empty, or asked before"))
            continue
        if category == "never_mentioned":
            out.dropped.append((question, "never-mentioned attribute: its absence cannot be checked from the text"))
            continue
        cand = Candidate(category, "model", question, answer, rubric([[answer]], dimensions=BASE), ids, 0)
        reason = verify(cand if category not in DERIVED else Candidate("detail_recall", "model", question, answer,
                                                                        cand.rubric, ids, 0), facts, messages)
        if reason is not None:
            out.dropped.append((question, reason))
            continue
        asked.add(question)
        k = len(out.questions) + 1
        sessions = sorted({facts[f].session_id for f in ids})
        out.questions.append(Question(f"{case.case_id}-r{round_}-m{k}", category, question, answer, qdate,
                                      tuple(sessions), category, cand.rubric,
                                      {"turns": sorted({facts[f].turn for f in ids}), "facts": ids, "sessions": sessions,
                                       "question_key": f"{category}#r{round_}-m{k}", "template": "model",
                                       "round": round_}))
    return out
