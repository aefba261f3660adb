"""`mycelian-longmemeval replay RUN_DIR CONFIG`: the same memory writes, another memory backend.

A finished agent run's decisions.jsonl holds every memory write its agent made. Replay re-sends the
successful `add_entry` and `put_context` calls of each case, in order, into a FRESH memory of CONFIG's
memory backend (other alpha, embedder, top_k, index settings, or a real Mycelian stack), then runs QA
and eval with CONFIG's reader and judge. The agent model is never built, so two memory backends are
compared on exactly the same writes, at no agent cost. What is replayed, and the checks that CONFIG
asks about the source's cases, live with the run: benchmarker/run/replay_source.py.

The output is a normal run directory under CONFIG's `[run].output_dir`, run id
`<config stem>-replay-<8 hex of source run id + CONFIG's canonical hash>` unless CONFIG sets
`run_id`, resumable like `run` (a case cut off mid-replay is replayed into a new memory). Its
manifest records where the writes came from under "replay".
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarker.config import canonical_hash, safe_stem
from benchmarker.config_schema import RunConfig
from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.console import print_outcome
from benchmarker.run.replay_source import ReplaySource, ReplayTarget, ingested_memories
from benchmarker.run.run_files import read_manifest
from benchmarker.run.runner import RunOutcome, execute_run

SIDE_BY_SIDE = ("session.recall_any@5", "session.recall_all@5", "session.recall_any@10", "session.recall_all@10",
                "turn.recall_any@5", "turn.recall_all@5", "turn.recall_any@10", "turn.recall_all@10")


# --- the verb ------------------------------------------------------------------------------------

def replay_run_id(path: Path | None, run_id: str, config_hash: str, source: ReplaySource) -> str:
    """CONFIG's own `run_id` when its file at `path` sets one, else `<config stem>-replay-<8 hex>` (over the
    source's run id and CONFIG's canonical hash)."""
    if path is not None and _file_sets_run_id(path):
        return run_id
    digest = hashlib.sha256(f"{source.run_id}\n{config_hash}".encode()).hexdigest()[:8]
    return f"{safe_stem(path) if path else 'run'}-replay-{digest}"


def _file_sets_run_id(path: Path) -> bool:
    try:
        return bool(tomllib.loads(path.read_text(encoding="utf-8")).get("run_id"))
    except (OSError, ValueError):
        return False


def _check_target(target: Path, run_id: str, config_path: Path | None, source: ReplaySource) -> None:
    """The replay's run directory (`target`, of run `run_id`) must be new, or an earlier attempt of the same replay."""
    run_dir = target.resolve()
    if run_dir == source.run_dir:
        raise UserError(f"{config_path}: run_id {run_id!r} is the source run's own directory; "
                        "remove run_id from CONFIG (a replay gets its own) or choose another one")
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.is_file():
        return
    previous, _ = read_manifest(run_dir, "replay")
    earlier = (previous.get("replay") or {}).get("source_run_id")
    if earlier != source.run_id:
        what = f"a replay of {earlier!r}" if earlier else "a run that is not a replay"
        raise UserError(f"{run_dir} already holds {what}, not a replay of {source.run_id!r}; "
                        "set another run_id in CONFIG")


async def execute_replay(run_dir: Path, config: RunConfig) -> RunOutcome:
    """Replay RUN_DIR's recorded writes into fresh memories of CONFIG's backend, then QA and eval."""
    if config.self_improve.iterations > 0:
        raise UserError(f"{config.config_path}: [self_improve].iterations re-runs the memory agent; set it to 0 "
                        "for a replay")
    if config.memory.preset != "mycelian" or config.memory.mapping:
        raise UserError(f"{config.config_path}: replay re-sends recorded Mycelian add_entry / put_context calls; "
                        f"[memory] names another server ({config.memory.mapping or config.memory.preset}). Run the "
                        "agent on it instead: mycelian-longmemeval run CONFIG")
    source = ReplaySource.load(run_dir, ReplayTarget.of(config))
    run_id = replay_run_id(config.config_path, config.run_id, canonical_hash(config), source)
    config = config.model_copy(update={"run_id": run_id})
    _check_target(config.run_dir, config.run_id, config.config_path, source)
    return await execute_run(config, replay=source)


# --- what the verb prints ------------------------------------------------------------------------

def _json(path: Path) -> dict[str, Any]:
    try:
        return load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _agent_calls(manifest: dict[str, Any]) -> int:
    return int((((manifest.get("tokens") or {}).get("roles") or {}).get("agent") or {}).get("calls") or 0)


def side_by_side(source_dir: Path, replay_dir: Path) -> list[tuple[str, str, str]]:
    """(metric, source, replay) rows: accuracy, retrieval recall and agent calls of both runs."""

    def fmt(value: Any) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    summaries = [_json(Path(d) / "summary.json") for d in (source_dir, replay_dir)]
    metrics = [(s.get("retrieval") or {}).get("metrics") or {} for s in summaries]
    accuracy = [((s.get("qa") or {}).get("overall") or {}).get("accuracy") for s in summaries]
    rows = [("qa accuracy", fmt(accuracy[0]), fmt(accuracy[1]))]
    rows += [(key, fmt(metrics[0].get(key)), fmt(metrics[1].get(key))) for key in SIDE_BY_SIDE]
    calls = [_agent_calls(_json(Path(d) / "manifest.json")) for d in (source_dir, replay_dir)]
    rows.append(("agent model calls", str(calls[0]), str(calls[1])))
    return rows


TABLE_TITLE = "source vs replay"  # short: rich wraps a long title mid-phrase over a narrow table


def replay_line(info: dict[str, Any], source_dir: Path, run_dir: Path) -> str:
    """What the table compares, on its own line above it (run ids are long; a table title wraps them)."""
    return (f"source {info.get('source_run_id', source_dir.name)} vs replay {run_dir.name}: "
            f"{info.get('decisions_replayed', 0)} writes replayed")


def print_replay_outcome(outcome: RunOutcome, source_dir: Path) -> None:
    """Where the replay is, then source vs replay side by side (a sweep prints its own table instead)."""
    source_dir = Path(source_dir)
    info = _json(outcome.run_dir / "manifest.json").get("replay") or {}
    ingested_in_source = ingested_memories(source_dir / "memories.jsonl")
    not_in_source = [c for c in outcome.skipped if c not in ingested_in_source]
    sweep = len(outcome.points) > 1
    print_outcome(replace(outcome, summary=outcome.summary if sweep else RunSummary(),
                          skipped=[c for c in outcome.skipped if c not in not_in_source]))
    console = Console()
    if not_in_source:
        console.print(f"[yellow]note:[/] {len(not_in_source)} case(s) not replayed: no finished ingestion in the "
                      f"source run ({', '.join(not_in_source[:10])}{' ...' if len(not_in_source) > 10 else ''})")
    if sweep:
        return
    console.print(replay_line(info, source_dir, outcome.run_dir))
    table = Table(title=TABLE_TITLE)
    for column in ("metric", "source", "replay"):
        table.add_column(column)
    for row in side_by_side(source_dir, outcome.run_dir):
        table.add_row(*row)
    console.print(table)
