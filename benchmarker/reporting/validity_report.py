"""What a report shows of summary.json's `validity` (scoring/validity.py): an invalid run opens with one line
saying why, its accuracy is struck through as "not a score", and a section lists every check with its figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarker.errors import UserError
from benchmarker.reporting.summary_model import load_summary
from benchmarker.scoring.validity import headline, validity_block


def is_invalid(summary: dict[str, Any]) -> bool:
    return (summary.get("validity") or {}).get("valid") is False


def banner(summary: dict[str, Any]) -> list[str]:
    """The report's first lines under its title: the verdict, when the run is invalid."""
    line = headline(summary.get("validity"))
    if line is None:
        return []
    reasons = (summary.get("validity") or {}).get("reasons") or []
    return ([f"> **{line}**", ">", "> Every accuracy below is **not a score**: fix the cause and re-run the same "
             "command (failed cases are retried), or see the Validity section."]
            + [f"> - {reason}" for reason in reasons[1:]] + [""])


def struck(summary: dict[str, Any], value: str) -> str:
    """An accuracy as the report prints it: struck through on an invalid run."""
    return f"~~{value}~~ not a score" if is_invalid(summary) and value not in ("", "n/a", "-") else value


def validity_section(summary: dict[str, Any]) -> list[str]:
    """## Validity: every check, failing or not, with its count, share and threshold."""
    block = summary.get("validity") or {}
    checks = block.get("checks") or {}
    if not checks:
        return []
    verdict = "**INVALID**: not a score" if block.get("valid") is False else "valid: every check within its threshold"
    out = ["## Validity", "", f"Verdict: {verdict} (thresholds: `[validity]`, docs/defending.md).", "",
           "| check | count | of | share | threshold | ok | detail |", "|---|---|---|---|---|---|---|"]
    applies = {name: check for name, check in checks.items() if check.get("applies", True)}
    for name, check in applies.items():
        share = "n/a" if check.get("share") is None else f"{check['share']:.1%}"
        ok = "yes" if check.get("ok") else "**no**"
        detail = str(check.get("detail") or "").replace("|", "/")
        out.append(f"| {name} | {check.get('count', 0)} | {check.get('of', 0)} | {share} | "
                   f"{check.get('threshold', 0):.0%} | {ok} | {detail} |")
    idle: dict[str, list[str]] = {}  # checks this run gives nothing to count, grouped by why
    for name, check in checks.items():
        if name not in applies:
            idle.setdefault(str(check.get("detail") or "not applicable"), []).append(f"`{name}`")
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
