"""`Suite`: everything one benchmark does differently from the others, behind one object.

The harness asks `benchmarker.registry` for a suite (by `[dataset].kind` or by a line's `kind`)
and calls these methods; it never tests a kind. Each default below is what most suites do, so a
suite overrides only what differs. What a suite can do is a typed part (suites/parts.py): how its case
moves (`protocol`) and the adversary's policy for it (`adversary`, or None and `adversary_refusal`); the graph
reads them from the run's suite (`RunContext.suite`). So are the keys naming its data (`data`), its judge's cost
(`judge_cost`), its official judge's prompts and its calibration gold (`official_judge`, `calibration_gold`: None
when it has none). The methods compute what only the suite knows; `plan` gets `PlanSettings` (suites/settings.py),
not the whole config.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from benchmarker.config_schema import Problem
from benchmarker.errata.gold import GoldReader
from benchmarker.reporting.section_spec import MeanScoreChart, Section
from benchmarker.reporting.summary_model import Block
from benchmarker.suites.parts import (
    AdversaryPolicy,
    CalibrationGold,
    CaseProtocol,
    DataSource,
    JudgeCost,
    OfficialJudgeSource,
)

if TYPE_CHECKING:
    from benchmarker.config_schema import DatasetConfig, RunConfig, ThresholdsConfig
    from benchmarker.datasets.schema import Case, Question
    from benchmarker.datasets.source import DatasetPlan
    from benchmarker.log.records import LevelRecord
    from benchmarker.log.store import RunLog
    from benchmarker.scoring.judges import Judge
    from benchmarker.suites.settings import PlanSettings

Record = dict[str, Any]


class Suite(ABC):
    """One benchmark: its config rules, plan, scoring, summary, report, estimate and graph hooks."""

    name: str = ""                          # the [dataset].kind
    record_kinds: tuple[str, ...] = ()      # the `kind` its cases, answers and results carry
    data: DataSource = DataSource()         # which keys name its data, what to do when they name nothing
    question_types: tuple[str, ...] = ()    # what [run].question_types may name (empty: not checked)
    official_judge: OfficialJudgeSource | None = None   # its own judge prompts, from the user's clone (None: none)
    calibration_gold: CalibrationGold | None = None     # the gold `calibrate` grades against (None: cannot)
    judge_cost: JudgeCost = JudgeCost()     # what estimate counts for one judge call (default: the usual judge's)
    protocol: CaseProtocol = CaseProtocol()  # how a case moves (QA or read-back) and what its scoring reads
    multi_seed: bool = False                # results of several seeds get the multi-seed statistics
    adversary: AdversaryPolicy | None = None  # how the adversary writes questions for it (None: it cannot)
    adversary_refusal: str = "does not say how the adversary writes questions for it (Suite.adversary)"
    # The suite's own [dataset] keys, beside the shared ones (kind, file, seed, ...): a pydantic model
    # (extra="forbid") that config.py checks once the kind is known; None: the suite has none.
    dataset_options: type[BaseModel] | None = None
    # Its published gold, for `[dataset] errata` (benchmarker/errata): a reader of its data file; None: no errata.
    errata_gold: GoldReader | None = None
    # The models of the summary.json blocks it adds ({key: reporting.summary_model.Block subclass}): a summary it
    # builds carries them typed and fails naming the key when one is off; a key without a model stays as written.
    summary_models: Mapping[str, type[Block]] = {}

    # --- config --------------------------------------------------------------------------------

    def options(self, dataset: DatasetConfig) -> BaseModel | None:
        """This suite's own keys of a loaded config's [dataset] table (defaults where absent), or None."""
        if self.dataset_options is None:
            return None
        fields = self.dataset_options.model_fields   # a manifest's config also holds other suites' legacy keys
        return self.dataset_options.model_validate({k: v for k, v in (dataset.model_extra or {}).items()
                                                    if k in fields})

    def config_problems(self, cfg: RunConfig) -> list[Problem]:
        """This suite's cross-key rules on a config whose [dataset].kind is this suite."""
        return self.data_problems(cfg) + self._question_type_problems(cfg)

    def data_problems(self, cfg: RunConfig) -> list[Problem]:
        """What the suite requires of the keys naming its data (config.py already refuses a file key
        the suite does not read)."""
        return []

    def _question_type_problems(self, cfg: RunConfig) -> list[Problem]:
        if not self.question_types:
            return []
        return [Problem(("run", "question_types", i), f'got "{qtype}"; allowed: {", ".join(self.question_types)}')
                for i, qtype in enumerate(cfg.run.question_types) if qtype not in self.question_types]

    def adversary_problems(self, cfg: RunConfig, adversary_kinds: Callable[[], str]) -> list[Problem]:
        """[multi_agent] adversary's rules on this suite; `adversary_kinds()` names the kinds that take it
        (the registry knows them: registry.adversary_kinds)."""
        ma = cfg.multi_agent
        if ma.adversary and self.adversary is None:
            return [Problem(("multi_agent", "adversary"), f'writes questions for {adversary_kinds()}; '
                            f'[dataset].kind = "{cfg.dataset.kind}" {self.adversary_refusal}')]
        if ma.adversary and ma.proposer == "generator" and not (self.adversary and self.adversary.proposes_from_facts):
            return [Problem(("multi_agent", "proposer"), f'"generator" proposes from the long-horizon generator\'s '
                            f'fact records; [dataset].kind = "{cfg.dataset.kind}" has none: use proposer = "model" '
                            f'(the judge\'s model writes questions from the evidence turns, the harness checks them)')]
        return []

    # --- data ----------------------------------------------------------------------------------

    @abstractmethod
    def plan(self, settings: PlanSettings, run_dir: Path) -> DatasetPlan:
        """The run's cases as lazy groups (datasets/source.py); generated data goes into run_dir."""

    # --- scoring -------------------------------------------------------------------------------

    async def score(self, record: Record, case: Case | None, judge: Judge) -> Record:
        """The grading fields of one answer line (label, autoeval_label, grade, ...): by default the
        LongMemEval judge's `Grade` (our prompts, LongMemEval's, or the deterministic grader) as results keys."""
        return judge.results_fields(record, await judge.grade(record))

    def score_case(self, case: Case, log: RunLog, *, default_cadence: int,
                   thresholds: ThresholdsConfig | None = None) -> LevelRecord | None:
        """A whole-case score line once every question has its result; None for most suites."""
        return None

    def judge_template(self, question_type: str, abstention: bool) -> str | None:
        """The judge prompt's name for a question; None: the usual routing by type (scoring/judge.py)."""
        return None

    def write_official_outputs(self, answers_dir: Path, results: list[Record]) -> None:
        """The benchmark's own evaluation files, from this suite's results lines (none by default)."""
        return None

    # --- summary and report --------------------------------------------------------------------

    def summary_blocks(self, results: list[Record], notes: list[str]) -> Record:
        """Keys build_summary adds from the results lines alone (not for retrieval-only runs)."""
        return {}

    def summarise(self, results: list[Record], *, level_scores: list[Record]) -> Record:
        """Keys the run's outputs add to summary.json (levels.jsonl lines are given too)."""
        return {}

    def qa_sections(self, summary: Record) -> list[Section]:
        """Report sections right after the QA section, as data; reporting renders them."""
        return []

    def report_charts(self, summary: Record) -> list[MeanScoreChart]:
        """Charts reporting draws into the run's plots/ and shows after its QA sections; none by default."""
        return []

    def report_sections(self, summary: Record) -> list[Section]:
        """Report sections from its summary keys, as data (tables, prose lines); reporting renders them."""
        return []

    def console_rows(self, summary: Record) -> list[tuple[str, str]]:
        """(name, value) rows of the end-of-run table."""
        return []

    def compare_blocks(self, results: list[Record]) -> Record:
        """Per-run keys `compare` puts beside the QA and retrieval metrics."""
        return {}

    def compare_sections(self, runs: list[Record]) -> list[Section]:
        """Sections comparing those keys across runs (each run holds compare_blocks' keys), as data."""
        return []

    # --- graph ---------------------------------------------------------------------------------

    def retrieval_evidence(self, case: Case, question: Question) -> bool:
        """Whether the answer line carries the question's evidence turns (scored as retrieval)."""
        return False

    def answer_fields(self, case: Case, question: Question) -> Record:
        """Extra keys of its answer lines."""
        return {}


def need_case(case: Case | None, record: Record) -> Case:
    """The case an answer's scoring reads; ValueError when the caller did not pass it."""
    if case is None:
        raise ValueError(f"scoring {record.get('kind')} answer {record.get('question_id')} needs its case")
    return case
