"""A case's searcher whose failed searches leave a line in decisions.jsonl.

A search that raises fails its case (errors.jsonl names the case, not the question, and not that it was the
search); this line says which question's search failed and how, so the validity verdict
(scoring/validity.py) can count "37 of 500 searches failed (HTTP 503 ...)" from the run's files alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from benchmarker.datasets.schema import Case
from benchmarker.log.records import DecisionRecord
from benchmarker.log.store import RunLog
from benchmarker.memory.driver import Searcher, SearchOutcome
from benchmarker.redact import masked_preview

SEARCH_FAILED_TOOL = "search"  # the tool a failed search is logged under (its own tool name is not known then)
ERROR_CHARS = 500


@dataclass
class FailedSearchesLogged:
    """`inner`'s searches; one that raises is logged (question, query, error, latency) and raised again."""

    inner: Searcher
    log: RunLog
    case: Case
    caller: str
    searchable: bool

    async def search(self, query: str, top_k: int, alpha: float | None) -> SearchOutcome:
        started = time.monotonic()
        try:
            return await self.inner.search(query, top_k, alpha)
        except Exception as err:
            question_id = next((q.question_id for q in self.case.questions if q.question == query), None)
            self.log.append(DecisionRecord(
                case_id=self.case.case_id, question_id=question_id, caller=self.caller, tool=SEARCH_FAILED_TOOL,
                args={"query": query, "top_k": top_k, "alpha": alpha},
                latency_ms=round((time.monotonic() - started) * 1000, 1),
                error=masked_preview(f"{type(err).__name__}: {err}", ERROR_CHARS) or type(err).__name__))
            raise


def failed_searches_logged(searcher: Searcher, log: RunLog, case: Case, caller: str) -> FailedSearchesLogged:
    return FailedSearchesLogged(searcher, log, case, caller, searcher.searchable)
