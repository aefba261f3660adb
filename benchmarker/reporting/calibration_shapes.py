"""The shapes of a judge calibration's files as `calibrate` builds them (verbs/calibrate.py, with
scoring/calibration/agreement.py's figures) and reporting/calibration.py renders them: calibration.json's summary
and each calibration.jsonl line. TypedDicts: the dicts are written as they are, so typing them changes no byte."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from benchmarker.log.lines import Json

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot


class AgreementFigures(TypedDict, total=False):
    """agreement.agreement_block(): a judge's verdicts against the labels, over some answers."""

    n: int
    unjudged: int
    agreement: float | None
    agreement_ci95: list[float] | None
    kappa: float | None
    kappa_ci95: list[float] | None
    confusion: dict[str, int]          # tp, fn, fp, tn
    precision: float | None
    recall: float | None
    label_correct: float | None
    verdict_correct: float | None


class CalibrationJudge(TypedDict, total=False):
    label: str
    kind: str
    model: str | None
    note: str
    thresholds: dict[str, Json]
    votes: int


class LabelsFile(TypedDict, total=False):
    """One labels file given: its name, path, answers, who labelled them, and whether it shaped the judge."""

    file: str
    path: str
    n: int
    models: dict[str, int]
    development: str | None


class CalibrationSummary(AgreementFigures, total=False):
    """calibration.json: the overall figures, then by question type, labels file, held out and development fit."""

    schema_version: int
    created_at: str
    judge: CalibrationJudge
    dataset_file: str
    labels: list[LabelsFile]
    labels_models: dict[str, int]
    by_type: dict[str, AgreementFigures]
    by_file: dict[str, AgreementFigures]
    held_out: AgreementFigures | None
    development_fit: AgreementFigures | None
    bootstrap: dict[str, int]           # iterations, seed
    disagreements: int
    tokens: LedgerSnapshot
    files: dict[str, str]


class Disagreement(TypedDict):
    """A calibration.jsonl line: an answer the judge and the label disagree on, or that it left unjudged."""

    file: str
    line: int
    question_id: str
    question_type: str
    question: str
    gold: Json
    answer: str
    label: bool
    labelled_by: str | None
    verdict: bool | None
    unjudged: bool
    reason: str
