"""summary.json's `cost`, `speed` and `counts` blocks: tokens and dollars per role, phase times and memory tool
latency, and question counts, from the results lines (and the token ledger and decisions where lines lack them).
reporting/summary.py documents their keys and puts them in the summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from benchmarker.log.lines import DecisionLine, ResultLine, TokenCounts
from benchmarker.reporting.block_shapes import CostShape, CountsShape, LatencyStats, PhaseTimes, SpeedShape
from benchmarker.scoring.qa_metrics import is_abstention, not_graded

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot, RoleTotals
    from benchmarker.subjects.memory_agent import CostFloor

ROLES = ("agent", "qa", "eval")
PHASES = ("ingest_s", "qa_s", "eval_s")
TOKEN_KEYS = ("input", "output", "cache_read", "cache_write")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _role_tokens(record: ResultLine, role: str) -> dict[str, int]:
    tokens = (record.get("tokens") or {}).get(role)
    if tokens is None and role == "eval":  # judge tokens live in the grade until the harness copies them
        tokens = (record.get("grade") or {}).get("tokens")
    counts: TokenCounts = tokens or {}
    return {"input": int(counts.get("input") or 0), "output": int(counts.get("output") or 0),
            "cache_read": int(counts.get("cache_read") or 0), "cache_write": int(counts.get("cache_write") or 0)}


def _ledger_tokens(entry: RoleTotals) -> dict[str, int]:
    """A ledger role's tokens under the results lines' names (TOKEN_KEYS, in that order)."""
    return {"input": int(entry.get("input_tokens") or 0), "output": int(entry.get("output_tokens") or 0),
            "cache_read": int(entry.get("cache_read_tokens") or 0),
            "cache_write": int(entry.get("cache_write_tokens") or 0)}


def _share(tokens: dict[str, int]) -> float | None:
    return tokens["cache_read"] / tokens["input"] if tokens["input"] else None


def cost_block(results: Sequence[ResultLine], ledger: LedgerSnapshot | None = None,
               floor: CostFloor | None = None) -> CostShape:
    """Token and dollar sums per role: from the results lines, else from the run's token ledger."""
    tokens = {role: dict.fromkeys(TOKEN_KEYS, 0) for role in ROLES}
    usd: dict[str, float | None] = {role: None for role in ROLES}
    for r in results:
        for role in ROLES:
            for key, n in _role_tokens(r, role).items():
                tokens[role][key] += n
            value = _num((r.get("cost_usd") or {}).get(role))
            if value is not None:
                usd[role] = (usd[role] or 0.0) + value
    source = {role: "results" for role in ROLES}
    roles = (ledger.get("roles") if ledger else None) or {}
    for role in ROLES:
        entry = roles.get(role)
        if not entry:
            continue
        if not tokens[role]["input"] and not tokens[role]["output"]:  # e.g. agent tokens spent during ingestion
            tokens[role] = _ledger_tokens(entry)
            source[role] = "ledger"
        if usd[role] is None and (cost := _num(entry.get("cost_usd"))) is not None:
            usd[role] = cost
    priced = [v for v in usd.values() if v is not None]
    total = {key: sum(t[key] for t in tokens.values()) for key in TOKEN_KEYS}
    usd_total = sum(priced) if priced else None
    return {"tokens": tokens, "tokens_total": total,
            "cache_hit_share": {**{role: _share(t) for role, t in tokens.items()}, "total": _share(total)},
            "usd": {**usd, "total": usd_total},
            "usd_per_question": usd_total / len(results) if usd_total is not None and results else None,
            **_floor(usd_total, floor),
            "source": source,
            "unpriced_models": list((ledger.get("unpriced_models") if ledger else None) or []),
            "price_notes": list((ledger.get("price_notes") if ledger else None) or [])}


class FloorFigures(TypedDict, total=False):
    floor_usd: float | None
    floor_ratio: float | None


def _floor(usd_total: float | None, floor: CostFloor | None) -> FloorFigures:
    """floor_usd and floor_ratio when the run knows its floor (a memory-agent run)."""
    if not floor:
        return {}
    floor_usd = _num(floor.get("usd"))
    return {"floor_usd": floor_usd,
            "floor_ratio": usd_total / floor_usd if usd_total is not None and floor_usd else None}


def _latency(values: list[float]) -> LatencyStats:
    lat = np.array(values, dtype=float)
    if not lat.size:
        return {"n": 0, "p50": None, "p95": None, "mean": None, "max": None}
    return {"n": int(lat.size), "p50": float(np.percentile(lat, 50)), "p95": float(np.percentile(lat, 95)),
            "mean": float(lat.mean()), "max": float(lat.max())}


def speed_block(results: Sequence[ResultLine], decisions: Sequence[DecisionLine] | None = None) -> SpeedShape:
    """Phase wall times and memory tool latency percentiles (results lines, else decisions.jsonl)."""
    phases: dict[str, PhaseTimes] = {}
    for phase in PHASES:
        rows = results
        if phase == "ingest_s":  # one ingestion per case (memory), repeated on each of its questions
            rows = list({r.get("case_id") or r.get("question_id"): r for r in results}.values())
        vals = [v for r in rows if (v := _num((r.get("timings") or {}).get(phase))) is not None]
        phases[phase] = {"sum": sum(vals) if vals else None, "mean": (sum(vals) / len(vals)) if vals else None,
                         "n": len(vals)}
    values = [v for r in results for x in (r.get("tool_latency_ms") or []) if (v := _num(x)) is not None]
    by_tool: dict[str, list[float]] = {}
    for d in decisions or []:
        if str(d.get("tool", "")).startswith("_"):  # a harness event (`_ingest_done`), not a tool call
            continue
        if (v := _num(d.get("latency_ms"))) is not None:
            by_tool.setdefault(str(d.get("tool")), []).append(v)
    if not values:
        values = [v for vals in by_tool.values() for v in vals]
    return {"phases": phases, "tool_latency_ms": _latency(values),
            "tool_latency_by_tool_ms": {tool: _latency(vals) for tool, vals in sorted(by_tool.items())}}


def counts_block(results: Sequence[ResultLine]) -> CountsShape:
    judges = Counter(str((r.get("grade") or {}).get("judge")) for r in results if r.get("grade"))
    models = {m for r in results if (m := (r.get("grade") or {}).get("model"))}
    return {"questions": len(results),
            "judged": sum(1 for r in results if r.get("label") is not None),
            "unjudged": sum(1 for r in results if r.get("label") is None and not not_graded(r)),
            "not_graded": sum(1 for r in results if not_graded(r)),
            "abstention": sum(1 for r in results if is_abstention(r)),
            "by_type": dict(sorted(Counter(str(r.get("question_type")) for r in results).items())),
            "by_kind": dict(sorted(Counter(str(r.get("kind") or "unknown") for r in results).items())),
            "judges": dict(sorted(judges.items())), "judge_models": sorted(models)}
