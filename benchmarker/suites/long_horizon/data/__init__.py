"""Seeded long-horizon dialogue generator: 100-5000 turns, 12 information blocks, 17 question categories.

    ds = generate_long_horizon(1000, seed=7, questions=60)
    ds.case          # Case(kind=LONG_HORIZON, case_id="lh-7-1000"), sessions of 26-50 turns
    ds.facts         # ground truth: every fact with the turn that delivered it (and all versions)
    ds.to_json()     # canonical serialisation: same seed and arguments, same bytes

Turn indices are global, 0-based message indices across all sessions. `holdout=True` asks a
disjoint question set about the same dialogue (no question and no evidence fact in common).
Questions are chosen round-robin over the categories, so a small request still covers them all;
`case.metadata["questions_available"]` says how many a size allowed when fewer were produced.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.suites.long_horizon.data.dialogue import BLOCK_NAMES, RawSession, build_world, layout, unit_counts
from benchmarker.suites.long_horizon.data.questions import (
    CATEGORIES,
    Candidate,
    contradiction_questions,
    memory_questions,
    numbers_questions,
    people_questions,
    project_questions,
    story_questions,
    technical_questions,
)
from benchmarker.suites.long_horizon.data.questions_ops import (
    incident_questions,
    never_questions,
    ordering_questions,
    problem_questions,
    security_questions,
)
from benchmarker.suites.long_horizon.data.world import FactDict, World

MIN_TURNS, MAX_TURNS = 100, 5000


LONG_HORIZON = "long_horizon"   # the `kind` its cases and lines carry (the suite's record_kinds)
@dataclass(frozen=True)
class LongHorizonDataset:
    """One generated dialogue as a Case, plus its ground-truth facts."""

    case: Case
    facts: dict[str, FactDict]
    seed: int
    turns: int
    holdout: bool
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.case.questions

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no whitespace): byte-identical for the same inputs."""
        payload = {"case": asdict(self.case), "facts": self.facts, "seed": self.seed, "turns": self.turns,
                   "holdout": self.holdout, "metadata": self.metadata}
        return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def all_candidates(w: World) -> list[Candidate]:
    builders = (people_questions, project_questions, story_questions, technical_questions, numbers_questions,
                contradiction_questions, memory_questions, security_questions, incident_questions,
                problem_questions, ordering_questions, never_questions)
    seen, out = set(), []
    for build in builders:
        for cand in build(w):
            if cand.question not in seen:
                seen.add(cand.question)
                out.append(cand)
    return out


def select(cands: list[Candidate], part: int, n: int, seed: int) -> list[tuple[str, Candidate]]:
    """Round-robin over categories (shuffled within each), returning (stable key, candidate)."""
    rng = random.Random(f"long-horizon-select:{seed}:{part}")
    by_cat: dict[str, list[Candidate]] = {c: [] for c in CATEGORIES}
    for cand in cands:
        if cand.part == part:
            by_cat[cand.category].append(cand)
    for items in by_cat.values():
        rng.shuffle(items)
    chosen: list[tuple[str, Candidate]] = []
    rank = 0
    while len(chosen) < n and any(by_cat.values()):
        for cat in CATEGORIES:
            if by_cat[cat] and len(chosen) < n:
                chosen.append((f"{cat}#{rank}", by_cat[cat].pop()))
        rank += 1
    return chosen


def _question(w: World, seed: int, n: int, key: str, cand: Candidate, qdate: str, holdout: bool) -> Question:
    facts = [w.facts[f] for f in cand.facts]
    sessions = sorted({f.session_id for f in facts}, key=lambda s: int(s.rsplit("s", 1)[1]))
    evidence = {"turns": sorted({f.turn for f in facts}), "facts": list(cand.facts), "sessions": sessions,
                "question_key": key, "template": cand.template}
    qid = f"lh{seed}-{'hq' if holdout else 'q'}{n}" + ("_abs" if cand.rubric.get("abstain") else "")
    return Question(qid, cand.category, cand.question, cand.answer, qdate, tuple(sessions), cand.category,
                    cand.rubric, evidence)


def _sessions(raw: list[RawSession], evidence_turns: set[int]) -> tuple[Session, ...]:
    out = []
    for rs in raw:
        msgs = tuple(Message(t.role, t.text, rs.first_turn + i in evidence_turns) for i, t in enumerate(rs.turns))
        out.append(Session(rs.session_id, rs.date, msgs))
    return tuple(out)


def generate_long_horizon(turns: int, seed: int, questions: int = 40, holdout: bool = False) -> LongHorizonDataset:
    """Generate a deterministic dialogue of `turns` messages and `questions` graded questions."""
    if not isinstance(turns, int) or not MIN_TURNS <= turns <= MAX_TURNS:
        raise ValueError(f"turns must be an integer from {MIN_TURNS} to {MAX_TURNS}, got {turns!r}")
    if not isinstance(questions, int) or questions < 1:
        raise ValueError(f"questions must be a positive integer, got {questions!r}")
    w = build_world(turns, seed)
    raw = layout(w, seed)
    cands = all_candidates(w)
    part = 1 if holdout else 0
    chosen = select(cands, part, questions, seed)
    last = datetime.strptime(raw[-1].date[:10], "%Y/%m/%d")
    qdate = (last + timedelta(days=1)).strftime("%Y/%m/%d (%a) 18:00")
    qs = tuple(_question(w, seed, i + 1, key, c, qdate, holdout) for i, (key, c) in enumerate(chosen))
    evidence_turns = {t for q in qs for t in q.evidence["turns"]}
    available = sum(1 for c in cands if c.part == part)
    counts: dict[str, int] = {}
    for q in qs:
        counts[q.category] = counts.get(q.category, 0) + 1
    metadata = {"seed": seed, "turns": turns, "holdout": holdout, "questions_requested": questions,
                "questions_available": available, "categories": counts, "units": unit_counts(turns),
                "blocks": list(BLOCK_NAMES), "facts": len(w.facts), "sessions": len(raw)}
    case_id = f"lh-{seed}-{turns}" + ("-holdout" if holdout else "")
    case = Case(case_id, LONG_HORIZON, _sessions(raw, evidence_turns), qs, metadata)
    facts = {fid: f.to_dict() for fid, f in sorted(w.facts.items())}
    for fact in facts.values():
        if fact["versions"]:
            fact["history"] = [{"value": facts[v]["value"], "turn": facts[v]["turn"], "session_id": facts[v]["session_id"],
                                "date": facts[v]["date"]} for v in fact["versions"]]
    return LongHorizonDataset(case, facts, seed, turns, holdout, metadata)


__all__ = ["generate_long_horizon", "LongHorizonDataset", "CATEGORIES", "BLOCK_NAMES", "MIN_TURNS", "MAX_TURNS"]
