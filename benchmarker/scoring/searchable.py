"""Questions whose memory index was not searchable yet: left out of every metric, counted and named,
never a silent retrieval miss (an empty index scores recall 0 and a wrong answer for reasons that are
the index's lag, not the memory's quality).

Two sources:
  - a results line with `index_searchable: false`: an answer searched against a lagging index (what a
    run wrote before the qa node failed such cases; kept readable so `score` / `report` stay honest);
  - a case whose latest errors.jsonl line is the qa node's IndexNotSearchableError and that has no
    results line: it failed, and re-running the same command retries it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from benchmarker.errors import IndexNotSearchableError
from benchmarker.log.jsonl import K, Keyed, latest_by

ERROR_NAME = IndexNotSearchableError.__name__
LISTED = 10  # ids named in a note; summary.json lists them all


def split_searchable(results: list[K]) -> tuple[list[K], list[K]]:
    """(lines measured, lines left out because their index was not searchable)."""
    measured = [r for r in results if r.get("index_searchable") is not False]
    return measured, [r for r in results if r.get("index_searchable") is False]


def failed_cases(errors: Iterable[Keyed], results: Iterable[Keyed]) -> list[str]:
    """Cases whose latest error is IndexNotSearchableError and that no results line answers yet."""
    answered = {str(r.get("case_id")) for r in results}
    return sorted(str(e.get("case_id")) for e in latest_by(errors, "case_id")
                  if ERROR_NAME in str(e.get("error") or "") and str(e.get("case_id")) not in answered)


class NotSearchable(TypedDict):
    """summary.json's `counts.not_searchable`."""

    questions: int
    question_ids: list[str]
    cases_failed: int
    case_ids: list[str]


def not_searchable_block(left_out: Iterable[Keyed], failed: list[str]) -> NotSearchable:
    """summary.json's counts.not_searchable."""
    ids = sorted(str(r.get("question_id")) for r in left_out)
    return {"questions": len(ids), "question_ids": ids, "cases_failed": len(failed), "case_ids": list(failed)}


def not_searchable_notes(block: NotSearchable) -> list[str]:
    """What summary.json's notes, the report's header and the console say about it."""
    notes = []
    if block["questions"]:
        notes.append(f"{block['questions']} question(s) were searched against an index that was not searchable yet "
                     "(index_searchable: false): left out of every metric rather than counted as misses: "
                     + _listed(block["question_ids"]))
    if block["cases_failed"]:
        notes.append(f"{block['cases_failed']} case(s) failed because their memory's index was not searchable yet "
                     "within [params] consistency_timeout_s (errors.jsonl): their questions are in no metric. "
                     "Re-running the same command retries them: " + _listed(block["case_ids"]))
    return notes


def _listed(ids: list[str]) -> str:
    return ", ".join(ids[:LISTED]) + (f" (+{len(ids) - LISTED} more)" if len(ids) > LISTED else "")
