"""LoCoMo's gold for errata: answers and categories as locomo10.json writes them, evidence as its "D<N>:<i>" ids."""

from __future__ import annotations

from pathlib import Path

from benchmarker.errata.gold import GoldIndex, GoldQuestion, GoldTurn
from benchmarker.log.lines import Json
from benchmarker.suites.locomo.data import ADVERSARIAL, CATEGORY_NAMES, load_locomo
from benchmarker.suites.locomo.evidence import canonical, parse_evidence

# A question moves between categories 1-4 only: into or out of 5 (adversarial) changes its id and how it is judged.
MOVABLE: dict[str, dict[str, Json]] = {str(n): {"question_type": name, "category": str(n)}
                                        for n, name in CATEGORY_NAMES.items() if n != ADVERSARIAL}


def locomo_gold(path: Path, question_ids: set[str] | None = None) -> GoldIndex:
    """Every question and turn of a LoCoMo file (DatasetError when it is not one)."""
    parsed = load_locomo(path)
    questions: dict[str, GoldQuestion] = {}
    turns: dict[str, dict[str, GoldTurn]] = {}
    for case in parsed.cases:
        turns[case.case_id] = {canonical(int(s.session_id.removeprefix("session_")), i + 1):
                               GoldTurn(m.content, s.session_id, i)
                               for s in case.sessions for i, m in enumerate(s.messages)}
        for q in case.questions:
            questions[q.question_id] = GoldQuestion(
                case.case_id, q.answer, tuple(q.evidence.get("dia_ids") or ()), q.category, q.is_abstention)

    def evidence_fields(case_id: str, ids: tuple[str, ...]) -> dict[str, Json] | None:
        named = turns.get(case_id, {})
        found = [named.get(text) for text in ids]   # ids are canonical here (GoldIndex.canonical_ids)
        if not found or any(t is None for t in found):
            return None
        found_turns = [t for t in found if t is not None]
        pairs: list[Json] = [[t.session_id, t.index] for t in found_turns]
        return {"evidence_turns": pairs, "answer_session_ids": list[Json](dict.fromkeys(t.session_id for t in found_turns))}

    return GoldIndex(questions, turns, MOVABLE, evidence_fields, canonical_ids=canonical_ids)


def canonical_ids(ids: tuple[str, ...]) -> tuple[str, ...]:
    """Evidence as LoCoMo's loader reads it: "D1:5; D2:2" is D1:5 and D2:2; an id it cannot read stays as written."""
    out: list[str] = []
    for text in ids:
        found = parse_evidence(text)
        out += [canonical(n, i) for n, i in found.ids] + found.unparseable
    return tuple(sorted(dict.fromkeys(out)))
