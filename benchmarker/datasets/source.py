"""Which cases a run covers, as lazy groups the graph streams through (one group per graph node).

LongMemEval is selected from a cheap index pass first (ids, types, stratified sample), then
streamed with only the selected ids materialised, so even the 2.7 GB M file stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from benchmarker.datasets.schema import Case


@dataclass
class CaseGroup:
    """A named, re-iterable stream of cases and how many questions it holds."""

    name: str
    questions: int
    cases: Callable[[], Iterable[Case]]


@dataclass
class DatasetPlan:
    groups: list[CaseGroup]
    path: str | None          # the data file, for the manifest
    sha256: str | None
    description: str

    @property
    def total_questions(self) -> int:
        return sum(g.questions for g in self.groups)


def plan_dataset(config, run_dir: Path) -> DatasetPlan:
    """Resolve `[dataset]` into case groups; generated data is written into the run directory."""
    kind = config.dataset.kind
    if kind in ("longmemeval", "sample"):
        return _plan_longmemeval(config, run_dir)
    if kind == "long_horizon":
        return _plan_long_horizon(config)
    if kind == "levels":
        return _plan_levels(config)
    if kind == "fact_extraction":
        return _plan_facts(config)
    if kind == "locomo":
        return _plan_locomo(config)
    raise ValueError(f"unknown dataset kind {kind!r}")


def _plan_longmemeval(config, run_dir: Path) -> DatasetPlan:
    from benchmarker.datasets.longmemeval import (
        dataset_sha256,
        iter_longmemeval,
        scan_question_index,
        validate_longmemeval,
    )
    from benchmarker.datasets.selection import select_question_ids

    if config.dataset.kind == "sample":
        from benchmarker.datasets.sample import write_sample

        path = run_dir / "data" / "sample_longmemeval.json"
        if not path.exists():
            write_sample(path, seed=config.dataset.seed, questions_per_type=config.dataset.questions_per_type,
                         sessions_per_question=config.dataset.sessions_per_question)
        description = f"generated LongMemEval-format sample (seed {config.dataset.seed})"
    else:
        path = Path(config.dataset_path)
        description = f"LongMemEval file {path}"
    index = scan_question_index(path)  # refuses an empty file, repeated ids, non-objects, deep nesting
    run = config.run
    selected = select_question_ids(index, question_ids=list(run.question_ids), question_types=list(run.question_types),
                                   limit=run.limit, sample=run.sample, sample_seed=run.sample_seed)
    wanted = set(selected)
    validate_longmemeval(path, only_ids=wanted)  # before the service starts or any model is called

    def cases() -> Iterator[Case]:
        return iter_longmemeval(path, only_ids=wanted)

    return DatasetPlan([CaseGroup("cases", len(selected), cases)], str(path), dataset_sha256(path), description)


def _seeds(config) -> list[int]:
    return list(config.dataset.seeds) or [config.dataset.seed]


def _plan_long_horizon(config) -> DatasetPlan:
    from benchmarker.datasets.long_horizon import generate_long_horizon

    d = config.dataset
    seeds = _seeds(config)

    def cases() -> Iterator[Case]:
        for seed in seeds:
            yield generate_long_horizon(d.turns, seed, questions=d.questions, holdout=d.holdout).case

    return DatasetPlan([CaseGroup("cases", d.questions * len(seeds), cases)], None, None,
                       f"long-horizon dialogue: {d.turns} turns, seeds {seeds}")


def _plan_levels(config) -> DatasetPlan:
    from benchmarker.datasets.levels import build_level

    seeds = _seeds(config)
    groups = []
    for level_id in config.dataset.levels:
        specs = [build_level(level_id, seed) for seed in seeds]
        n = sum(len(spec.case.questions) for spec in specs)
        groups.append(CaseGroup(f"level_{level_id}", n, partial(list, [s.case for s in specs])))
    return DatasetPlan(groups, None, None, f"levels {list(config.dataset.levels)}, seeds {seeds}")


def _plan_facts(config) -> DatasetPlan:
    from benchmarker.datasets.fact_extraction import fact_case_to_case, load_fact_cases

    path = Path(config.dataset.file) if config.dataset.file else None
    fact_cases = load_fact_cases(path)
    ids = set(config.run.question_ids)
    chosen = [fc for fc in fact_cases if not ids or fc.id in ids]
    if config.run.limit:
        chosen = chosen[: config.run.limit]
    return DatasetPlan([CaseGroup("cases", len(chosen), lambda: [fact_case_to_case(fc) for fc in chosen])],
                       str(path) if path else "packaged fact_cases.json", None,
                       f"fact extraction: {len(chosen)} cases")


def _plan_locomo(config) -> DatasetPlan:
    """One case per conversation (ingested once), holding its selected questions; `[run]`
    question_ids / question_types (category names) / sample (stratified by category) / limit
    select questions, and a conversation none of whose questions is selected is not ingested."""
    from benchmarker.datasets.locomo import load_locomo, select_locomo
    from benchmarker.datasets.longmemeval import dataset_sha256
    from benchmarker.datasets.selection import select_question_ids

    path = Path(config.dataset.file)
    parsed = load_locomo(path)
    run = config.run
    wanted = set(select_question_ids(parsed.index(), question_ids=list(run.question_ids),
                                     question_types=list(run.question_types), limit=run.limit, sample=run.sample,
                                     sample_seed=run.sample_seed, source=str(path)))
    conversations = sum(1 for _ in select_locomo(parsed, wanted))
    dropped = f"; {parsed.dropped_evidence} evidence id(s) name no turn and were dropped" \
        if parsed.dropped_evidence else ""
    description = f"LoCoMo file {path}: {len(wanted)} questions over {conversations} conversation(s){dropped}"
    return DatasetPlan([CaseGroup("cases", len(wanted), lambda: select_locomo(parsed, wanted))], str(path),
                       dataset_sha256(path), description)
