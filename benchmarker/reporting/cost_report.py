"""The report's cost and speed section, from summary.json's `cost`, `speed` and `run.wall_s` (typed: RunSummary)."""

from __future__ import annotations

from benchmarker.reporting.fmt import num
from benchmarker.reporting.summary_metric_blocks import CostBlock, Latency, SpeedBlock
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.unit_cost import usd_per_correct


def cost_section(summary: RunSummary, retrieval_only: bool) -> list[str]:
    """## Cost and speed (## Speed on a retrieval-only run): tokens, USD and cache hits per role, then timings."""
    if retrieval_only:
        return ["## Speed", "", "No model ran (retrieval-only): no tokens, no cost.", ""] + _speed_lines(summary)
    cost = summary.cost or CostBlock()
    out = ["## Cost and speed", "", "| role | input tokens | of which cache reads | cache writes | cache-hit share "
           "| output tokens | USD |", "|---|---|---|---|---|---|---|"]
    shares, usd, source = cost.cache_hit_share or {}, cost.usd or {}, cost.source or {}
    rows = [*(cost.tokens or {}).items(), ("**total**", cost.tokens_total or {})]
    for role, t in rows:
        key = "total" if role == "**total**" else role
        out.append(f"| {role} | {t.get('input', 0):,} | {t.get('cache_read', 0):,} | {t.get('cache_write', 0):,} | "
                   f"{num(shares.get(key), '{:.1%}')} | {t.get('output', 0):,} | {num(usd.get(key), '{:.4f}')} |")
    floor = (f" The memory agent's floor for these cases is {num(cost.floor_usd, '${:.4f}')}: this run cost "
             f"{num(cost.floor_ratio, '{:.2f}')}x it." if cost.floor_ratio is not None else "")
    out += ["", f"Cost per question: {num(cost.usd_per_question, '${:.4f}')}; per correct answer: "
            f"{num(usd_per_correct(summary), '${:.4f}')}.{floor} Input tokens include the "
            "prompt-cache reads and writes; cache reads are priced at `[prices]` cached_input and writes at "
            "cache_write."]
    out += [f"- {note}" for note in cost.price_notes or []]
    if "ledger" in source.values():
        out += ["", "Tokens for these roles come from the run's token ledger, not from the results lines: "
                + ", ".join(r for r, src in source.items() if src == "ledger") + "."]
    if cost.unpriced_models:
        out += ["", "No price configured for: " + ", ".join(f"`{m}`" for m in cost.unpriced_models)
                + " (USD shown as n/a or partial)."]
    return out + [""] + _speed_lines(summary)


def _speed_lines(summary: RunSummary) -> list[str]:
    speed = summary.speed or SpeedBlock()
    out = ["| phase | total (s) | mean (s) | n | mean per |", "|---|---|---|---|---|"]
    for phase, p in (speed.phases or {}).items():
        # ingestion is timed once per case (a LoCoMo conversation holds many questions); QA and eval per question
        per = "case (one ingestion)" if phase == "ingest_s" else "question"
        out.append(f"| {phase.removesuffix('_s')} | {num(p['sum'], '{:.1f}')} | {num(p['mean'], '{:.2f}')} | {p['n']} "
                   f"| {per} |")
    out += ["", _wall_line(summary.run.wall_s)]
    lat = speed.tool_latency_ms or Latency()
    out += ["", f"Memory tool latency over {lat.n or 0} calls: p50 {num(lat.p50, '{:.1f}')} ms, "
            f"p95 {num(lat.p95, '{:.1f}')} ms, max {num(lat.max, '{:.1f}')} ms.", ""]
    by_tool = speed.tool_latency_by_tool_ms or {}
    if by_tool:
        out += ["| tool | calls | p50 (ms) | p95 (ms) | max (ms) |", "|---|---|---|---|---|"]
        out += [f"| {tool} | {t.n} | {num(t.p50, '{:.1f}')} | {num(t.p95, '{:.1f}')} "
                f"| {num(t.max, '{:.1f}')} |" for tool, t in by_tool.items()]
        out.append("")
    return out


def _wall_line(wall_s: float | None) -> str:
    """The totals above add up each case's own time, and cases run side by side: say so, and give the wall time."""
    wall = (f" This attempt took {wall_s:.1f} s of wall time from start to report (a resumed run's earlier "
            "attempts are not in it).") if isinstance(wall_s, (int, float)) else ""
    return ("A phase's total (s) adds up every case's (or question's) own time; cases run concurrently "
            f"(`[run] concurrency`), so a total can exceed the run's wall time.{wall}")
