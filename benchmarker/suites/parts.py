"""The typed parts a `Suite` value is made of (its scorer is suites/scorer.py, its reporting reporting/suite_parts.py).

What a suite plans and which config keys name its data (`DataSource`: its plan, its options model, the kinds
of question it has, its config rules) is a part.
A part says what a benchmark does the way a value does, not as a flag on the suite: how its case moves
through the run graph (`CaseProtocol`: QA or read-back) and whether, and how, the adversary writes new
questions for it (`AdversaryPolicy`; a suite without one says why in `Suite.adversary_refusal`). The graph,
config rules and `estimate` read these parts from the run's suite (`RunContext.suite`).
How a missing data file is fixed is said by the `DataSource` too; what one judge call costs
(`JudgeCost`), where the benchmark's own judge prompts come from (`OfficialJudgeSource`, optional) and the gold
`calibrate` grades against (`CalibrationGold`, optional) are parts too: an absent optional part says "none".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarker.config_schema import Problem

if TYPE_CHECKING:
    from pydantic import BaseModel

    from benchmarker.config_schema import DatasetConfig, RunConfig
    from benchmarker.datasets.schema import Case
    from benchmarker.datasets.source import DatasetPlan
    from benchmarker.suites.settings import PlanSettings

# A new question's rubric: (answer text, whether the question is an abstention) -> the rubric dict.
RubricFor = Callable[[str, bool], dict[str, Any]]
# What a suite that does not say it replays answers `replay` with (a plugin's default).
NO_REPLAY = "does not say its questions are answered from memory alone (CaseProtocol.replay_refusal)"


@dataclass(frozen=True)
class CaseProtocol:
    """How a case of the suite moves through the run graph, and what its scoring reads."""

    reads_back: bool = False             # a case is answered by reading its memory back, not by QA
    seeds_memory: bool = False           # ingest starts from a memory that already holds entries
    needs_case: bool = True              # scoring an answer reads its case (rubric, facts, trap answer)
    conversation_cases: bool = False     # a case is a conversation with its own questions: progress says each answer
    reads_agent_trace: bool = False      # its scoring reads the agent's logged tool calls
    # Why `replay` cannot re-apply a finished run's memory writes ("" = it can): a suite whose questions are
    # answered from memory can; one that scores the agent itself cannot, and says why.
    replay_refusal: str = NO_REPLAY

    @property
    def replayable(self) -> bool:
        """Whether `replay` can re-apply a finished run's memory writes and answer from them."""
        return not self.replay_refusal


def case_categories(case: Case) -> list[str]:
    """The categories (else question types) a case's questions have: what a new question of it may be."""
    return sorted({q.category or q.question_type for q in case.questions}) or ["recall"]


def any_case(case: Case) -> bool:
    """Every case of the suite takes new questions."""
    return True


@dataclass(frozen=True)
class AdversaryPolicy:
    """How the adversary writes checked questions for a suite's cases."""

    proposes_from_facts: bool = False    # proposer = "generator": from the generator's fact records
    own_weakest_only: bool = False       # aims only at the case's own weak categories (none: no round)
    aimable: Callable[[Case], bool] = any_case            # whether it can write questions for this case
    categories: Callable[[Case], list[str]] = case_categories   # what a new question of this case may be
    rubric: RubricFor | None = None      # the rubric of a new question (None: the checker's default)


def fix_the_path(path: str) -> str:
    """The usual fix for a `[dataset].file` naming nothing."""
    return "fix the path"


@dataclass(frozen=True)
class DataSource:
    """What a suite runs on: its plan, its own `[dataset]` keys, its question types, which config keys name its
    data and what config.py says when they name nothing, and its other rules on a config of its kind."""

    plan: Callable[[PlanSettings, Path], DatasetPlan]   # the run's cases as lazy groups; generated data into run_dir
    # its own [dataset] keys beside the shared ones (kind, file, seed, ...): a pydantic model (extra="forbid")
    # config.py checks once the kind is known; None: it has none
    options: type[BaseModel] | None = None
    question_types: tuple[str, ...] = ()   # what [run].question_types may name (empty: not checked)
    # its rules on a config of its kind, beside the question types (config.py already refuses a file key it
    # does not read); None: it asks nothing more of the config than the shared rules
    problems: Callable[[RunConfig], list[Problem]] | None = None
    reads_file: bool = False             # [dataset].file names its data
    reads_dataset_file: bool = False     # dataset_file / a LongMemEval clone (dataset_repo_path) name its data
    # whether `[dataset].file` names data it can read (a file; a suite may accept a folder, as BEAM's clone)
    finds_data_at: Callable[[Path], bool] = Path.is_file
    # what to do when `[dataset].file` names nothing (the path, resolved): the way that leads to a run
    missing_file_hint: Callable[[str], str] = fix_the_path

    def options_of(self, dataset: DatasetConfig) -> BaseModel | None:
        """The suite's own keys of a loaded config's [dataset] table (defaults where absent), or None."""
        if self.options is None:
            return None
        fields = self.options.model_fields   # a manifest's config also holds other suites' legacy keys
        return self.options.model_validate({k: v for k, v in (dataset.model_extra or {}).items() if k in fields})

    def config_problems(self, cfg: RunConfig) -> list[Problem]:
        """Its rules on a config whose [dataset].kind is this suite: its own, then the question types'."""
        allowed = self.question_types
        own = self.problems(cfg) if self.problems is not None else []
        return own + [
            Problem(("run", "question_types", i), f'got "{qtype}"; allowed: {", ".join(allowed)}')
            for i, qtype in enumerate(cfg.run.question_types) if allowed and qtype not in allowed]


@dataclass(frozen=True)
class JudgeCost:
    """What `estimate` counts for one judge call of the suite's answers."""

    # chars per token -> (input, output) tokens of one judge call; None: the usual judge's
    tokens: Callable[[float], tuple[int, int]] | None = None
    note: str = ""                       # estimate's words on its judge call, when it is not the usual one

    def per_call(self, chars_per_token: float, usual: tuple[int, int]) -> tuple[int, int]:
        """(input, output) tokens of one judge call: the suite's own, else `usual`."""
        return self.tokens(chars_per_token) if self.tokens is not None else usual


# The official judge's prompts read from the user's clone: (prompts, a note saying where from), or (None, why not).
PromptsFound = tuple[Any | None, str]


@dataclass(frozen=True)
class OfficialJudgeSource:
    """How `[eval] judge = "official"` reads the benchmark's own judge prompts from the user's clone."""

    load: Callable[[PlanSettings], PromptsFound]


# question_id -> Gold (scoring.calibration.labels) and the case of each question whose scoring reads one.
GoldAndCases = tuple[dict[str, Any], dict[str, "Case"]]


@dataclass(frozen=True)
class CalibrationGold:
    """The gold `calibrate` grades a labels file against, read from the config's data."""

    read: Callable[[PlanSettings], GoldAndCases | None]   # None: the data names none (no file)
