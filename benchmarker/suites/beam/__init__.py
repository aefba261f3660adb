"""BEAM ("Beyond a Million Tokens", Tavakoli et al. 2025): ten memory abilities over conversations of 128K
to 10M tokens. One case per conversation (ingested once), then its probing questions; each answer graded
per rubric item (the clone's official judge, our LLM judge, or the deterministic grader: scoring.py);
per-ability mean scores with bootstrap intervals and their mean (summary.py); retrieval scored on the
questions' evidence message ids (`source_chat_ids`, turn and session level)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field

from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import Problem, RunConfig, each_once
from benchmarker.datasets.schema import Case, Question
from benchmarker.datasets.selection import select_question_ids
from benchmarker.datasets.source import CaseGroup, DatasetPlan, dataset_sha256
from benchmarker.log.lines import ResultLine
from benchmarker.reporting.section_spec import MeanScoreChart, Section
from benchmarker.reporting.suite_parts import Record, SuiteReporting
from benchmarker.scoring.grade import Grade, GradeTokens
from benchmarker.scoring.judges import with_eval_tokens
from benchmarker.suites.base import Suite, need_case
from benchmarker.suites.beam.blocks import block_json
from benchmarker.suites.beam.data import (
    ABILITIES,
    CHAT_FILE,
    QUESTIONS_FILE,
    RECORD_KIND,
    SIZES,
    beam_cases,
    conversation_dirs,
    iter_conversations,
    scan,
)
from benchmarker.suites.beam.official import OfficialPrompts, load_official_prompts
from benchmarker.suites.beam.scoring import Grader, grade_answer
from benchmarker.suites.beam.summary import beam_chart, beam_section, beam_summary, compare_rows
from benchmarker.suites.options import SuiteOptions
from benchmarker.suites.parts import (
    CalibrationGold,
    CaseProtocol,
    DataSource,
    GoldAndCases,
    JudgeCost,
    OfficialJudgeSource,
    PromptsFound,
)
from benchmarker.suites.scorer import Scorer, always
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.scoring.judges import Judge

log = logging.getLogger(__name__)
BEAM_REPO = "https://github.com/mohammadtavakoli78/BEAM"
RUBRIC_PROMPT, SAME_EVENT_PROMPT = "judge_beam_rubric", "judge_beam_same_event"
ITEMS_PER_QUESTION, ANSWER_TOKENS, ITEM_OUTPUT = 3, 250, 40   # estimate: a question's judge calls
NAME = "beam"
PASS_SCORE = 0.5   # a question's `label` (accuracy, attribution): its score is at least this


class BeamOptions(SuiteOptions):
    """BEAM's own [dataset] keys."""

    size: Literal["100K", "500K", "1M", "10M"] = "100K"
    # the conversations to run, by number (folder name) or Hugging Face conversation_id; empty: all of them
    chats: Annotated[tuple[int | str, ...], AfterValidator(each_once)] = Field(default=(), strict=False)


def _missing_file_hint(path: str) -> str:
    return f"clone the benchmark there: git clone {BEAM_REPO} {path}"


def _official_prompts(settings: PlanSettings) -> PromptsFound:
    """The clone's rubric prompt and alignment messages ([dataset] file must be the clone's root)."""
    prompts, reason = load_official_prompts(_clone_root(Path(settings.dataset.file)))
    if prompts is None:
        return None, reason
    return prompts, f"official BEAM judge prompts from {prompts.source}"


def _calibration_gold(settings: PlanSettings) -> GoldAndCases:
    """Every question of the configured conversations (its reference answer as gold) and its case, whose
    rubric the judge grades by; a labels line's `label` is whether the answer deserves a score >= 0.5."""
    from benchmarker.scoring.calibration.labels import Gold

    options = BeamOptions.of(settings.dataset)
    gold: dict[str, Any] = {}
    cases: dict[str, Case] = {}
    for case in beam_cases(iter_conversations(Path(settings.dataset.file), options.size,
                                              [str(c) for c in options.chats]), options.size):
        for q in case.questions:
            gold[q.question_id] = Gold(q.question_id, q.question_type, q.question, q.answer, kind=RECORD_KIND)
            cases[q.question_id] = case
    return gold, cases


def _judge_tokens(chars_per_token: float) -> tuple[int, int]:
    """A question's judge calls: ~3 rubric items, each the rubric prompt with the answer."""
    template = load_prompt(RUBRIC_PROMPT)
    return ITEMS_PER_QUESTION * (round(len(template) / chars_per_token) + ANSWER_TOKENS), \
        ITEMS_PER_QUESTION * ITEM_OUTPUT


def data_problems(cfg: RunConfig) -> list[Problem]:
    if not cfg.dataset.file:
        return [Problem(("dataset", "file"), f'required for kind "beam": clone the benchmark (git clone '
                        f"{BEAM_REPO}) and set file to the clone, one of its chats/<size> folders, or a "
                        "Hugging Face export (Mohammadta/BEAM) of rows {conversation_id, chat, probing_questions}")]
    return []


def plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    """One case per conversation holding its selected questions; `[run]` question_ids / question_types
    (abilities) / sample (stratified by ability) / limit select them, and a conversation none of whose
    questions is selected is not ingested."""
    path, options = Path(settings.dataset.file), BeamOptions.of(settings.dataset)
    chats = [str(c) for c in options.chats]
    scanned = scan(path, options.size, chats)   # validates every wanted conversation before anything runs
    dropped, conversations, tokens = scanned.dropped, scanned.conversations, scanned.tokens_estimate
    run = settings.run
    wanted = set(select_question_ids(scanned.index, question_ids=list(run.question_ids),
                                     question_types=list(run.question_types), limit=run.limit,
                                     sample=run.sample, sample_seed=run.sample_seed, source=str(path),
                                     known_types=ABILITIES))
    told = f"; {sum(len(d['ids']) for d in dropped)} evidence id(s) name no message" if dropped else ""
    description = (f"BEAM {options.size} {path}: {len(wanted)} questions over {len(conversations)} "
                   f"conversation(s) (~{tokens:,} tokens of chat){told}")
    if dropped:
        log.warning("BEAM: %d question(s) cite message ids their conversation lacks (listed in the manifest's "
                    "dataset.evidence)", len(dropped))

    def cases() -> Any:   # read again, one conversation at a time, as the graph streams them
        return beam_cases(iter_conversations(path, options.size, conversations), options.size, wanted)

    return DatasetPlan([CaseGroup("cases", len(wanted), cases)], str(path), _sha256(path, options.size, chats),
                       description, details={"size": options.size, "conversations": conversations,
                                             "chat_tokens_estimate": tokens, "evidence": {"dropped": dropped}})


async def score(record: ResultLine, case: Case | None, judge: Judge) -> ResultLine:
    """Every rubric item graded (module docstring); label: the question's score >= 0.5."""
    question = next(q for q in need_case(case, record).questions if q.question_id == record.get("question_id"))
    builder = judge.prompt_builder()
    official = builder if isinstance(builder, OfficialPrompts) else None
    grader = Grader(judge.llm, official, rubric_template=load_prompt(RUBRIC_PROMPT),
                    same_template=load_prompt(SAME_EVENT_PROMPT), retries=judge.retries)
    block = await grade_answer(grader, ability=question.question_type, question=question.question,
                               rubric=list(question.rubric.get("items") or []),
                               answer=str(record.get("hypothesis") or ""), abstention=question.is_abstention)
    score = block["score"]
    label = None if score is None else score >= PASS_SCORE
    which = "official" if official is not None else "llm" if judge.llm is not None else "deterministic"
    reason = (f"BEAM {which}: {len(block['items'])} rubric item(s), score "
              + ("unjudged" if score is None else f"{score:.3f}") + f" ({grader.calls} judge call(s))")
    grade = Grade(label=label, judge=judge.name, model=_model_id(judge.llm), reason=reason,
                  attempts=max(1, grader.calls), template=None if judge.llm is None else
                  ("beam_official" if official is not None else RUBRIC_PROMPT), score=score,
                  tokens=GradeTokens(input=grader.input_tokens, output=grader.output_tokens))
    fields = grade.result_fields()
    fields["beam"] = block_json(block)
    fields["tokens"] = with_eval_tokens(record, grade)   # its judge calls, whichever judge made them
    return fields


def summary_blocks(results: Sequence[ResultLine], notes: list[str]) -> Record:
    if not any(r.get("kind") == RECORD_KIND for r in results):
        return {}
    notes.append("BEAM: the headline is the mean over abilities of each ability's mean question score (0-1); "
                 f"accuracy and attribution count a question correct when its score is >= {PASS_SCORE}")
    return {NAME: beam_summary(results)}


def console_rows(summary: Record) -> list[tuple[str, str]]:
    overall = (summary.get(NAME) or {}).get("overall") or {}
    mean, ci = overall.get("mean_over_abilities"), overall.get("ci95")
    if mean is None:
        return []
    return [("BEAM mean over abilities", f"{mean:.3f}" + (f" [{ci[0]:.3f}-{ci[1]:.3f}]" if ci else "")
             + f" ({overall.get('abilities', 0)} abilities, n={overall.get('scored', 0)})")]


def qa_sections(summary: Record) -> list[Section]:
    return [beam_section(summary[NAME])] if summary.get(NAME) else []


def report_charts(summary: Record) -> list[MeanScoreChart]:
    return [beam_chart(summary.get(NAME) or {})]


def compare_blocks(results: Sequence[ResultLine]) -> Record:
    return {NAME: beam_summary(results)}


def compare_sections(runs: list[Record]) -> list[Section]:
    return [compare_rows(runs, NAME)] if runs and all(r.get(NAME) for r in runs) else []


def answer_fields(case: Case, question: Question) -> ResultLine:
    """The evidence message ids the file names (and those naming no message), for the run browser."""
    out: ResultLine = {"evidence_message_ids": list(question.evidence.get("message_ids") or [])}
    if question.evidence.get("dropped"):
        out["evidence_dropped"] = list(question.evidence["dropped"])
    return out


def _model_id(model: Any | None) -> str | None:
    if model is None:
        return None
    from benchmarker.scoring.judge import model_id

    return model_id(model)


def _clone_root(path: Path) -> Path:
    """The BEAM clone a `[dataset] file` sits in (the file may name the clone, chats/, or chats/<size>)."""
    for candidate in (path, *path.parents):
        if (candidate / "src" / "prompts.py").is_file():
            return candidate
    return path


def _sha256(path: Path, size: str, chats: list[str]) -> str:
    """The file's sha256; for a folder, the sha256 over each selected conversation's two files (name and digest)."""
    if path.is_file():
        return dataset_sha256(path)
    digest = hashlib.sha256()
    for folder in conversation_dirs(path, size):
        if chats and folder.name not in chats:
            continue
        for name in (CHAT_FILE, str(QUESTIONS_FILE)):
            digest.update(f"{folder.name}/{name}:{dataset_sha256(folder / name)}\n".encode())
    return digest.hexdigest()


SUITE = Suite(
    name=NAME,
    record_kinds=(RECORD_KIND,),
    data=DataSource(plan, options=BeamOptions, question_types=ABILITIES, problems=data_problems, reads_file=True,
                    finds_data_at=Path.exists, missing_file_hint=_missing_file_hint),
    scorer=Scorer(score=score, retrieval_evidence=always, answer_fields=answer_fields),
    reporting=SuiteReporting(summary_blocks=summary_blocks, console_rows=console_rows, qa_sections=qa_sections,
                             report_charts=report_charts, compare_blocks=compare_blocks,
                             compare_sections=compare_sections),
    official_judge=OfficialJudgeSource(_official_prompts),
    calibration_gold=CalibrationGold(_calibration_gold),
    # one ingestion per conversation, replayed once per conversation
    protocol=CaseProtocol(conversation_cases=True, replay_refusal=""),
    adversary_refusal="is scored by rubrics written with its data, which a new question has none of; not supported",
    judge_cost=JudgeCost(_judge_tokens, " (BEAM's judge: one call per rubric item, plus event ordering's alignment calls)"),
)
__all__ = ["SIZES", "SUITE"]
