"""What a report shows of summary.json's `validity` (scoring/validity.py): an invalid run opens with one line
saying why, its accuracy is struck through as "not a score", and a section lists every check with its figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarker.errors import UserError
from benchmarker.reporting.summary_analysis_blocks import ValidityBlock
from benchmarker.reporting.summary_model import RunSummary, load_summary
from benchmarker.scoring.validity import headline, validity_block


def is_invalid(summary: RunSummary) -> bool:
    return summary.validity is not None and summary.validity.valid is False


def banner(summary: RunSummary) -> list[str]:
    """The report's first lines under its title: the verdict, when the run is invalid."""
    validity = summary.validity
    line = headline(validity.as_dict() if validity is not None else None)
    if line is None or validity is None:
        return []
    return ([f"> **{line}**", ">", "> Every accuracy below is **not a score**: fix the cause and re-run the same "
             "command (failed cases are retried), or see the Validity section."]
            + [f"> - {reason}" for reason in (validity.reasons or [])[1:]] + [""])


def struck(summary: RunSummary, value: str) -> str:
    """An accuracy as the report prints it: struck through on an invalid run."""
    return f"~~{value}~~ not a score" if is_invalid(summary) and value not in ("", "n/a", "-") else value


def validity_section(summary: RunSummary) -> list[str]:
    """## Validity: every check, failing or not, with its count, share and threshold."""
    block = summary.validity or ValidityBlock()
    checks = block.checks or {}
    if not checks:
        return []
    verdict = "**INVALID**: not a score" if block.valid is False else "valid: every check within its threshold"
    out = ["## Validity", "", f"Verdict: {verdict} (thresholds: `[validity]`, docs/defending.md).", "",
           "| check | count | of | share | threshold | ok | detail |", "|---|---|---|---|---|---|---|"]
    applies = {name: check for name, check in checks.items() if check.applies is not False}
    for name, check in applies.items():
        share = "n/a" if check.share is None else f"{check.share:.1%}"
        ok = "yes" if check.ok else "**no**"
        detail = str(check.detail or "").replace("|", "/")
        out.append(f"| {name} | {check.count or 0} | {check.of or 0} | {share} | "
                   f"{check.threshold or 0:.0%} | {ok} | {detail} |")
    idle: dict[str, list[str]] = {}  # checks this run gives nothing to count, grouped by why
    for name, check in checks.items():
        if name not in applies:
            idle.setdefault(str(check.detail or "not applicable"), []).append(f"`{name}`")
    out += ["", *(f"Not applicable here ({why}): {', '.join(names)}." for why, names in idle.items())] if idle else []
    return out + [""]


def run_validity(answers_dir: Path) -> dict[str, Any]:
    """A results directory's verdict: its summary.json's `validity`, else computed from its files (a run from
    before the verdict existed; a sweep point's manifest and decisions are its run's)."""
    written = load_summary(answers_dir / "summary.json").validity
    if written is not None and not written.is_empty():
        return written.as_dict()
    run_dir = answers_dir.parent.parent if answers_dir.parent.name == "points" else answers_dir
    return validity_block(answers_dir, run_dir)


def invalid_runs(answers_dirs: list[Path], *, allow: bool, verb: str) -> dict[Path, str]:
    """{dir: its INVALID line} for the invalid ones; without `allow` the first is refused in one line (exit 2)."""
    invalid = {d: line for d in answers_dirs if (line := headline(run_validity(d))) is not None}
    if invalid and not allow:
        where, line = next(iter(invalid.items()))
        more = f" (and {len(invalid) - 1} more run(s))" if len(invalid) > 1 else ""
        raise UserError(f"{verb}: {where} is {line}{more}; an invalid run's accuracy is not a score, so it is not "
                        f"ranked. Fix the cause and re-run it, or pass --allow-invalid to {verb} it labelled INVALID.")
    return invalid
