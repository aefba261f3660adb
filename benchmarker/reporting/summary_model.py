"""`RunSummary`: summary.json as a typed object, for the code that writes it (`build_summary`, `write_outputs`) and
the code that reads it (`report`, `compare`, `oracle`, the run browser).

summary.json is written from a `RunSummary` (reporting/summary_file.py builds one from the computed blocks, validated,
and writes its dump), so writer and reader share one model and cannot disagree; summary.py's docstring documents
every key. This model describes the top-level blocks with their real types (the blocks' models, one module a
family: summary_block.py `Block` and `Cell`, summary_metric_blocks.py, summary_run_block.py,
summary_judge_blocks.py, summary_analysis_blocks.py):

- every field is optional: a summary from an older version, a sweep point's or a hand-written one may lack a block,
  and a reader treats a missing block as "not available" as it always did; a block that *is* there must have
  its documented type (a `qa` that is a string is an error naming the file and `qa`, not a KeyError later);
- every model allows extra keys (`extra="allow"`), so rounds, graders, analyst, judge_calibration, a suite's block
  without a registered model and any later key pass through unchanged; a suite that names its blocks' models
  (`Suite.reporting.summary_models`, {key: Block subclass}) gets them typed on the summary it builds (`summary.block(key)`);
- numbers are `int | float` where a block may hold either, and every block remembers the order its keys came in,
  so a validated summary dumps exactly as read, key order included:
  `RunSummary.model_validate(s).as_dict() == s`, and json.dumps of both gives the same bytes.

`load_summary(path)` reads and validates one summary.json; `summary_error` turns a pydantic error into the
one-line message a user sees.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from benchmarker.errors import UserError
from benchmarker.log.json_limits import load_json
from benchmarker.reporting.summary_analysis_blocks import (
    AttributionBlock,
    BaselinesBlock,
    ErrataBlock,
    OracleBlock,
    ValidityBlock,
)
from benchmarker.reporting.summary_block import Block, Num
from benchmarker.reporting.summary_judge_blocks import JudgeSensitivityBlock
from benchmarker.reporting.summary_metric_blocks import (
    BudgetBlock,
    CostBlock,
    CountsBlock,
    QaBlock,
    RetrievalBlock,
    SpeedBlock,
)
from benchmarker.reporting.summary_run_block import RunBlock

SCHEMA_VERSION = 1  # summary.json's `schema_version`: what build_summary writes (reporting/summary.py documents it)


class RunSummary(Block):
    """One summary.json (reporting/summary.py documents every key); suites' blocks are extra keys."""

    schema_version: int | None = None
    run_id: str | None = None
    offline: bool | None = None
    notes: list[str] | None = None
    run: RunBlock = Field(default_factory=RunBlock)  # unset (and so never dumped) when the file has none
    qa: QaBlock | None = None
    qa_corrected: QaBlock | None = None   # with [dataset] errata: qa over the corrected gold (reporting/errata_report.py)
    errata: ErrataBlock | None = None
    retrieval: RetrievalBlock | None = None
    cost: CostBlock | None = None
    speed: SpeedBlock | None = None
    counts: CountsBlock | None = None
    attribution: AttributionBlock | None = None
    oracle: OracleBlock | None = None
    validity: ValidityBlock | None = None
    budget: BudgetBlock | None = None
    judge_sensitivity: JudgeSensitivityBlock | None = None
    baselines: BaselinesBlock | None = None

    def usd_total(self) -> Num | None:
        """cost.usd.total: what the run's model calls cost (None when nothing was priced or there is no cost block)."""
        return (self.cost.usd or {}).get("total") if self.cost is not None else None

    def block(self, key: str) -> Any:
        """An extra block by key (None when absent): a `Block` where a suite registered its model, else as written."""
        return (self.__pydantic_extra__ or {}).get(key)


def summary_error(path: Path | str, err: ValidationError) -> str:
    """One line naming the file and the first field that is not as documented."""
    first = err.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(top level)"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return (f"{path}: `{field}` is not as documented: {first['msg']}{more}; `report RUN_DIR` rewrites "
            "summary.json from the run's files (move the broken one aside first)")


def parse_summary(data: dict[str, Any], path: Path | str = "summary.json") -> RunSummary:
    """A summary dict as a RunSummary; a UserError naming `path` and the field when it is not as documented."""
    try:
        return RunSummary.model_validate(data)
    except ValidationError as err:
        raise UserError(summary_error(path, err)) from None


def load_summary(path: Path | str) -> RunSummary:
    """summary.json at `path` as a RunSummary: empty (every block unset) when the file does not exist; a one-line
    UserError naming the file (and the field) when it is not JSON, not an object or not shaped as documented."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RunSummary()
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"{path}: cannot be read ({err})") from None
    try:
        data = load_json(text)
    except ValueError as err:
        raise UserError(f"{path}: not valid JSON ({err}); `report RUN_DIR` rewrites summary.json from the run's "
                        "files (move the broken one aside first)") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a JSON object; `report RUN_DIR` rewrites summary.json from the run's files "
                        "(move the broken one aside first)")
    return parse_summary(data, path)
