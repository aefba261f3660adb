"""The grading part of a `results.jsonl` line, and reading run files back.

A results line is the answers line (written by the QA phase) plus exactly these keys, which
this package owns (written from a `Grade`, scoring/grade.py, by its `line_fields()`):

    "label":          true | false | null      null = unjudged (excluded from every accuracy
                                               denominator and counted separately)
    "autoeval_label": {"model": str, "label": bool} | null
                                               LongMemEval's own field; null when unjudged.
                                               model = the judge model id, or "deterministic"
    "grade": {
        "judge":    "deterministic" | "llm" | "official"
        "model":    str | null                 judge model id (null for deterministic)
        "reason":   str                        why: matched rule, parse failure, error text
        "attempts": int                        judge calls made (1 for deterministic)
        "unjudged": bool                       true exactly when label is null
        "template": str | null                 judge prompt used: "judge_base", ...,
                                               "official:get_anscheck_prompt"
        "reply":    str | null                 last raw judge reply (trimmed to 200 chars)
        "score":    float | null               deterministic only: 1.0 on a match, else the
                                               best token F1 (rubric recall for preference)
        "tokens":   {"input": int, "output": int}   judge tokens summed over attempts
        "judge_error": str                     only when the judge model raised (its retries spent)
    }

Metrics read only these files, never live objects, so `report`/`compare` work on any run
directory, including one produced on another machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from benchmarker.errors import UserError
from benchmarker.log.jsonl import latest_by, read_jsonl
from benchmarker.log.lines import ResultLine

GRADING_KEYS = ("label", "autoeval_label", "grade")


def load_results(run_dir: Path) -> list[ResultLine]:
    """All results lines of a run; the last line wins when a question was re-judged."""
    path = Path(run_dir) / "results.jsonl"
    if not path.exists():
        raise UserError(f"{path} not found: run the eval phase first "
                        f"(phases = [\"eval\"]) or point at a finished run directory")
    return latest_by(checked_results(path), "question_id")


# The keys every metric reads, and the JSON type each must have when present (null is always allowed).
_SHAPES: dict[str, tuple[type, ...]] = {"question_id": (str, int), "label": (bool,), "retrieved": (list,),
                                        "evidence_turns": (list,), "evidence_sessions": (list,),
                                        "question_type": (str,), "tokens": (dict,), "cost_usd": (dict,),
                                        "timings": (dict,), "grade": (dict,)}
_JSON = {str: "a string", int: "a number", bool: "true or false", list: "an array", dict: "an object"}


def checked_results(path: Path) -> list[ResultLine]:
    """A results file's lines, each checked for the shapes the metrics read: a damaged line is one
    UserError naming the file, the line and the key, not a traceback deep in a metric."""
    lines: list[ResultLine] = []
    for number, line in enumerate(read_jsonl(path), start=1):
        if not isinstance(line, dict):
            raise UserError(f"{path}:{number}: not a JSON object; fix or delete that line")
        for key, types in _SHAPES.items():
            value = line.get(key)
            if value is not None and (not isinstance(value, types) or (bool not in types and isinstance(value, bool))):
                raise UserError(f"{path}:{number}: `{key}` is {_JSON.get(type(value), type(value).__name__)}, expected "
                                f"{' or '.join(_JSON[t] for t in types)}; fix or delete that line")
        hits = line.get("retrieved") or []
        if any(not isinstance(hit, dict) for hit in hits):
            raise UserError(f"{path}:{number}: `retrieved` holds something other than hit objects; fix or delete that line")
        # The one place a read-back results line becomes a ResultLine: the keys metrics index are checked above.
        lines.append(cast(ResultLine, line))
    return lines
