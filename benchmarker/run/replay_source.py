"""The run side of `replay`: a finished run's recorded memory writes, per case, checked against the config
that replays them.

Mycelian's design: "replay mode can consume the decision log to bypass live policy and isolate
retrieval". A finished agent run's decisions.jsonl holds every memory write its agent made. The
`replay` verb (benchmarker/verbs/replay.py) loads them here and hands them to `runner.execute_run`;
the memory-agent subject carries them and the ingest node re-sends them (graph/replay.py) instead of
running the agent.

What is replayed for a case: the source's decisions whose caller is "agent" (or "replay": a replay
can be replayed), tool add_entry / put_context, no error, written into the memory of the case's
ingested attempt (earlier cut-off attempts wrote into abandoned memories). vault_id / memory_id
become the new memory's; tags stay as recorded except `run_id` (graph/replay.py). A case is a question
(LongMemEval) or a whole conversation (LoCoMo, BEAM: replayed once, whichever of its questions CONFIG
asks). A suite that scores the agent itself refuses with its own `protocol.replay_refusal`.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, cast

from benchmarker.config_schema import DatasetConfig, RunConfig, RunSection
from benchmarker.datasets.selection import select_question_ids
from benchmarker.errors import UserError
from benchmarker.log.jsonl import read_jsonl
from benchmarker.log.lines import Json, Manifest, ManifestConfig, ManifestDataset
from benchmarker.registry import dataset_kinds_where, plan_dataset, suite
from benchmarker.run.run_files import read_manifest, require_whole
from benchmarker.suites.longmemeval.data import QUESTION_TYPES, scan_question_index
from benchmarker.suites.settings import PlanSettings

REPLAYED_TOOLS = ("add_entry", "put_context")
WRITE_CALLERS = ("agent", "replay")
SELECTION_KEYS = ("question_ids", "question_types", "limit", "sample", "sample_seed")


class RecordedWrite(NamedTuple):
    """One memory write of the source run, as its agent sent it (trace tags merged)."""

    tool: str
    args: dict[str, Json]
    question_id: str | None
    session_id: str | None
    turn: int | None


@dataclass(frozen=True)
class ReplaySource:
    """A finished run's recorded writes, per case, checked against the config that replays them."""

    run_dir: Path
    manifest: Manifest
    manifest_sha256: str
    writes: dict[str, list[RecordedWrite]]  # case_id -> writes in order; only cases ingested in the source
    selected: frozenset[str] | None         # the case ids CONFIG plans (None: the kind has no selection)

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id") or self.run_dir.name)

    @classmethod
    def load(cls, run_dir: Path, config: ReplayTarget) -> ReplaySource:
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
        memories = ingested_memories(run_dir / "memories.jsonl")
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

    def describe(self) -> dict[str, Json]:
        """The manifest's "replay" block."""
        return {"source_run_dir": str(self.run_dir), "source_run_id": self.run_id,
                "source_manifest_sha256": self.manifest_sha256, "decisions_replayed": self.decisions_replayed,
                "cases": len(self.writes), "source_agent_model": (self.manifest.get("models") or {}).get("agent")}


def ingested_memories(path: Path) -> dict[str, str]:
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

def source_config(manifest: Manifest) -> dict[str, dict[str, Json]]:
    """The source run's config tables (the manifest's "config" is `RunConfig.to_manifest()`, the
    tables under its own "config" key; older manifests held the tables themselves)."""
    block = manifest.get("config") or ManifestConfig()
    tables = block.get("config")
    return tables if isinstance(tables, dict) else cast("dict[str, dict[str, Json]]", block)

@dataclass(frozen=True)
class ReplayTarget:
    """What a replay reads of CONFIG to check it against the source run: its `[dataset]`, its `[run]` selection,
    its file (named in errors) and its data's plan."""

    dataset: DatasetConfig
    run: RunSection
    config_path: Path | None
    plan: PlanSettings                    # what registry.plan_dataset plans CONFIG's data from

    @classmethod
    def of(cls, config: RunConfig) -> ReplayTarget:
        return cls(config.dataset, config.run, config.config_path, PlanSettings.of(config))


def check_dataset(manifest: Manifest, manifest_path: Path, config: ReplayTarget) -> set[str] | None:
    """Raise UserError when CONFIG's dataset or selection is not the source run's; return the ids of the
    cases CONFIG plans (one per question, a subset of the source's; or one per conversation, whose
    memory serves any of its questions), or None for kinds without a selection."""
    kind = config.dataset.kind
    source = manifest.get("dataset") or ManifestDataset()
    source_table = source_config(manifest).get("dataset") or {}
    where, chosen = config.config_path or "CONFIG", suite(kind)
    if refusal := chosen.protocol.replay_refusal:
        raise UserError(f"{where}: [dataset].kind = {kind!r} cannot be replayed: it {refusal}; replay supports "
                        f"{', '.join(dataset_kinds_where(_replayable))} (to try CONFIG's memory backend on it, run "
                        "the agent there: mycelian-longmemeval run CONFIG)")
    if source.get("kind") != kind:
        raise UserError(f"{where}: [dataset].kind is {kind!r} but the source run used {source.get('kind')!r} "
                        f"({manifest_path}: dataset.kind); replay only makes sense on the same cases")
    with tempfile.TemporaryDirectory() as scratch:  # a generated sample is written here, not into runs/
        plan = plan_dataset(config.plan, Path(scratch))
        if plan.sha256 != source.get("sha256"):
            raise UserError(f"{where}: the dataset differs from the source run's: CONFIG's data "
                            f"{_data_name(plan.path)} has sha256 {str(plan.sha256)[:12]}..., the source's "
                            f"{_data_name(source.get('path'))} has {str(source.get('sha256'))[:12]}... "
                            f"({manifest_path}: dataset.sha256)" + _table_diff(source_table, config.dataset))
        if plan.sha256 is None:  # generated from its table alone (long-horizon): the table must match
            diff = _table_diff(source_table, config.dataset)
            if diff:
                raise UserError(f"{where}: the dataset differs from the source run's" + diff)
            return None
        if chosen.protocol.conversation_cases:  # a conversation is ingested whole, whichever of its questions are asked
            return {case.case_id for group in plan.groups for case in group.cases()}
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
    return select_question_ids(index, question_ids=list(run.get("question_ids") or ()),
                               question_types=list(run.get("question_types") or ()), limit=int(run.get("limit") or 0),
                               sample=int(run.get("sample") or 0), sample_seed=int(run.get("sample_seed", 42)),
                               known_types=QUESTION_TYPES)


def _data_name(path: Any) -> str:
    return Path(path).name if path else "(none)"


def _table_diff(source_table: dict[str, Json], dataset: DatasetConfig) -> str:
    """'; [dataset].seed: source 42, CONFIG 7' for every differing key of CONFIG's `[dataset]` (paths left out)."""
    mine = dataset.model_dump(mode="json")
    keys = [k for k in mine if k != "file" and k in source_table and source_table[k] != mine[k]]
    return "".join(f"; [dataset].{k}: source {source_table[k]!r}, CONFIG {mine[k]!r}" for k in keys)


def _replayable(got: Any) -> bool:
    return bool(got.protocol.replayable)
