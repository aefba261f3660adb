"""`mycelian-longmemeval replay RUN_DIR CONFIG`: the same memory writes, another memory backend.

Mycelian's design: "replay mode can consume the decision log to bypass live policy and isolate
retrieval". A finished agent run's decisions.jsonl holds every memory write its agent made. Replay
re-sends the successful `add_entry` and `put_context` calls of each case, in order, into a FRESH
memory of CONFIG's memory backend (other alpha, embedder, top_k, index settings, or a real Mycelian
stack), then runs QA and eval with CONFIG's reader and judge. The agent model is never built, so
two memory backends are compared on exactly the same writes, at no agent cost.

What is replayed for a case: the source's decisions whose caller is "agent" (or "replay": a replay
can be replayed), tool add_entry / put_context, no error, written into the memory of the case's
ingested attempt (earlier cut-off attempts wrote into abandoned memories). vault_id / memory_id
become the new memory's; tags stay as recorded except `run_id` (graph/replay.py). A case is a question
(LongMemEval) or a whole conversation (LoCoMo, BEAM: replayed once, whichever of its questions CONFIG
asks). A suite that scores the agent itself refuses with its own `replay_refusal`.

The output is a normal run directory under CONFIG's `[run].output_dir`, run id
`<config stem>-replay-<8 hex of source run id + CONFIG's canonical hash>` unless CONFIG sets
`run_id`, resumable like `run` (a case cut off mid-replay is replayed into a new memory). Its
manifest records where the writes came from under "replay".
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.log.jsonl import read_jsonl
from benchmarker.registry import dataset_kinds_where, suite
from benchmarker.run.run_files import read_manifest, require_whole

if TYPE_CHECKING:
    from benchmarker.run.runner import RunOutcome

REPLAYED_TOOLS = ("add_entry", "put_context")
WRITE_CALLERS = ("agent", "replay")
SELECTION_KEYS = ("question_ids", "question_types", "limit", "sample", "sample_seed")
SIDE_BY_SIDE = ("session.recall_any@5", "session.recall_all@5", "session.recall_any@10", "session.recall_all@10",
                "turn.recall_any@5", "turn.recall_all@5", "turn.recall_any@10", "turn.recall_all@10")


class RecordedWrite(NamedTuple):
    """One memory write of the source run, as its agent sent it (trace tags merged)."""

    tool: str
    args: dict[str, Any]
    question_id: str | None
    session_id: str | None
    turn: int | None


@dataclass(frozen=True)
class ReplaySource:
    """A finished run's recorded writes, per case, checked against the config that replays them."""

    run_dir: Path
    manifest: dict[str, Any]
    manifest_sha256: str
    writes: dict[str, list[RecordedWrite]]  # case_id -> writes in order; only cases ingested in the source
    selected: frozenset[str] | None         # the case ids CONFIG plans (None: the kind has no selection)

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id") or self.run_dir.name)

    @classmethod
    def load(cls, run_dir: Path, config) -> ReplaySource:
        """Read RUN_DIR once; raise UserError naming the file / key when it cannot be replayed by `config`."""
        run_dir = Path(run_dir).resolve()
        if not run_dir.is_dir():
            raise UserError(f"{run_dir}: not a directory; pass a finished run's directory (e.g. runs/<run_id>)")
        manifest_path = run_dir / "manifest.json"
        manifest, raw = read_manifest(run_dir, "replay")
        if not (run_dir / "decisions.jsonl").is_file():
            raise UserError(f"{run_dir}: no decisions.jsonl; replay re-applies the memory writes recorded there, "
                            "so the source must be a run that ingested with the memory agent")
        # A cut-off "ingested" line would drop its case; a cut-off last decision cannot belong to an
        # ingested case (that line is written after all of the case's decisions), so it is skipped.
        require_whole(run_dir / "memories.jsonl", "replay")
        mode = (source_config(manifest).get("run") or {}).get("mode", "agent")
        if mode == "retrieval":
            raise UserError(f"{manifest_path}: the source run was made in retrieval mode ([run].mode = \"retrieval\"): "
                            "its writes are the dataset's messages, not agent decisions, so there is nothing to "
                            "replay; run CONFIG with [run].mode = \"retrieval\" instead")
        selected = check_dataset(manifest, manifest_path, config)
        memories = _ingested_memories(run_dir / "memories.jsonl")
        writes = _recorded_writes(run_dir / "decisions.jsonl", memories)
        if selected is not None:
            writes = {case: w for case, w in writes.items() if case in selected}
        return cls(run_dir, manifest, hashlib.sha256(raw).hexdigest(), writes,
                   frozenset(selected) if selected is not None else None)

    def missing_reason(self, case_id: str) -> str | None:
        """Why a case cannot be replayed (None when it can): the source never finished ingesting it."""
        if case_id in self.writes:
            return None
        return (f"case {case_id} has no finished ingestion in the source run {self.run_id} ({self.run_dir}); "
                "resume the source run first, or leave the case out of CONFIG's [run] selection")

    def writes_for(self, case_id: str) -> list[RecordedWrite]:
        return self.writes[case_id]

    @property
    def decisions_replayed(self) -> int:
        return sum(len(w) for w in self.writes.values())

    def describe(self) -> dict[str, Any]:
        """The manifest's "replay" block."""
        return {"source_run_dir": str(self.run_dir), "source_run_id": self.run_id,
                "source_manifest_sha256": self.manifest_sha256, "decisions_replayed": self.decisions_replayed,
                "cases": len(self.writes), "source_agent_model": (self.manifest.get("models") or {}).get("agent")}


def _ingested_memories(path: Path) -> dict[str, str]:
    """case_id -> memory id of the latest attempt whose ingestion finished."""
    found: dict[str, tuple[int, str]] = {}
    for line in read_jsonl(path):
        if line.get("status") != "ingested":
            continue
        attempt = int(line.get("attempt", 0))
        if line["case_id"] not in found or attempt >= found[line["case_id"]][0]:
            found[line["case_id"]] = (attempt, line["memory_id"])
    return {case: memory_id for case, (_, memory_id) in found.items()}


def _recorded_writes(path: Path, memories: dict[str, str]) -> dict[str, list[RecordedWrite]]:
    writes: dict[str, list[RecordedWrite]] = {case: [] for case in memories}
    agent_decisions = 0
    for line in read_jsonl(path):  # a line torn by a crash at the very end is skipped
        if line.get("caller") not in WRITE_CALLERS:
            continue
        agent_decisions += 1
        args = line.get("args")
        case = line.get("case_id")
        if (line.get("tool") in REPLAYED_TOOLS and line.get("error") is None and isinstance(args, dict)
                and case in memories and args.get("memory_id") == memories[case]):
            writes[case].append(RecordedWrite(line["tool"], args, line.get("question_id"), line.get("session_id"),
                                              line.get("turn")))
    if not agent_decisions:
        raise UserError(f"{path}: no memory agent decisions (caller \"agent\"); replay needs a run that ingested "
                        "with the memory agent, not a retrieval-mode run")
    if not memories:
        raise UserError(f"{path.parent / 'memories.jsonl'}: no case finished ingestion in the source run; "
                        "resume it (mycelian-longmemeval run ITS_CONFIG) before replaying it")
    return writes


# --- is CONFIG about the same cases? -------------------------------------------------------------

def source_config(manifest: dict[str, Any]) -> dict[str, Any]:
    """The source run's config tables (the manifest's "config" is `RunConfig.to_manifest()`, the
    tables under its own "config" key)."""
    block = manifest.get("config") or {}
    return tables if isinstance(tables := block.get("config"), dict) else block

def check_dataset(manifest: dict[str, Any], manifest_path: Path, config) -> set[str] | None:
    """Raise UserError when CONFIG's dataset or selection is not the source run's; return the ids of the
    cases CONFIG plans (one per question, a subset of the source's; or one per conversation, whose
    memory serves any of its questions), or None for kinds without a selection."""
    from benchmarker.registry import plan_dataset

    kind = config.dataset.kind
    source = manifest.get("dataset") or {}
    source_table = source_config(manifest).get("dataset") or {}
    where = config.config_path or "CONFIG"
    if refusal := suite(kind).replay_refusal:
        raise UserError(f"{where}: [dataset].kind = {kind!r} cannot be replayed: it {refusal}; replay supports "
                        f"{', '.join(dataset_kinds_where('replayable'))} (to try CONFIG's memory backend on it, run "
                        "the agent there: mycelian-longmemeval run CONFIG)")
    if source.get("kind") != kind:
        raise UserError(f"{where}: [dataset].kind is {kind!r} but the source run used {source.get('kind')!r} "
                        f"({manifest_path}: dataset.kind); replay only makes sense on the same cases")
    with tempfile.TemporaryDirectory() as scratch:  # a generated sample is written here, not into runs/
        plan = plan_dataset(config, Path(scratch))
        if plan.sha256 != source.get("sha256"):
            raise UserError(f"{where}: the dataset differs from the source run's: CONFIG's data "
                            f"{_data_name(plan.path)} has sha256 {str(plan.sha256)[:12]}..., the source's "
                            f"{_data_name(source.get('path'))} has {str(source.get('sha256'))[:12]}... "
                            f"({manifest_path}: dataset.sha256)" + _table_diff(source_table, config))
        if plan.sha256 is None:  # generated from its table alone (long-horizon): the table must match
            diff = _table_diff(source_table, config)
            if diff:
                raise UserError(f"{where}: the dataset differs from the source run's" + diff)
            return None
        if suite(kind).conversation_cases:  # a conversation is ingested whole, whichever of its questions are asked
            return {case.case_id for group in plan.groups for case in group.cases()}
        from benchmarker.suites.longmemeval.data import scan_question_index

        assert plan.path is not None  # a LongMemEval plan reads a file
        index = scan_question_index(plan.path)
    mine = _select(index, config.run.model_dump(mode="json"))
    theirs = set(_select(index, source_config(manifest).get("run") or {}))
    extra = [qid for qid in mine if qid not in theirs]
    if extra:
        shown = ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        raise UserError(f"{where}: [run] selects {len(extra)} question(s) the source run did not select ({shown}); "
                        f"replay only makes sense on the source's cases: make [run] "
                        f"{' / '.join(SELECTION_KEYS)} select the same questions (or a subset) as in "
                        f"{manifest_path} (config.config.run)")
    return set(mine)


def _select(index: list[tuple[str, str]], run: dict[str, Any]) -> list[str]:
    from benchmarker.datasets.selection import select_question_ids
    from benchmarker.suites.longmemeval.data import QUESTION_TYPES

    return select_question_ids(index, question_ids=list(run.get("question_ids") or ()),
                               question_types=list(run.get("question_types") or ()), limit=int(run.get("limit") or 0),
                               sample=int(run.get("sample") or 0), sample_seed=int(run.get("sample_seed", 42)),
                               known_types=QUESTION_TYPES)


def _data_name(path: Any) -> str:
    return Path(path).name if path else "(none)"


def _table_diff(source_table: dict[str, Any], config) -> str:
    """'; [dataset].seed: source 42, CONFIG 7' for every differing key (paths left out)."""
    mine = config.dataset.model_dump(mode="json")
    keys = [k for k in mine if k != "file" and k in source_table and source_table[k] != mine[k]]
    return "".join(f"; [dataset].{k}: source {source_table[k]!r}, CONFIG {mine[k]!r}" for k in keys)


# --- the verb ------------------------------------------------------------------------------------

def replay_run_id(config, source: ReplaySource) -> str:
    """CONFIG's own run_id when it sets one, else `<config stem>-replay-<8 hex>`."""
    from benchmarker.config import _safe_stem, canonical_hash

    path = config.config_path
    if path is not None and _file_sets_run_id(path):
        return config.run_id
    digest = hashlib.sha256(f"{source.run_id}\n{canonical_hash(config)}".encode()).hexdigest()[:8]
    return f"{_safe_stem(path) if path else 'run'}-replay-{digest}"


def _file_sets_run_id(path: Path) -> bool:
    import tomllib

    try:
        return bool(tomllib.loads(path.read_text(encoding="utf-8")).get("run_id"))
    except (OSError, ValueError):
        return False


def _check_target(config, source: ReplaySource) -> None:
    """The replay's run directory must be new, or an earlier attempt of the same replay."""
    run_dir = config.run_dir.resolve()
    if run_dir == source.run_dir:
        raise UserError(f"{config.config_path}: run_id {config.run_id!r} is the source run's own directory; "
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


async def execute_replay(run_dir: Path, config) -> RunOutcome:
    """Replay RUN_DIR's recorded writes into fresh memories of CONFIG's backend, then QA and eval."""
    from benchmarker.run.runner import execute_run

    if config.self_improve.iterations > 0:
        raise UserError(f"{config.config_path}: [self_improve].iterations re-runs the memory agent; set it to 0 "
                        "for a replay")
    if config.memory.preset != "mycelian" or config.memory.mapping:
        raise UserError(f"{config.config_path}: replay re-sends recorded Mycelian add_entry / put_context calls; "
                        f"[memory] names another server ({config.memory.mapping or config.memory.preset}). Run the "
                        "agent on it instead: mycelian-longmemeval run CONFIG")
    source = ReplaySource.load(run_dir, config)
    config = config.model_copy(update={"run_id": replay_run_id(config, source)})
    _check_target(config, source)
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


def print_replay_outcome(outcome, source_dir: Path) -> None:
    """Where the replay is, then source vs replay side by side (a sweep prints its own table instead)."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from benchmarker.run.console import print_outcome

    source_dir = Path(source_dir)
    info = _json(outcome.run_dir / "manifest.json").get("replay") or {}
    ingested_in_source = _ingested_memories(source_dir / "memories.jsonl")
    not_in_source = [c for c in outcome.skipped if c not in ingested_in_source]
    sweep = len(outcome.points) > 1
    print_outcome(replace(outcome, summary=outcome.summary if sweep else {},
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
