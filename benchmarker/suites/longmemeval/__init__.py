"""LongMemEval (S, M, oracle): one question per case, judged by type; LongMemEval's own outputs.

Cases are selected from a cheap index pass first (ids, types, stratified sample), then streamed
with only the selected ids materialised, so even the 2.7 GB M file stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

from benchmarker.config_schema import Problem, RunConfig
from benchmarker.datasets.schema import Case
from benchmarker.datasets.selection import select_question_ids
from benchmarker.datasets.source import CaseGroup, DatasetPlan, dataset_sha256
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.suite_parts import SuiteReporting
from benchmarker.suites.base import Suite
from benchmarker.suites.longmemeval.data import (
    QUESTION_TYPES,
    iter_longmemeval,
    scan_question_index,
    validate_longmemeval,
)
from benchmarker.suites.longmemeval.errata import longmemeval_gold
from benchmarker.suites.longmemeval.options import LongMemEvalOptions
from benchmarker.suites.parts import (
    AdversaryPolicy,
    CalibrationGold,
    CaseProtocol,
    DataSource,
    GoldAndCases,
    OfficialJudgeSource,
    PromptsFound,
)
from benchmarker.suites.scorer import Scorer, always
from benchmarker.suites.settings import PlanSettings


def official_prompts(settings: PlanSettings) -> PromptsFound:
    """LongMemEval's prompt builder from the clone's src/evaluation/evaluate_qa.py."""
    from benchmarker.suites.longmemeval.official import load_official_prompt_builder

    builder, reason = load_official_prompt_builder(settings.repo_path)
    if builder is None:
        return None, reason
    return builder, f"official LongMemEval evaluator prompts from {settings.repo_path}"


def calibration_gold(settings: PlanSettings) -> GoldAndCases | None:
    """LongMemEval-format gold: a full file (haystacks streamed past) or a questions-only one."""
    if settings.dataset_path is None:
        return None
    from benchmarker.scoring.calibration.labels import read_gold

    return read_gold(settings.dataset_path), {}


def data_problems(cfg: RunConfig) -> list[Problem]:
    """The official judge runs LongMemEval's scripts from the clone `dataset_repo_path` names."""
    if cfg.eval.judge == "official" and not cfg.dataset_repo_path:
        return [Problem(("dataset_repo_path",), 'required when [eval].judge = "official" (its evaluation '
                        "scripts are run from the clone)")]
    return []


def data_file(settings: PlanSettings, run_dir: Path) -> tuple[Path, str]:
    """The LongMemEval-format file to read, and its description for the manifest."""
    path = Path(settings.dataset_path)  # type: ignore[arg-type]  # config.py resolved it: kind longmemeval has one
    return path, f"LongMemEval file {path}"


def plan_file(data_file: Callable[[PlanSettings, Path], tuple[Path, str]],
              settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    """The selected questions of the LongMemEval-format file `data_file` names, one case each."""
    path, description = data_file(settings, run_dir)
    index = scan_question_index(path)  # refuses an empty file, repeated ids, non-objects, deep nesting
    run = settings.run
    selected = select_question_ids(index, question_ids=list(run.question_ids),
                                   question_types=list(run.question_types), limit=run.limit, sample=run.sample,
                                   sample_seed=run.sample_seed, known_types=QUESTION_TYPES)
    wanted = set(selected)
    validate_longmemeval(path, only_ids=wanted)  # before the service starts or any model is called

    def cases() -> Iterator[Case]:
        return iter_longmemeval(path, only_ids=wanted)

    return DatasetPlan([CaseGroup("cases", len(selected), cases)], str(path), dataset_sha256(path), description)


def write_outputs(answers_dir: Path, results: Sequence[ResultLine]) -> None:
    """LongMemEval's own evaluation files, once some answer is judged."""
    if any(r.get("label") is not None for r in results):
        from benchmarker.suites.longmemeval.official import write_official_outputs

        write_official_outputs(answers_dir, results)


SUITE = Suite(
    name="longmemeval",
    record_kinds=("longmemeval",),
    data=DataSource(partial(plan_file, data_file), options=LongMemEvalOptions, question_types=QUESTION_TYPES,
                    problems=data_problems, reads_file=True, reads_dataset_file=True),
    scorer=Scorer(retrieval_evidence=always),
    reporting=SuiteReporting(write_official_outputs=write_outputs),
    official_judge=OfficialJudgeSource(official_prompts),
    calibration_gold=CalibrationGold(calibration_gold),
    protocol=CaseProtocol(needs_case=False, replay_refusal=""),
    adversary=AdversaryPolicy(categories=lambda case: list(QUESTION_TYPES)),   # its judge prompts are chosen by type
    errata_gold=longmemeval_gold,
)
