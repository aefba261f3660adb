"""The validity verdict: is this run's number a score, or an infrastructure failure that looks like one?

A pure function of the run directory's files (manifest.json, answers/results/errors.jsonl of the results
directory, decisions.jsonl and memories.jsonl of the run), like attribution. Every check is listed with its
figure, failing or not: a count, what it is counted out of (`of`), their `share`, the `[validity]` threshold
it may not exceed, `ok`, and a `detail` naming the most common error. A check that does not apply (a phase
not run, nothing judged in retrieval mode, an outside agent whose searches are its own) says so and passes.

    memory_replaced     cases whose memory was gone ("no memory with id") at question time, or, when every search
                        of the run came back empty although ingestion stored entries, every such case (an emptied
                        or replaced database between phases)
    not_searchable      questions on an index that never became searchable (counts.not_searchable)
    search_errors       searches that raised (graph/search_log.py logs them), out of searches attempted
    search_timeouts     those of them that timed out
    search_empty        searches with no hit although the case's memory stored entries
    write_failures      memory writes the server refused or failed (decisions.jsonl), out of writes attempted
    unanswered          selected questions with no answer (a crashed or skipped case)
    reader_errors       questions searched whose reader call then failed (no answer followed the search)
    agent_errors        cases an outside agent failed by its protocol (AdapterError in errors.jsonl)
    unjudged            answered questions with no verdict (no results line, or label null)
    judge_errors        verdicts lost because every judge call raised
    judge_refusals      verdicts lost because the judge never replied with a verdict
    reader_above_top_k  answers whose reader saw more hits than top_k
    hits_above_top_k    searches that returned more hits than top_k (`hits_trimmed`: cut before the reader)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

from benchmarker.config_schema import ValidityConfig
from benchmarker.scoring.validity_checks import Figure, RunFiles, measure

CHECKS = ("memory_replaced", "not_searchable", "search_errors", "search_timeouts", "search_empty", "write_failures",
          "unanswered", "reader_errors", "agent_errors", "unjudged", "judge_errors", "judge_refusals",
          "reader_above_top_k", "hits_above_top_k")


def limits_of(files: RunFiles) -> ValidityConfig:
    """The `[validity]` thresholds the run was configured with (a run from before the table: the defaults)."""
    table = files.config.get("validity")
    return ValidityConfig.model_validate(table) if isinstance(table, dict) else ValidityConfig()


def validity_block(answers_dir: Path, run_dir: Path | None = None,
                   limits: ValidityConfig | None = None) -> dict[str, Any]:
    """summary.json's `validity` for one results directory (a sweep point's too: its run_dir holds the rest)."""
    files = RunFiles.read(answers_dir, run_dir)
    return verdict(files, limits or limits_of(files))


def verdict(files: RunFiles, limits: ValidityConfig) -> dict[str, Any]:
    """{"valid", "reasons", "checks"}: every check with its figure; reasons name the failing ones, worst first."""
    thresholds = limits.model_dump()
    checks: dict[str, Check] = {}
    for name in CHECKS:
        figure = measure(name, files)
        checks[name] = _judged(figure, thresholds[name])
    reasons = [_reason(name, check) for name, check in checks.items() if not check["ok"]]
    return {"valid": not reasons, "reasons": reasons, "checks": checks}


class Check(TypedDict):
    """One check of summary.json's `validity.checks`, in the order its keys are written."""

    count: int
    of: int
    share: float | None
    threshold: float
    ok: bool
    what: str
    detail: str
    applies: bool


def _judged(figure: Figure, threshold: float) -> Check:
    count, of = figure["count"], figure["of"]
    share = round(count / of, 4) if of else None
    ok = not figure["applies"] or count == 0 or (share is not None and share <= threshold)
    return {"count": count, "of": of, "share": share, "threshold": threshold, "ok": ok, "what": figure["what"],
            "detail": figure["detail"], "applies": figure["applies"]}


def _reason(name: str, check: Check) -> str:
    detail = f" ({check['detail']})" if check.get("detail") else ""
    limit = f"; [validity] {name} allows {check['threshold']:.0%}" if check["threshold"] else ""
    return f"{check['count']} of {check['of']} {check['what']}{detail}{limit}"


def headline(block: dict[str, Any] | None) -> str | None:
    """The line an invalid run opens with everywhere ("INVALID: 37 of 500 searches failed (...)"); None if valid."""
    if not block or block.get("valid", True):
        return None
    reasons = block.get("reasons") or ["a validity check failed"]
    more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return f"INVALID: {reasons[0]}{more}"
