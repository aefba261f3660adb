"""A `RunSummary` built from computed blocks, validated as it is built, and summary.json written from it.

`build_summary` and `write_outputs` compute blocks as dicts (qa_metrics, cost_block, a suite's `summary_blocks`,
...); `summary_from_blocks` turns them into the one `RunSummary` that is written and returned, so the file and
every reader go through the same model. A block that does not match its model raises `SummaryShapeError` naming
the key (`run.memory.embedder`, `locomo.overall.questions`). A suite names its blocks' models in
`Suite.reporting.summary_models` ({key: Block subclass}); those blocks are typed on the summary (`summary.block(key)`), and a
block without a model stays an extra key, kept as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmarker.log.jsonl import write_json_atomic
from benchmarker.reporting.summary_block import Block
from benchmarker.reporting.summary_model import RunSummary

BlockModels = Mapping[str, type[Block]]


class SummaryShapeError(ValueError):
    """A summary block that is not shaped as its model says; the message names the key and what is wrong."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"summary.json `{key}` is not as documented: {message}")
        self.key = key


def _first_error(err: ValidationError, prefix: tuple[str, ...] = ()) -> SummaryShapeError:
    first = err.errors()[0]
    key = ".".join((*prefix, *(str(part) for part in first["loc"]))) or "(top level)"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return SummaryShapeError(key, f"{first['msg']}{more}")


def block_models(suites: Iterable[Any]) -> dict[str, type[Block]]:
    """Every block model the given suites register (`summary_models`), by summary key."""
    return {key: model for suite in suites for key, model in suite.reporting.summary_models.items()}


def summary_from_blocks(blocks: Mapping[str, Any], models: BlockModels | None = None) -> RunSummary:
    """The RunSummary of `blocks` (in their order), each registered suite block typed by its model;
    SummaryShapeError naming the key when a block does not match its model."""
    try:
        summary = RunSummary.model_validate(dict(blocks))
    except ValidationError as err:
        raise _first_error(err) from None
    extra = summary.__pydantic_extra__ if summary.__pydantic_extra__ is not None else {}
    for key, model in (models or {}).items():
        if key in extra:
            try:
                extra[key] = model.model_validate(extra[key])
            except ValidationError as err:
                raise _first_error(err, (key,)) from None
    return summary


def with_blocks(summary: RunSummary, blocks: Mapping[str, Any], models: BlockModels | None = None) -> RunSummary:
    """`summary` with `blocks` added after its keys (a key it has keeps its place, as dict.update does)."""
    return summary_from_blocks(summary.as_dict() | dict(blocks), models)


def write_summary_file(path: Path, summary: RunSummary) -> Path:
    """summary.json at `path`, written from the model (atomically, credentials masked)."""
    write_json_atomic(path, summary.as_dict())
    return path
