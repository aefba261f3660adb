"""`Suite`: everything one benchmark does differently from the others, as one frozen value of typed parts.

In the spirit of inspect_ai's `Task(dataset, solver, scorer)`: a suite package builds its value with keywords
(`SUITE = Suite(name="locomo", record_kinds=("locomo",), data=DataSource(plan=...), scorer=Scorer(...),
reporting=SuiteReporting(...), ...)`) and nothing subclasses `Suite`. The harness asks `benchmarker.registry`
for it (by `[dataset].kind` or by a line's `kind`), then reads its parts; it never tests a kind. Each part's
defaults are what most suites do, so a suite names only what differs:
- `data` (suites/parts.py `DataSource`): its plan, its own `[dataset]` keys, its question types, its config rules
  and which keys name its data; `plan` gets `PlanSettings` (suites/settings.py), not the whole config;
- `scorer` (suites/scorer.py): an answer's grade, a whole case's score, its judge prompts, its answer lines' keys;
- `reporting` (reporting/suite_parts.py): its summary.json blocks, report sections and charts, console rows,
  compare blocks, its benchmark's own output files, and whether its seeds get the multi-seed statistics;
- `protocol` (QA or read-back), `adversary` (None: it cannot, and `adversary_refusal` says why), `judge_cost`,
  `official_judge` and `calibration_gold` (None: none), `errata_gold` (None: no errata).
The graph reads the parts of the run's suite (`RunContext.suite`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchmarker.config_schema import Problem
from benchmarker.errata.gold import GoldReader
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.suite_parts import SuiteReporting
from benchmarker.suites.parts import (
    AdversaryPolicy,
    CalibrationGold,
    CaseProtocol,
    DataSource,
    JudgeCost,
    OfficialJudgeSource,
)
from benchmarker.suites.scorer import Scorer

if TYPE_CHECKING:
    from benchmarker.config_schema import MultiAgentConfig, RunConfig
    from benchmarker.datasets.schema import Case

NO_ADVERSARY = "does not say how the adversary writes questions for it (Suite.adversary)"


@dataclass(frozen=True, eq=False)   # a suite is itself: compared and hashed by identity, as the registry hands it out
class Suite:
    """One benchmark: its name, the line kinds it scores, and its parts (module docstring)."""

    name: str                                  # the [dataset].kind
    data: DataSource                           # its plan, options, question types, config rules, data keys
    record_kinds: tuple[str, ...] = ()         # the `kind` its cases, answers and results carry
    scorer: Scorer = field(default_factory=Scorer)
    reporting: SuiteReporting = field(default_factory=SuiteReporting)
    protocol: CaseProtocol = field(default_factory=CaseProtocol)   # how a case moves (QA or read-back) and what its scoring reads
    adversary: AdversaryPolicy | None = None   # how the adversary writes questions for it (None: it cannot)
    adversary_refusal: str = NO_ADVERSARY      # why it cannot, after `[dataset].kind = "<name>"`
    judge_cost: JudgeCost = field(default_factory=JudgeCost)   # one judge call, as estimate counts it
    official_judge: OfficialJudgeSource | None = None   # its own judge prompts, from the user's clone (None: none)
    calibration_gold: CalibrationGold | None = None     # the gold `calibrate` grades against (None: cannot)
    # Its published gold, for `[dataset] errata` (benchmarker/errata): a reader of its data file; None: no errata.
    errata_gold: GoldReader | None = None


def config_problems(suite: Suite, cfg: RunConfig, adversary_kinds: Callable[[], str]) -> list[Problem]:
    """A suite's rules on a config whose [dataset].kind is it: its data part's, then the adversary's
    (`adversary_kinds()` names the kinds that take one: registry.adversary_kinds)."""
    return suite.data.config_problems(cfg) + _adversary_problems(suite, cfg.multi_agent, cfg.dataset.kind,
                                                                  adversary_kinds)


def _adversary_problems(suite: Suite, ma: MultiAgentConfig, kind: str,
                        adversary_kinds: Callable[[], str]) -> list[Problem]:
    """[multi_agent] adversary and proposer against what the suite's adversary policy allows."""
    if ma.adversary and suite.adversary is None:
        return [Problem(("multi_agent", "adversary"), f'writes questions for {adversary_kinds()}; '
                        f'[dataset].kind = "{kind}" {suite.adversary_refusal}')]
    if ma.adversary and ma.proposer == "generator" and not (suite.adversary and suite.adversary.proposes_from_facts):
        return [Problem(("multi_agent", "proposer"), f'"generator" proposes from the long-horizon generator\'s '
                        f'fact records; [dataset].kind = "{kind}" has none: use proposer = "model" '
                        f'(the judge\'s model writes questions from the evidence turns, the harness checks them)')]
    return []


def need_case(case: Case | None, record: ResultLine) -> Case:
    """The case an answer's scoring reads; ValueError when the caller did not pass it."""
    if case is None:
        raise ValueError(f"scoring {record.get('kind')} answer {record.get('question_id')} needs its case")
    return case
