"""summary.json's blocks that judge the score itself, as models: `attribution`, `oracle`, `baselines`, `validity`
and `errata` (written by the checks and the verbs that run after the answers are judged)."""

from __future__ import annotations

from pydantic import JsonValue

from benchmarker.reporting.summary_block import Block, Cell, Num


class StageCell(Block):
    """attribution.by_type[t] (scoring/attribution.py StageCell): counts and shares by stage."""

    n: int | None = None
    counts: dict[str, int] | None = None
    shares: dict[str, Num] | None = None


class AttributionBlock(Block):
    """summary.json's `attribution` (scoring/attribution.py): which stage lost each judged answer."""

    stages: list[str] | None = None
    n: int | None = None
    counts: dict[str, int] | None = None
    shares: dict[str, Num] | None = None
    lost_by_memory: int | None = None
    by_type: dict[str, StageCell] | None = None
    write_match: str | None = None
    seen_match: str | None = None
    notes: list[str] | None = None


class OracleBlock(Block):
    """summary.json's `oracle`, after `oracle RUN_DIR`: accuracy with the gold evidence only."""

    questions: int | None = None
    overall: Cell | None = None
    by_type: dict[str, Cell] | None = None
    no_evidence: dict[str, int] | None = None        # judged questions it had no gold evidence for, per type
    with_evidence: dict[str, Cell] | None = None     # {"memory", "oracle"} over the questions that had some


class ConditionAccuracy(Block):
    """One condition of `baselines` (no_memory, memory, full_context, oracle): accuracy overall and per type."""

    overall: Cell | None = None
    by_type: dict[str, Cell] | None = None


class Headroom(Block):
    """(memory - no_memory) / (oracle - no_memory) with its paired bootstrap 95% interval (scoring/headroom.py)."""

    n: int | None = None
    value: Num | None = None
    ci95: list[Num] | None = None
    iterations: int | None = None
    seed: int | None = None
    undefined_draws: int | None = None
    note: str | None = None


class McNemarPair(Block):
    n: int | None = None
    memory_only: int | None = None
    full_context_only: int | None = None
    p_value: Num | None = None


class FullContextCut(Block):
    """baselines.runs.full_context.cut: what fitting the whole history into the reader's window dropped."""

    questions_cut: int | None = None
    sessions_dropped: int | None = None
    tokens_before_max: int | None = None
    context_tokens_mean: Num | None = None
    context_tokens_max: int | None = None


class BaselineRun(Block):
    """baselines.runs[condition]: the questions that condition answered and where its files are."""

    questions: int | None = None
    dir: str | None = None
    cut: FullContextCut | None = None


class BaselinesBlock(Block):
    """summary.json's `baselines`, after `baselines RUN_DIR`: is memory needed here?"""

    conditions: list[str] | None = None
    accuracy: dict[str, ConditionAccuracy] | None = None
    headroom: Headroom | None = None
    mcnemar_memory_vs_full_context: McNemarPair | None = None
    runs: dict[str, BaselineRun] | None = None


class ValidityCheck(Block):
    """One check of `validity`: count out of `of`, their share, the [validity] threshold, and whether it held."""

    what: str | None = None
    count: int | None = None
    of: int | None = None
    share: Num | None = None
    threshold: Num | None = None
    ok: bool | None = None
    applies: bool | None = None
    detail: str | None = None


class ValidityBlock(Block):
    """summary.json's `validity` (scoring/validity.py): is this number a score at all?"""

    valid: bool | None = None
    reasons: list[str] | None = None
    checks: dict[str, ValidityCheck] | None = None


class ErrataCorrection(Block):
    """errata.corrections[i] (reporting/errata_report.py): one corrected field of one question, both labels."""

    question_id: str | None = None
    field: str | None = None
    published: JsonValue = None
    corrected: JsonValue = None
    turn: JsonValue = None
    source: str | None = None
    label_published: bool | None = None
    label_corrected: bool | None = None


class ErrataBlock(Block):
    """summary.json's `errata`, with `[dataset] errata`: the questions corrected and the labels that changed."""

    questions: int | None = None
    corrections: list[ErrataCorrection] | None = None
    labels_changed: int | None = None
