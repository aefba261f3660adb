"""`mycelian-longmemeval judge-online CONFIG`: the fact-enumeration judge over extraction runs.

The offline suite scores labelled cases; production has no labels. The strategy document's
second phase judges production runs instead: for each memory-extraction run (tag
`memory_extraction`), a model lists the facts the user stated, the new facts the extractor
wrote, the missed and the hallucinated ones, and the code computes precision / recall / F1
(suites/fact_extraction/fact_judge.py, the same judge and prompt as the fact-extraction suite with an LLM judge).

Two sources (`[online] source`):
- `langsmith`: root runs of `[online] project` (else `[tracing] project`) carrying `[online] tag`,
  started inside `since` .. `until` (LangSmith's v2 run query, `client.runs.query_v2`). A run's
  inputs hold `conversation` (list of {role, content} or text) and `existing_memory` (list or
  text); its outputs `extracted_output` (list or text): the shape a harness run traced with
  `[tracing] langsmith = true` has (agent/tracing.py).
- `run_dir`: the harness's own logs, no LangSmith: every ingestion turn of a finished run (the
  dataset's messages, the agent's earlier writes in the case, the turn's writes, from
  `decisions.jsonl`), so the same judge audits what our memory agent wrote during LongMemEval.

Writes a run directory (`online.jsonl` one line per judged run, `summary.json`, `report.md` /
`report.html` with P / R / F1 over time, `manifest.json`); resumable (a judged run is never judged
again); `[run] concurrency` judge calls at once; the ledger counts the judge's tokens and cost.
With `post_feedback`, scores go back to LangSmith as feedback on each run (deterministic feedback
ids: a resumed run updates, never duplicates). With `[provider] type = "offline"` the four lists
come from suites/fact_extraction/fact_enumeration.py (a deterministic floor).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from benchmarker.config_schema import (
    ModelsConfig,
    OnlineConfig,
    Price,
    ProviderConfig,
    RetryConfig,
    RunConfig,
    TracingConfig,
)
from benchmarker.errors import UserError
from benchmarker.log.jsonl import JsonlWriter, read_json_object, read_jsonl, write_figure, write_json_atomic, write_text_atomic
from benchmarker.log.lines import Json, Manifest, ManifestConfig, ManifestTokens
from benchmarker.scoring.judges import LLMJudge

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot

JUDGE = LLMJudge.name  # the fact-enumeration judge always asks its model

ONLINE_FILE = "online.jsonl"
TARGETS = {"precision": 0.95, "recall": 0.85, "f1": 0.90}   # the strategy document's targets
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class OnlineEstimate(TypedDict):
    """`judge-online --estimate`'s object: what judging the pending runs would cost."""

    runs_to_judge: int
    already_judged: int
    model: str | None
    input_tokens: int
    output_tokens: int
    usd: float | None
    note: str


@dataclass
class ExtractionItem:
    """One memory-extraction run to judge: what was said, what memory held, what was written."""

    id: str
    started_at: str
    conversation: list[dict[str, str]]                # {role, content} per message
    existing_memory: list[str]
    extracted: list[str]
    labels: dict[str, Json] = field(default_factory=dict)   # run_id, case_id, ... as the trace's metadata has them
    project_id: str | None = None     # LangSmith's session id (feedback is filed under it)


def parse_when(value: str, key: str, config_path: Any, now: datetime | None = None) -> datetime | None:
    """"" -> None; "24h" / "7d" / "90m" / "2w" -> that long before now; else an ISO 8601 time (UTC if naive)."""
    if not value.strip():
        return None
    now = now or datetime.now(UTC)
    if m := _DURATION.match(value):
        return now - timedelta(**{_UNITS[m[2]]: float(m[1])})
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UserError(f"{config_path}: [online].{key} = {value!r} is neither an ISO 8601 time "
                        "(2026-11-01T00:00:00Z) nor a duration back from now (90m, 24h, 7d, 2w)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# --- sources --------------------------------------------------------------------------------------

def _as_messages(value: Any) -> list[dict[str, str]]:
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    out = []
    for item in value or []:
        if isinstance(item, dict):
            out.append({"role": str(item.get("role") or item.get("type") or "user"),
                        "content": str(item.get("content") or item.get("text") or "")})
        else:
            out.append({"role": "user", "content": str(item)})
    return out


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip() for line in value.splitlines() if line.strip()]
    return [str(v).strip() for v in value if str(v).strip()]


def item_from_trace(run: Any) -> ExtractionItem | None:
    """A LangSmith run (a v2 query item) as an item; None when it lacks the conversation (not an
    extraction run's shape)."""
    inputs, outputs = run.inputs or {}, run.outputs or {}
    if "conversation" not in inputs:
        return None
    metadata = getattr(run, "metadata", None) or (getattr(run, "extra", None) or {}).get("metadata") or {}
    labels = {k: metadata.get(k) for k in ("run_id", "case_id", "session_id", "turn_index") if metadata.get(k) is not None}
    started = run.start_time.astimezone(UTC).isoformat() if run.start_time else ""
    project_id = getattr(run, "project_id", None) or getattr(run, "session_id", None)
    return ExtractionItem(id=str(run.id), started_at=started, conversation=_as_messages(inputs["conversation"]),
                          existing_memory=_as_list(inputs.get("existing_memory")),
                          extracted=_as_list(outputs.get("extracted_output", outputs.get("output"))), labels=labels,
                          project_id=str(project_id) if project_id else None)


@dataclass(frozen=True)
class OnlineSource:
    """Where judge-online reads its items: `[online]`, `[tracing]` (the LangSmith project and key) and the config
    file, named in errors and against which `since` / `until` are read."""

    online: OnlineConfig
    tracing: TracingConfig
    config_path: Path | None


async def _source(source: OnlineSource) -> tuple[Any | None, Iterator[ExtractionItem]]:
    """The LangSmith client (None for source "run_dir") and the items the configured source yields."""
    if source.online.source != "langsmith":
        return None, items_from_run_dir(source.online, source.config_path)
    from benchmarker.agent.tracing import langsmith_client

    client, _ = langsmith_client(source.tracing)
    return client, iter(await items_from_langsmith(source, client))


def _pending(limit: int, items: Iterator[ExtractionItem], done: set[str]) -> list[ExtractionItem]:
    """The items not judged yet, at most `[online] limit` judged in all (0: no limit)."""
    pending = [item for item in items if item.id not in done]
    return pending[:max(0, limit - len(done))] if limit else pending


def _fact_case(item: ExtractionItem):
    """An extraction run as the fact judge's input (prompts/fact_judge.txt): no labels online."""
    from benchmarker.datasets.schema import Message
    from benchmarker.suites.fact_extraction.data import FactCase

    return FactCase(id=item.id, scenario="online", existing_memory=tuple(item.existing_memory),
                    conversation=tuple(Message(role=m["role"], content=m["content"]) for m in item.conversation),
                    expected_output=(), expected_facts=())


# The run fields judge-online reads (the v2 query returns only `id` unless asked for more).
RUN_SELECTS = ["ID", "START_TIME", "INPUTS", "OUTPUTS", "EXTRA", "METADATA", "PROJECT_ID"]


async def items_from_langsmith(source: OnlineSource, client: Any) -> list[ExtractionItem]:
    """Root runs of the project carrying the tag, started inside since .. until, read with
    `client.runs.query_v2` (what `list_runs`, deprecated, points to; async). The v2 query takes
    the project's id and an explicit window: it would default to the last day, so an open `since`
    starts at the project's start, as the langsmith client's own readers do."""
    online = source.online
    project = online.project or source.tracing.project
    since = parse_when(online.since, "since", source.config_path)
    until = parse_when(online.until, "until", source.config_path)
    try:
        found = client.read_project(project_name=project)
        query = client.runs.query_v2(project_ids=[str(found.id)], filter=f'has(tags, "{online.tag}")', is_root=True,
                                     min_start_time=since or found.start_time, max_start_time=until or datetime.now(UTC),
                                     selects=RUN_SELECTS)
        runs = [run async for run in query]
    except Exception as err:  # the client's own errors name the HTTP status and the endpoint
        raise UserError(f"cannot read runs of LangSmith project {project!r} ({err}); check [tracing].endpoint / "
                        f"LANGSMITH_ENDPOINT and the key in ${source.tracing.api_key_env}") from err
    return [item for run in runs if (item := item_from_trace(run)) is not None]


def items_from_run_dir(online: OnlineConfig, config_path: Path | None) -> Iterator[ExtractionItem]:
    """Every ingestion turn of a finished harness run, rebuilt from its dataset and decisions.jsonl."""
    from benchmarker.config import load_config
    from benchmarker.graph.ingest import ingest_units
    from benchmarker.log.records import DecisionRecord, read_records
    from benchmarker.log.store import RunLog
    from benchmarker.log.written import written_texts
    from benchmarker.registry import plan_dataset
    from benchmarker.suites.settings import PlanSettings

    run_dir = Path(online.run_dir)
    manifest = read_json_object(run_dir / "manifest.json")
    if not manifest:
        raise UserError(f"{config_path}: [online].run_dir = {run_dir} holds no manifest.json; "
                        "point it at a finished run directory")
    source_path = Path(manifest.get("config_path") or "")
    if not source_path.is_file():
        raise UserError(f"{run_dir}: its config {source_path} is gone; the dataset cannot be rebuilt without it")
    source = load_config(source_path)
    plan = plan_dataset(PlanSettings.of(source), run_dir)
    if plan.sha256 != (manifest.get("dataset") or {}).get("sha256"):
        raise UserError(f"{run_dir}: the dataset of its config changed since the run (sha256 differs); "
                        "judge-online needs the messages the run ingested")
    from benchmarker.run.run_files import require_whole

    require_whole(run_dir / "memories.jsonl", "judge-online")  # a cut-off "ingested" line would drop its case
    memories = RunLog(run_dir).done.memories
    if not any(memory.ingested for memory in memories.values()):
        raise UserError(f"{run_dir / 'memories.jsonl'}: no case finished ingestion in this run (the file is missing, "
                        "empty or holds no \"ingested\" line), so there is nothing to judge; resume the run first")
    calls: dict[str, list[DecisionRecord]] = {}
    for call in read_records(run_dir / DecisionRecord.FILE, DecisionRecord):
        if call.caller == "agent":
            calls.setdefault(call.case_id, []).append(call)
    run_id = manifest.get("run_id", run_dir.name)
    for group in plan.groups:
        for case in group.cases():
            memory = memories.get(case.case_id)
            if memory is None or not memory.ingested:
                continue
            mine = [c for c in calls.get(case.case_id, []) if c.args.get("memory_id") in (None, memory.memory_id)]
            by_turn: dict[tuple[str | None, int | None], list[DecisionRecord]] = {}
            for call in mine:
                by_turn.setdefault((call.session_id, call.turn), []).append(call)
            held: list[str] = []
            for session in case.sessions:
                for turn in ingest_units([m.role for m in session.messages], source.agent.ingest_unit):
                    wrote = written_texts(by_turn.get((session.session_id, turn[-1]), []))
                    yield ExtractionItem(
                        id=f"{run_id}/{case.case_id}/{session.session_id}/{turn[-1]}", started_at=session.date or "",
                        conversation=[{"role": session.messages[i].role, "content": session.messages[i].content}
                                      for i in turn],
                        existing_memory=list(held), extracted=wrote,
                        labels={"run_id": run_id, "case_id": case.case_id, "session_id": session.session_id,
                                "turn_index": turn[-1]})
                    held += wrote


# --- judging ---------------------------------------------------------------------------------------

async def judge_item(item: ExtractionItem, model: Any | None, *, retries: int, thresholds) -> dict[str, Any]:
    """One line of online.jsonl: the judge's lists, the counts and P / R / F1 (None when unjudged)."""
    from benchmarker.suites.fact_extraction.fact_enumeration import enumerate_facts
    from benchmarker.suites.fact_extraction.fact_judge import FactJudgeResult, format_extracted_output, judge_facts

    if model is None:
        lists = enumerate_facts(item.conversation, item.existing_memory, item.extracted, thresholds=thresholds)
        result = FactJudgeResult(item.id, "judged", **{k: tuple(v) for k, v in lists.items()}, attempts=1)  # type: ignore[arg-type]  # the four *_facts lists
        method = "deterministic"
    else:
        result = await judge_facts(model, _fact_case(item), format_extracted_output(item.extracted), retries=retries)
        method = "llm"
    return {"schema_version": 1, "id": item.id, "started_at": item.started_at, **item.labels, "method": method,
            "extracted": item.extracted, **result.to_dict()}


def _judge_model(provider: ProviderConfig, models: ModelsConfig, retry: RetryConfig, config_path: Path | None,
                 ledger: Any) -> Any | None:
    """The [models] eval model through the retry policy and the ledger; None offline."""
    if provider.type == "offline":
        return None
    if not models.eval:
        raise UserError(f"{config_path}: judge-online needs [models].eval (the judge model), or "
                        '[provider].type = "offline" for the deterministic enumeration')
    from benchmarker.agent.providers import make_chat_model
    from benchmarker.agent.retry import RetryingModel, RetryPolicy
    from benchmarker.run.models import provider_kwargs

    policy = RetryPolicy.from_config(retry)
    raw = make_chat_model(provider.type, models.eval, role="eval", temperature=0.0,
                          max_tokens=models.max_tokens, **provider_kwargs(provider, retry))
    return RetryingModel(raw, policy=policy, ledger=ledger, role="eval", model_id=models.eval,
                         provider=provider.type)


async def run_judge_online(config: RunConfig) -> Path:
    """Judge every matching run not judged yet; write the run directory; return it."""
    from benchmarker.agent.ledger import TokenLedger
    from benchmarker.graph.progress import RunProgress
    from benchmarker.run.manifest import build_manifest, utc_now
    from benchmarker.run.runner import ledger_totals

    online = config.online
    run_dir = config.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    out = run_dir / ONLINE_FILE
    done = {line["id"] for line in read_jsonl(out)}
    previous = cast(Manifest, read_json_object(run_dir / "manifest.json")) or None  # as build_manifest wrote it
    ledger = TokenLedger(prices=dict(config.prices), earlier=(previous or {}).get("tokens"))
    model = _judge_model(config.provider, config.models, config.retry, config.config_path, ledger)
    client, items = await _source(OnlineSource(config.online, config.tracing, config.config_path))
    manifest = build_manifest(
        config=cast(ManifestConfig, config.to_manifest(JUDGE)), config_path=str(config.config_path),
        config_sha256=config.config_sha256, run_id=config.run_id, dataset={"kind": "online", "source": online.source,
                                       "project": online.project or config.tracing.project if client else None,
                                       "run_dir": online.run_dir or None, "tag": online.tag, "since": online.since,
                                       "until": online.until},
        models={"provider": config.provider.type, "eval": config.models.eval or None,
                "judge": "llm" if model is not None else "deterministic"},
        memory={}, judge={"kind": "fact_enumeration", "model": config.models.eval or None}, previous=previous)
    write_json_atomic(run_dir / "manifest.json", manifest)
    pending = _pending(online.limit, items, done)
    writer = JsonlWriter(out, durable=True)
    semaphore = asyncio.Semaphore(config.run.concurrency)
    started = time.monotonic()
    status = "failed"
    try:
        with RunProgress(len(pending), enabled=config.run.progress, stats=lambda: ledger_totals(ledger)) as progress:
            progress.set_phase("judge")

            async def one(item: ExtractionItem) -> None:
                async with semaphore:
                    line = await judge_item(item, model, retries=config.eval.judge_retries,
                                            thresholds=config.eval.thresholds)
                    if client is not None and online.post_feedback and line["status"] == "judged":
                        await asyncio.to_thread(_post_feedback, client, item, online.feedback_key, line)
                        line["feedback_posted"] = True
                    writer.write(line)
                    f1 = line["f1"]
                    progress.question_done(f"{item.id}: " + (f"F1 {f1:.2f}" if f1 is not None else "unjudged"))

            await asyncio.gather(*(one(item) for item in pending))
        status = "finished"
    finally:
        writer.close()
        manifest["status"], manifest["ended_at"] = status, utc_now()
        manifest["tokens"] = cast(ManifestTokens, ledger.snapshot())  # agent/ledger's LedgerSnapshot
        manifest["wall_s"], manifest["judged_now"] = round(time.monotonic() - started, 3), len(pending)
        write_json_atomic(run_dir / "manifest.json", manifest)
    summary = write_online_outputs(run_dir, ledger.snapshot())
    print(f"judged {summary['judged']} of {summary['items']} runs: P {_fmt(summary['micro']['precision'])} "
          f"R {_fmt(summary['micro']['recall'])} F1 {_fmt(summary['micro']['f1'])}\nreport: {run_dir / 'report.html'}")
    return run_dir


JUDGE_REPLY_TOKENS = 250   # the judge's JSON: four short lists (measured replies: 150-300 tokens)


def estimate_judge_online(run_dir: Path, source: OnlineSource, provider: str, eval_model: str,
                          prices: Mapping[str, Price]) -> OnlineEstimate:
    """Tokens and USD of judging what is not judged yet in `run_dir`, before paying: each item's rendered judge
    prompt (characters / 4) in, JUDGE_REPLY_TOKENS out, priced by [prices] (`provider`: [provider].type,
    `eval_model`: [models].eval)."""
    from benchmarker.agent.ledger import Usage, price_usage
    from benchmarker.run.estimate_model import tokens
    from benchmarker.suites.fact_extraction.fact_judge import format_extracted_output, render_fact_judge_prompt

    done = {line["id"] for line in read_jsonl(run_dir / ONLINE_FILE)}
    pending = _pending(source.online.limit, asyncio.run(_source(source))[1], done)
    prompt_tokens = sum(tokens(len(render_fact_judge_prompt(_fact_case(i), format_extracted_output(i.extracted))))
                        for i in pending)
    model = eval_model if provider != "offline" else "offline (deterministic enumeration)"
    usage = Usage(calls=len(pending), input_tokens=prompt_tokens, output_tokens=JUDGE_REPLY_TOKENS * len(pending))
    price = prices.get(eval_model)
    usd = 0.0 if provider == "offline" else \
        price_usage(usage, None if price is None else price.model_dump(), eval_model)[0]
    return {"runs_to_judge": len(pending), "already_judged": len(done), "model": model,
            "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "usd": usd,
            "note": "judge retries after an unusable reply are not included" if pending else ""}


def _post_feedback(client, item: ExtractionItem, key: str, line: dict[str, Any]) -> None:
    """P / R / F1 as three feedback scores on the run; ids derived from run and key, so posting again
    (a resumed judge-online) updates the same feedback instead of adding more."""
    comment = (f"tp={line['tp']} fp={line['fp']} fn={line['fn']}; missed: {list(line['missed_facts'])[:5]}; "
               f"hallucinated: {list(line['hallucinated_facts'])[:5]}")
    for metric in ("precision", "recall", "f1"):
        feedback_id = uuid.uuid5(uuid.NAMESPACE_URL, f"mycelian-longmemeval/{item.id}/{key}_{metric}")
        client.create_feedback(item.id, key=f"{key}_{metric}", score=line[metric], comment=comment,
                               feedback_id=feedback_id, session_id=item.project_id)


# --- outputs ----------------------------------------------------------------------------------------

def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def summarize_online(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Micro P / R / F1 (summed counts), macro means with bootstrap 95% intervals, and per-day points."""
    from benchmarker.scoring.stats import bootstrap_mean_ci
    from benchmarker.suites.fact_extraction.facts import prf

    judged = [line for line in lines if line.get("status") == "judged"]
    tp, fp, fn = (sum(line[k] for line in judged) for k in ("tp", "fp", "fn"))
    micro = dict(zip(("precision", "recall", "f1"), prf(tp, fp, fn), strict=True)) if judged else \
        {"precision": None, "recall": None, "f1": None}
    macro = {}
    for metric in ("precision", "recall", "f1"):
        values = [line[metric] for line in judged]
        if values:
            mean, lo, hi = statistics.fmean(values), *bootstrap_mean_ci(values)
            macro[metric] = {"mean": mean, "ci95": [lo, hi]}
        else:
            macro[metric] = {"mean": None, "ci95": None}
    by_day: dict[str, list[dict[str, Any]]] = {}
    for line in judged:
        by_day.setdefault(str(line.get("started_at") or "")[:10] or "unknown", []).append(line)
    over_time = [{"day": day, "runs": len(rows), **dict(zip(("precision", "recall", "f1"),
                                                          prf(*(sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))),
                                                          strict=True))}
                 for day, rows in sorted(by_day.items())]
    passed = {m: ((v := micro[m]) is not None and v >= t) for m, t in TARGETS.items()}
    return {"items": len(lines), "judged": len(judged), "unjudged": len(lines) - len(judged),
            "counts": {"tp": tp, "fp": fp, "fn": fn}, "micro": micro, "macro": macro, "over_time": over_time,
            "targets": TARGETS, "passed": passed,
            "methods": sorted({line.get("method", "") for line in lines})}


def write_online_outputs(run_dir: Path, tokens: LedgerSnapshot) -> dict[str, Any]:
    """summary.json, report.md / report.html and the P / R / F1-over-time plot, from online.jsonl."""
    from benchmarker.reporting.markdown_html import render

    lines = list(read_jsonl(run_dir / ONLINE_FILE))
    summary = summarize_online(lines) | {"schema_version": 1, "cost": tokens.get("total", {})}
    write_json_atomic(run_dir / "summary.json", summary)
    plot = _plot_over_time(summary["over_time"], run_dir / "plots" / "online_prf.png")
    worst = sorted((line for line in lines if line.get("status") == "judged"), key=lambda line: line["f1"])[:10]
    md = ["# Online fact-extraction judge", "",
          f"{summary['judged']} runs judged ({summary['unjudged']} unjudged: no usable judge reply, left out), "
          f"judge: {', '.join(summary['methods'])}.", "",
          "| metric | micro (summed counts) | macro mean [95% CI] | target | pass |", "|---|---|---|---|---|"]
    for metric, target in TARGETS.items():
        macro = summary["macro"][metric]
        interval = "n/a" if macro["mean"] is None else \
            f"{macro['mean']:.3f} [{macro['ci95'][0]:.3f}, {macro['ci95'][1]:.3f}]"
        md.append(f"| {metric} | {_fmt(summary['micro'][metric])} | {interval} | > {target} | "
                  f"{'pass' if summary['passed'][metric] else 'FAIL'} |")
    md += ["", f"Counts: TP {summary['counts']['tp']}, FP {summary['counts']['fp']}, FN {summary['counts']['fn']}. "
           f"Judge cost: ${(summary['cost'] or {}).get('cost_usd', 0.0):.4f}.", "", "## Over time", ""]
    if plot is not None:
        md += [f"![precision, recall and F1 per day]({plot.relative_to(run_dir)})", ""]
    md += ["| day | runs | precision | recall | F1 |", "|---|---|---|---|---|"]
    md += [f"| {p['day']} | {p['runs']} | {p['precision']:.3f} | {p['recall']:.3f} | {p['f1']:.3f} |"
           for p in summary["over_time"]]
    md += ["", "## Lowest F1", "", "| run | F1 | missed | hallucinated |", "|---|---|---|---|"]
    md += [f"| {line['id']} | {line['f1']:.2f} | {'; '.join(line['missed_facts'][:3])} | "
           f"{'; '.join(line['hallucinated_facts'][:3])} |" for line in worst]
    text = "\n".join(md) + "\n"
    write_text_atomic(run_dir / "report.md", text)
    write_text_atomic(run_dir / "report.html", render(text, image_src=lambda p: _data_uri(run_dir / p)))
    return summary


def _data_uri(path: Path) -> str | None:
    import base64

    return f"data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}" if path.exists() else None


def _plot_over_time(points: list[dict[str, Any]], path: Path) -> Path | None:
    if not points:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    days = [p["day"] for p in points]
    for metric, target in TARGETS.items():
        line, = ax.plot(days, [p[metric] for p in points], marker="o", label=metric)
        ax.axhline(target, color=line.get_color(), linestyle=":", linewidth=1)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score (dotted: target)")
    ax.legend(loc="lower left", fontsize=8)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    write_figure(path, fig)
    plt.close(fig)
    return path
