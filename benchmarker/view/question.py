"""A question page's content: the results line, every verdict on it, the attribution with what the agent
wrote for each evidence turn, the hits with evidence marks, the reader's context and the case's calls."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarker.log.lines import Json
from benchmarker.scoring.attribution import EvidenceTurn, attribute
from benchmarker.view.catalog import Catalog, Folder
from benchmarker.view.decisions import CaseCalls, Decisions
from benchmarker.view.lines import Indexes, as_result_line, iter_objects, parse
from benchmarker.view.listing import verdict

SHOWN_HITS = 1000  # retrieved hits listed on a page (a run's top_k is 10 to 50)


def show(value: Any) -> str:
    """A dataset or model value as text (answers may be numbers or objects)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)


@dataclass
class Verdict:
    source: str
    verdict: str
    reason: str = ""
    detail: str = ""


@dataclass
class Hit:
    hit: dict[str, Json]
    evidence: bool


@dataclass
class QuestionView:
    line: dict[str, Json]
    verdicts: list[Verdict]
    stage: str
    reason: str
    evidence: list[EvidenceTurn]
    hits: list[Hit]
    calls: CaseCalls
    oracle: dict[str, Json] | None
    errors: list[dict[str, Json]] = field(default_factory=list)
    hits_more: int = 0  # hits left out of the list
    problem: str = ""   # why the attribution could not be recomputed from this line


def question_view(catalog: Catalog, run: Folder, qid: str, indexes: Indexes, decisions: Decisions) -> QuestionView | None:
    results = run.file("results.jsonl")
    line = indexes.results(results).line(qid) if results else None
    if line is None:
        return None
    case_id = str(line.get("case_id") or qid)
    calls = decisions.of_case(run.file("decisions.jsonl") or _parent_file(catalog, run, "decisions.jsonl"), case_id)
    # Marks do not depend on the verdict: an unjudged line is marked as if it were wrong, its stage left empty.
    problem = ""
    try:
        found = attribute(as_result_line(line if line.get("label") is not None else {**line, "label": False}),
                          calls.writes)
    except (ValueError, TypeError, OverflowError, AttributeError, KeyError, IndexError) as err:
        # a field not as documented (a turn_index "x" or Infinity): the page shows the line as it is, and why
        found, problem = None, f"attribution not recomputed: a field of this line is not as documented ({err})"
    computed = found.stage if found and line.get("label") is not None else ""
    stage = str(line.get("attribution") or computed)
    pairs = line.get("evidence_turns") or line.get("evidence_messages") or []  # as attribution reads them
    evidence_keys = {(str(p[0]), str(p[1])) for p in (pairs if isinstance(pairs, list) else [])
                     if isinstance(p, list) and len(p) == 2}
    retrieved = line.get("retrieved")
    found_hits = sorted((h for h in retrieved if isinstance(h, dict)), key=_rank) if isinstance(retrieved, list) else []
    hits = [Hit(h, (str(h.get("session_id")), str(h.get("turn_index"))) in evidence_keys)
            for h in found_hits[:SHOWN_HITS]]
    oracle_file = run.file("oracle", "results.jsonl")
    return QuestionView(line=line, verdicts=_verdicts(catalog, run, line, indexes), stage=stage,
                        reason=found.reason if found and found.stage == stage else "",
                        evidence=found.evidence if found else [], hits=hits, calls=calls,
                        oracle=indexes.results(oracle_file).line(qid) if oracle_file else None,
                        errors=_errors(run, case_id), hits_more=max(0, len(found_hits) - SHOWN_HITS), problem=problem)


def _rank(hit: dict[str, Json]) -> float:
    """A hit's rank to sort by; one that is not a finite number sorts last."""
    rank = hit.get("rank")
    return float(rank) if isinstance(rank, int | float) and not isinstance(rank, bool) and math.isfinite(rank) else math.inf


def _parent_file(catalog: Catalog, run: Folder, name: str) -> Path | None:
    """A sweep point shares its run's ingestion, so its decisions are the run's."""
    parent = catalog.runs.get(run.parent) if run.parent else None
    return parent.file(name) if parent else None


def _grade(source: str, line: dict[str, Json]) -> Verdict:
    raw, label = line.get("grade"), line.get("label")
    grade: dict[str, Json] = raw if isinstance(raw, dict) else {}
    judge = " ".join(str(x) for x in (grade.get("judge"), grade.get("model")) if x)
    detail = "; ".join(f"{k} {grade[k]}" for k in ("reply", "score") if grade.get(k) is not None)
    return Verdict(f"{source}: {judge}" if judge else source, verdict(None if label is None else bool(label)),
                   show(grade.get("reason")), detail)


def _verdicts(catalog: Catalog, run: Folder, line: dict[str, Json], indexes: Indexes) -> list[Verdict]:
    """The run's judge, each re-judging (scores/<judge>) and each grader perspective (graders.jsonl)."""
    qid = str(line["question_id"])
    out = [_grade("judge", line)]
    for scores in catalog.children(run, "scores"):
        path = scores.file("results.jsonl")
        other = indexes.results(path).line(qid) if path else None
        if other is not None:
            out.append(_grade(scores.label, other))
    graders = run.file("graders.jsonl")
    if graders:
        for raw in indexes.keyed(graders, "question_id").lines(qid):
            if (g := parse(raw)) is not None:
                label = g.get("label")
                out.append(Verdict(f"grader: {g.get('perspective')}", verdict(label if isinstance(label, bool) else None),
                                   show(g.get("reason")), f"score {g.get('score')}; {g.get('status')}"))
    return out


def _errors(run: Folder, case_id: str) -> list[dict[str, Json]]:
    path = run.file("errors.jsonl")
    if path is None:
        return []
    return [e for e in iter_objects(path) if str(e.get("case_id")) == case_id]
