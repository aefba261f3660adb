"""LongMemEval's gold for errata: evidence is `answer_session_ids`, a turn is "<session_id>:<i>" (i from 0)."""

from __future__ import annotations

from pathlib import Path

from benchmarker.errata.gold import GoldIndex, GoldQuestion, GoldTurn
from benchmarker.log.lines import Json
from benchmarker.suites.longmemeval.data import QUESTION_TYPES, iter_longmemeval


def longmemeval_gold(path: Path, question_ids: set[str] | None = None) -> GoldIndex:
    """The questions `question_ids` names (every one when None) and their sessions' turns; the file is streamed."""
    questions: dict[str, GoldQuestion] = {}
    turns: dict[str, dict[str, GoldTurn]] = {}
    has_answer: dict[str, dict[str, list[int]]] = {}
    for case in iter_longmemeval(path, only_ids=question_ids):
        (q,) = case.questions
        questions[q.question_id] = GoldQuestion(case.case_id, q.answer, q.answer_session_ids, q.question_type,
                                                q.is_abstention)
        turns[case.case_id] = {f"{s.session_id}:{i}": GoldTurn(m.content, s.session_id, i)
                               for s in case.sessions for i, m in enumerate(s.messages)}
        has_answer[case.case_id] = {s.session_id: [i for i, m in enumerate(s.messages) if m.has_answer]
                                    for s in case.sessions}

    def evidence_fields(case_id: str, ids: tuple[str, ...]) -> dict[str, Json] | None:
        sessions = has_answer.get(case_id, {})
        if any(sid not in sessions for sid in ids):
            return None
        evidence_turns: list[Json] = [[sid, i] for sid in ids for i in sessions[sid]]
        return {"answer_session_ids": list[Json](ids), "evidence_turns": evidence_turns}

    categories: dict[str, dict[str, Json]] = {name: {"question_type": name} for name in QUESTION_TYPES}
    return GoldIndex(questions, turns, categories, evidence_fields)
