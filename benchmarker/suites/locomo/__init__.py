"""LoCoMo: one case per conversation holding its selected questions, LoCoMo's strict judge, and
per-answer token F1 / BLEU-1 reported per category (category 5 apart, as abstention)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, Field

from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import Problem, RunConfig, each_once
from benchmarker.datasets.schema import Case, Question
from benchmarker.datasets.selection import select_question_ids
from benchmarker.datasets.source import CaseGroup, DatasetPlan, dataset_sha256
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.section_spec import Section
from benchmarker.reporting.suite_parts import Record, SuiteReporting
from benchmarker.scoring.judge import LOCOMO_TEMPLATES
from benchmarker.suites.base import Suite
from benchmarker.suites.locomo.data import QUESTION_TYPES, load_locomo, only_conversations, select_locomo
from benchmarker.suites.locomo.errata import locomo_gold
from benchmarker.suites.locomo.evidence import counts_text, evidence_block, evidence_note
from benchmarker.suites.locomo.metrics import ADVERSARIAL, answer_scores, category_of, locomo_summary, scored_gold
from benchmarker.suites.locomo.report import compare_rows, locomo_section
from benchmarker.suites.locomo.shapes import EvidenceBlock
from benchmarker.suites.locomo.summary_model import LocomoBlock
from benchmarker.suites.options import SuiteOptions
from benchmarker.suites.parts import CaseProtocol, DataSource, JudgeCost
from benchmarker.suites.scorer import Scorer, always
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.scoring.judges import Judge

log = logging.getLogger(__name__)
LOCOMO_URL = "https://raw.githubusercontent.com/snap-research/LoCoMo/main/data/locomo10.json"
JUDGE_TEXT_TOKENS, JUDGE_OUTPUT = 100, 30   # estimate: question, answers and category; the JSON reply


class LocomoOptions(SuiteOptions):
    """LoCoMo's own [dataset] keys."""

    # the conversations to run, by sample_id ("conv-26"); empty: all of them. Unset, it is not in the run id's hash.
    conversations: Annotated[tuple[str, ...], AfterValidator(each_once)] = Field(default=(), strict=False)


def _missing_file_hint(path: str) -> str:
    """The file is the user's to bring (it is not in this repository): download it where the config looks."""
    return f"download it there: curl -L --create-dirs -o {path} {LOCOMO_URL}"


def _judge_tokens(chars_per_token: float) -> tuple[int, int]:
    template = load_prompt(LOCOMO_TEMPLATES["answerable"] + ".txt")
    return round(len(template) / chars_per_token) + JUDGE_TEXT_TOKENS, JUDGE_OUTPUT


NAME = "locomo"


def data_problems(cfg: RunConfig) -> list[Problem]:
    problems: list[Problem] = []
    if not cfg.dataset.file:
        problems.append(Problem(("dataset", "file"), f'required for kind "{NAME}": download it '
                                f'(curl -L --create-dirs -o data/locomo10.json {LOCOMO_URL}) and set '
                                'file to where you saved it (absolute, or relative to the config\'s folder)'))
    return problems


def plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    """One case per conversation (ingested once), holding its selected questions; `[run]`
    question_ids / question_types (category names) / sample (stratified by category) / limit
    select questions (within `[dataset] conversations` when set), and a conversation none of whose
    questions is selected is not ingested."""
    path = Path(settings.dataset.file)
    options = LocomoOptions.of(settings.dataset)
    parsed = only_conversations(load_locomo(path), options.conversations, str(path))
    run = settings.run
    wanted = set(select_question_ids(parsed.index(), question_ids=list(run.question_ids),
                                     question_types=list(run.question_types), limit=run.limit,
                                     sample=run.sample, sample_seed=run.sample_seed, source=str(path)))
    conversations = sum(1 for _ in select_locomo(parsed, wanted))
    evidence = evidence_block([{"question_id": d.question_id, "id": d.id, "reason": d.reason} for d in parsed.dropped],
                              [{"question_id": r.question_id, "id": r.id, "as": r.canonical} for r in parsed.repaired])
    told = f"; {evidence['dropped']} evidence id(s) dropped ({evidence['unparseable']} unparseable, " \
        f"{evidence['names_no_turn']} name no turn), {evidence['repaired']} repaired" \
        if evidence["dropped"] or evidence["repaired"] else ""
    description = f"LoCoMo file {path}: {len(wanted)} questions over {conversations} conversation(s){told}"
    if (note := evidence_note(evidence, where="the file")) is not None:
        log.warning("%s (every one is listed in the manifest's dataset.evidence)", note)
    return DatasetPlan([CaseGroup("cases", len(wanted), lambda: select_locomo(parsed, wanted))], str(path),
                       dataset_sha256(path), description, details={"evidence": evidence})


async def score(record: ResultLine, case: Case | None, judge: Judge) -> ResultLine:
    """Label from the LoCoMo judge (any model judge kind: "official" is LongMemEval's only) or the
    deterministic grader; F1 / BLEU-1 always. Category 5 is an `_abs` id: the grader's abstention
    check, or the adversarial prompt told the trap answer (the question's rubric)."""
    category = category_of(record)  # the results line being scored
    qid = str(record.get("question_id", ""))
    if category == str(ADVERSARIAL) and not qid.endswith("_abs"):  # adversarial is abstention, whatever the id says
        qid += "_abs"
    question = next((q for q in (case.questions if case else ()) if q.question_id == record.get("question_id")),
                    None)
    trap = (question.rubric if question else {}).get("adversarial_answer") or record.get("adversarial_answer")
    metrics = answer_scores(record.get("hypothesis"), record.get("answer", ""), category)
    if trap:
        metrics["adversarial_answer"] = str(trap)
    line: ResultLine = {**record, "question_id": qid, "adversarial_answer": trap or ""}
    grade = await judge.grade(line, gold=scored_gold(record.get("answer", ""), category),
                              template=judge_template(str(record.get("question_type", "")), qid.endswith("_abs")))
    fields = judge.results_fields(line, grade)
    fields["locomo"] = metrics
    return fields


def judge_template(question_type: str, abstention: bool) -> str | None:
    return LOCOMO_TEMPLATES["abstention" if abstention else "answerable"]


def summary_blocks(results: Sequence[ResultLine], notes: list[str]) -> Record:
    notes.append("LoCoMo: overall accuracy counts every question; category 5 (adversarial) is the abstention "
                 "row; the LoCoMo section gives categories 1-4 apart (what LoCoMo papers publish), with F1 and "
                 "BLEU-1, which category 5 has none of")
    block = locomo_summary(results)
    if (note := evidence_note(block["evidence"])) is not None:  # ids the file got wrong: said, never silent
        notes.append(note + " (the LoCoMo section lists them)")
    return {NAME: block}


def console_rows(summary: Record) -> list[tuple[str, str]]:
    block = summary.get(NAME) or {}
    rows = [(f"{name} (categories 1-4)", f"{cell['mean']:.3f} [{cell['ci95'][0]:.3f}-{cell['ci95'][1]:.3f}] "
             f"(n={cell['n']})") for key, name in (("f1", "F1"), ("bleu1", "BLEU-1"))
            if (cell := (block.get("overall") or {}).get(key)) and cell.get("mean") is not None and cell.get("ci95")]
    evidence: EvidenceBlock = block.get("evidence") or evidence_block([], [])
    if evidence.get("dropped") or evidence.get("repaired"):
        rows.append(("evidence ids dropped", counts_text(evidence)))
    return rows


def answer_fields(case: Case, question: Question) -> ResultLine:
    """The question's evidence ids that were dropped (with why) or repaired, so the summary counts them."""
    fields: ResultLine = {}
    if dropped := question.evidence.get("dropped"):
        fields["evidence_dropped"] = list(dropped)
    if repaired := question.evidence.get("repaired"):
        fields["evidence_repaired"] = list(repaired)
    return fields


def qa_sections(summary: Record) -> list[Section]:
    return [locomo_section(summary[NAME])] if summary.get(NAME) else []


def compare_blocks(results: Sequence[ResultLine]) -> Record:
    return {NAME: locomo_summary(results)}


def compare_sections(runs: list[Record]) -> list[Section]:
    return [compare_rows(runs, NAME)] if runs and all(r.get(NAME) for r in runs) else []


SUITE = Suite(
    name=NAME,
    record_kinds=(NAME,),
    data=DataSource(plan, options=LocomoOptions, question_types=QUESTION_TYPES, problems=data_problems,
                    reads_file=True, missing_file_hint=_missing_file_hint),
    scorer=Scorer(score=score, judge_template=judge_template, retrieval_evidence=always, answer_fields=answer_fields),
    reporting=SuiteReporting(summary_models={NAME: LocomoBlock},   # summary.json's `locomo`, typed
                             summary_blocks=summary_blocks, console_rows=console_rows, qa_sections=qa_sections,
                             compare_blocks=compare_blocks, compare_sections=compare_sections),
    # one ingestion per conversation, replayed once per conversation
    protocol=CaseProtocol(conversation_cases=True, replay_refusal=""),
    adversary_refusal="is scored by its own category metrics, which a new question has no gold for; not supported",
    judge_cost=JudgeCost(_judge_tokens, " (LoCoMo's judge: a longer prompt, a JSON reply with a reason)"),
    errata_gold=locomo_gold,
)
