"""summary.json's numbers re-derived from the raw result lines, independently of the code that wrote them.

Nothing here imports reporting/summary.py, scoring/* or a suite's summary code: each figure is computed again
from its definition (docs/metrics.md) so that a bug or an edit on either side shows as a difference. Each
figure is a dotted path into summary.json and the value the lines give; `differences` compares them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any, Literal

from benchmarker.bundle.written_summary import (
    WrittenAttribution,
    WrittenRetrieval,
    WrittenSummary,
    WrittenValidity,
)
from benchmarker.log.lines import Manifest, ResultLine, RetrievedHit

TOLERANCE = 1e-4
Figure = int | float | bool | None   # a count, a share or mean, a verdict; None where nothing was measured
Figures = dict[str, Figure]


ROLES = ("agent", "qa", "eval")
TOKENS: tuple[Literal["input", "output", "cache_read", "cache_write"], ...] = ("input", "output", "cache_read",
                                                                             "cache_write")


def _is_abstention(r: ResultLine) -> bool:
    return bool(r.get("is_abstention")) or str(r.get("question_id", "")).endswith("_abs")


def _not_graded(r: ResultLine) -> bool:
    return r.get("label") is None and (r.get("grade") or {}).get("judge") == "none"


def _accuracy(labels: Iterable[bool | None], prefix: str) -> Figures:
    values = list(labels)
    judged = [v for v in values if v is not None]
    correct = sum(1 for v in judged if v is True)
    return {f"{prefix}/n": len(judged), f"{prefix}/correct": correct, f"{prefix}/unjudged": len(values) - len(judged),
            f"{prefix}/accuracy": correct / len(judged) if judged else None}


def qa_figures(lines: list[ResultLine]) -> Figures:
    """qa: overall, by type, task average (unweighted over types with a judged answer), abstention."""
    graded = [r for r in lines if not _not_graded(r)]
    out = _accuracy((r.get("label") for r in graded), "qa/overall")
    out |= _accuracy((r.get("label") for r in graded if _is_abstention(r)), "qa/abstention")
    types: dict[str, list[bool | None]] = {}
    for r in graded:
        types.setdefault(str(r.get("question_type") or "unknown"), []).append(r.get("label"))
    averaged: list[float] = []
    for name, labels in types.items():
        cell = _accuracy(labels, f"qa/by_type/{name}")
        out |= cell
        if cell[f"qa/by_type/{name}/n"] and isinstance(accuracy := cell[f"qa/by_type/{name}/accuracy"], float):
            averaged.append(accuracy)
    out["qa/task_averaged/accuracy"] = sum(averaged) / len(averaged) if averaged else None
    out["qa/judged"] = sum(1 for r in graded if r.get("label") is not None)
    out["qa/not_graded"] = len(lines) - len(graded)
    return out


def _dcg(relevant: list[bool]) -> float:
    return sum(1.0 / (1.0 if i == 1 else math.log2(i)) for i, hit in enumerate(relevant, start=1) if hit)


def _first_seen(keys: Iterable[Hashable]) -> list[Hashable]:
    return list(dict.fromkeys(keys))


def _rankings(hits: list[RetrievedHit]) -> dict[str, list[Hashable]]:
    ordered = sorted(enumerate(hits), key=lambda p: (p[1]["rank"] if isinstance(p[1].get("rank"), (int, float))
                                                     else p[0] + 1, p[0]))
    sessions, turns = [], []
    for i, (_, hit) in enumerate(ordered):
        sid, turn = hit.get("session_id"), hit.get("turn_index")
        sessions.append(str(sid) if sid not in (None, "") else f"?{i}")
        try:
            turns.append((str(sid), int(turn)) if sid not in (None, "") and turn not in (None, "") else f"?{i}")
        except (TypeError, ValueError, OverflowError):
            turns.append(f"?{i}")
    return {"session": _first_seen(sessions), "turn": _first_seen(turns)}


def _evidence(r: ResultLine) -> dict[str, set[Hashable]]:
    turns: set[Hashable] = set()
    for pair in r.get("evidence_turns") or []:
        try:
            turns.add((str(pair[0]), int(pair[1])))
        except (TypeError, ValueError, IndexError, OverflowError):
            continue
    return {"session": {str(s) for s in r.get("answer_session_ids") or []}, "turn": turns}


def _question_scores(r: ResultLine, names: set[str]) -> dict[str, float]:
    """This question's recall_any / recall_all / ndcg_any per `level.metric@k` wanted (k up to its top_k)."""
    hits = r["retrieved"] or []
    top_k = int(r.get("top_k") or len(hits))
    ranked, evidence, out = _rankings(hits), _evidence(r), {}
    for name in names:
        level, rest = name.split(".", 1)
        metric, k_text = rest.split("@")
        k = int(k_text)
        wanted = evidence.get(level) or set()
        if not wanted or k > top_k:
            continue
        top = ranked[level][:k]
        found = wanted & set(top)
        ideal = _dcg([True] * min(len(wanted), k))
        out[name] = {"recall_any": float(bool(found)), "recall_all": float(found == wanted),
                     "ndcg_any": _dcg([item in wanted for item in top]) / ideal if ideal else 0.0}[metric]
    return out


def retrieval_figures(lines: list[ResultLine], written: WrittenRetrieval) -> Figures:
    """retrieval.metrics: the mean over scored questions (not abstention, with evidence at that level)."""
    names = {name for name in written.get("metrics") or {} if name.count(".") == 1 and "@" in name}
    sums: dict[str, list[float]] = {name: [] for name in names}
    for r in lines:
        if r.get("retrieved") is None or _is_abstention(r):
            continue
        for name, value in _question_scores(r, names).items():
            sums[name].append(value)
    return {f"retrieval/metrics/{name}": (sum(v) / len(v)) if v else None for name, v in sums.items()}


def attribution_figures(lines: list[ResultLine], written: WrittenAttribution) -> Figures:
    """attribution: the stage each judged line carries, counted."""
    stages = Counter(str(r["attribution"]) for r in lines if r.get("attribution"))
    out: Figures = {"attribution/n": sum(stages.values())}
    for stage in written.get("counts") or {}:
        out[f"attribution/counts/{stage}"] = stages.get(stage, 0)
    return out


def validity_figures(written: WrittenValidity) -> Figures:
    """validity: each check's share is its count over its total (4 places), ok when it does not apply, counted
    nothing or stays within its threshold; valid when every check is ok, with one reason per failing check."""
    out: Figures = {}
    failing = 0
    for name, check in (written.get("checks") or {}).items():
        count, total, threshold = check.get("count") or 0, check.get("of"), check.get("threshold")
        share = round(count / total, 4) if total else None
        ok = (not check.get("applies", True) or count == 0
              or (share is not None and threshold is not None and share <= threshold))
        out[f"validity/checks/{name}/share"] = share
        out[f"validity/checks/{name}/ok"] = ok
        failing += not ok
    out["validity/valid"] = failing == 0
    out["validity/reasons/#"] = failing
    return out


def cost_figures(lines: list[ResultLine], manifest: Manifest) -> Figures:
    """cost: tokens per role from the lines, else the manifest's ledger totals; dollars likewise; per question."""
    ledger = ((manifest.get("tokens") or {}).get("roles")) or {}
    out: Figures = {}
    priced: list[float] = []
    totals = dict.fromkeys(TOKENS, 0)
    for role in ROLES:
        counts = dict.fromkeys(TOKENS, 0)
        usd: float | None = None
        for r in lines:
            tokens = (r.get("tokens") or {}).get(role)
            if tokens is None and role == "eval":
                tokens = (r.get("grade") or {}).get("tokens")
            for key in TOKENS:
                counts[key] += int((tokens or {}).get(key) or 0)
            value = (r.get("cost_usd") or {}).get(role)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                usd = (usd or 0.0) + value
        entry = ledger.get(role) or {}
        if entry and not counts["input"] and not counts["output"]:
            counts = {key: int(entry.get(f"{key}_tokens") or 0) for key in TOKENS}
        if entry and usd is None and isinstance(cost := entry.get("cost_usd"), (int, float)):
            usd = float(cost)
        for key in TOKENS:
            out[f"cost/tokens/{role}/{key}"] = counts[key]
            totals[key] += counts[key]
        out[f"cost/usd/{role}"] = usd
        if usd is not None:
            priced.append(usd)
    out |= {f"cost/tokens_total/{key}": n for key, n in totals.items()}
    total = sum(priced) if priced else None
    out["cost/usd/total"] = total
    out["cost/usd_per_question"] = total / len(lines) if total is not None and lines else None
    return out


def counts_figures(lines: list[ResultLine]) -> Figures:
    out: Figures = {"counts/questions": len(lines), "counts/judged": sum(1 for r in lines if r.get("label") is not None),
                    "counts/abstention": sum(1 for r in lines if _is_abstention(r))}
    for name, n in Counter(str(r.get("question_type")) for r in lines).items():
        out[f"counts/by_type/{name}"] = n
    return out


def locomo_figures(lines: list[ResultLine]) -> Figures:
    """locomo: judge accuracy per category and over categories 1-4 (category 5 apart), mean F1 and BLEU-1."""
    names = {"multi-hop": "1", "temporal": "2", "open-domain": "3", "single-hop": "4", "adversarial": "5"}
    groups: dict[str, list[ResultLine]] = {}
    for r in lines:
        if r.get("kind") == "locomo" and not _not_graded(r):
            category = r.get("category")
            key = str(category) if category not in (None, "") else names.get(str(r.get("question_type")), "?")
            groups.setdefault(key, []).append(r)
    out: Figures = {}

    def block(prefix: str, rows: list[ResultLine], lexical: bool) -> None:
        out[f"{prefix}/questions"] = len(rows)
        out.update(_accuracy((r.get("label") for r in rows), f"{prefix}/judge"))
        for metric in ("f1", "bleu1") if lexical else ():
            values = [float(v) for r in rows if isinstance(v := dict(r.get("locomo") or {}).get(metric), (int, float))]
            out[f"{prefix}/{metric}/n"] = len(values)
            out[f"{prefix}/{metric}/mean"] = sum(values) / len(values) if values else None

    for category, rows in groups.items():
        block(f"locomo/by_category/{category}", rows, lexical=category != "5")
    block("locomo/overall", [r for c in ("1", "2", "3", "4") for r in groups.get(c, [])], lexical=True)
    block("locomo/adversarial", groups.get("5", []), lexical=False)
    return out


def beam_figures(lines: list[ResultLine]) -> Figures:
    """beam: the mean score per ability (4 places), the mean over abilities (the headline) and over questions."""
    scores: dict[str, list[float]] = {}
    beam = [r for r in lines if r.get("kind") == "beam"]
    for r in beam:
        item = r.get("beam") or {}
        ability = str(item.get("ability") or r.get("question_type") or "")
        if ability and isinstance(score := item.get("score"), (int, float)):
            scores.setdefault(ability, []).append(float(score))
    out: Figures = {f"beam/by_ability/{a}/mean": round(sum(v) / len(v), 4) for a, v in scores.items()}
    out |= {f"beam/by_ability/{a}/scored": len(v) for a, v in scores.items()}
    means = [round(sum(v) / len(v), 4) for v in scores.values()]
    every = [x for v in scores.values() for x in v]
    out["beam/overall/mean_over_abilities"] = round(sum(means) / len(means), 4) if means else None
    out["beam/overall/mean_over_questions"] = round(sum(every) / len(every), 4) if every else None
    out["beam/overall/questions"] = len(beam)
    out["beam/overall/scored"] = len(every)
    return out


def figures(summary: WrittenSummary, manifest: Manifest, lines: list[ResultLine]) -> Figures:
    """Every figure the lines give for this summary (its blocks decide which retrieval metrics and stages)."""
    measured = [r for r in lines if r.get("index_searchable") is not False]  # an unsearchable index measured nothing
    out = qa_figures(measured) | counts_figures(lines) | cost_figures(lines, manifest)
    if (retrieval := summary.get("retrieval") or {}).get("available"):
        out |= retrieval_figures(measured, retrieval)
    if "attribution" in summary:
        out |= attribution_figures(lines, summary["attribution"])
    if "validity" in summary:
        out |= validity_figures(summary["validity"])
    if "locomo" in summary or any(r.get("kind") == "locomo" for r in measured):
        out |= locomo_figures(measured)
    if "beam" in summary or any(r.get("kind") == "beam" for r in measured):
        out |= beam_figures(measured)
    return out


MISSING = object()


def written_value(summary: WrittenSummary, path: str) -> Any:
    """The value at a figure's path in summary.json (`#` counts a list), or MISSING."""
    value: Any = summary
    for part in path.split("/"):
        if part == "#" and isinstance(value, list):
            return len(value)
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def same(written: Any, derived: Any) -> bool:
    if isinstance(written, bool) or isinstance(derived, bool) or written is None or derived is None:
        return written is derived or written == derived
    if isinstance(written, (int, float)) and isinstance(derived, (int, float)):
        return math.isclose(float(written), float(derived), rel_tol=0.0, abs_tol=TOLERANCE)
    return bool(written == derived)


def differences(summary: WrittenSummary, manifest: Manifest, lines: list[ResultLine]) -> tuple[int, list[str]]:
    """(figures compared, one line per figure summary.json states differently from the lines, or lacks)."""
    derived = figures(summary, manifest, lines)
    problems = []
    for path, value in sorted(derived.items()):
        written = written_value(summary, path)
        if written is MISSING:
            if value not in (None, 0):  # a block left out for an empty group is not a difference
                problems.append(f"summary.json has no {path}; the lines give {value!r}")
        elif not same(written, value):
            problems.append(f"summary.json {path} = {written!r}, the lines give {value!r}")
    return len(derived), problems
