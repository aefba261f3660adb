"""`mycelian-longmemeval baselines RUN_DIR [CONFIG]`: a finished run's questions asked again without its memory
system, judged by the run's judge: is memory needed here?

- `no_memory`: the reader gets no context at all (what it knows or guesses; `prompts/baseline_no_memory.txt`);
- `full_context`: the reader gets the case's whole history, oldest sessions dropped first to fit
  `[baselines] full_context_tokens` (LongMemEval's long-context baseline; `prompts/baseline_full_context.txt`).
  The history is the first message and the question the second, so every question of one conversation
  (LoCoMo, BEAM) sends a byte-identical prefix that the provider's prompt cache serves: each case's first
  question is asked before its others, and the ledger records the cache reads the provider reports.

Built like `oracle`: RUN_DIR/baselines/<name>/ gets answers.jsonl, results.jsonl, summary.json, the report and
the official-format hypotheses (write_outputs), resumable (a question answered or judged is never paid again),
its tokens journaled as spent (ledger.jsonl, so a resumed baseline's summary counts every call), priced before
(`--estimate`). Every answers line carries `baseline`, `context_tokens` (cl100k_base) and, for full_context,
`history_cut` (sessions dropped, tokens before and after).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.messages import HumanMessage

from benchmarker.agent.ledger import usage_of
from benchmarker.agent.messages import message_text
from benchmarker.agent.prompts import load_prompt
from benchmarker.config_schema import BaselinesConfig, EvalConfig, RunConfig, RunSection
from benchmarker.datasets.schema import Case
from benchmarker.errors import UserError
from benchmarker.log.records import AnswerRecord
from benchmarker.log.store import RunLog
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run.concurrent import run_all_or_stop
from benchmarker.token_count import TOKENIZER
from benchmarker.verbs.baseline_history import History, HistoryCut, build_history, history_cases
from benchmarker.verbs.oracle import QUESTION_KEYS

if TYPE_CHECKING:
    from benchmarker.log.jsonl import JsonlWriter
    from benchmarker.run.models import RunModels
    from benchmarker.verbs.rescore import CaseRebuild

BASELINES_DIR = "baselines"
BASELINES = ("no_memory", "full_context")
PROMPTS = {"no_memory": "baseline_no_memory.txt", "full_context": "baseline_full_context.txt"}
CONTEXTS = {"no_memory": "no context at all (the question alone)",
            "full_context": "the case's whole history, oldest sessions dropped first to fit the token budget"}
SPLIT = "=== QUESTION DATE ==="  # the prompt is sent as two messages: instructions + history, then the question


def chosen(only: str | None) -> tuple[str, ...]:
    """`--only no_memory,full_context` as names (every baseline when not given); a UserError names a bad one."""
    if not only:
        return BASELINES
    names = tuple(dict.fromkeys(n.strip() for n in only.split(",") if n.strip()))
    bad = [n for n in names if n not in BASELINES]
    if bad or not names:
        raise UserError(f"--only: got {only!r}; allowed: {', '.join(BASELINES)} (comma-separated)")
    return names


def run_config(run_dir: Path, config_path: Path | None):
    """CONFIG when given (another reader or judge), else the config the run was made with (its manifest)."""
    from benchmarker.run.run_files import config_of_run

    return config_of_run(run_dir, config_path, "baselines")


def run_answers(run_dir: Path) -> dict[str, AnswerRecord]:
    """The run's answered questions (the dataset's own, not adversarial rounds), by id."""
    from benchmarker.run.run_files import answered_questions

    return answered_questions(run_dir, "baselines")


def prompt_messages(name: str, answer: AnswerRecord, context: str, provider: str, model: str) -> list[HumanMessage]:
    """The prompt as two messages, the history first, so questions of one case share a cacheable prefix."""
    text = load_prompt(PROMPTS[name]).format(question=answer.question, context=context,
                                             question_date=answer.question_date or "unknown")
    head, _, tail = text.rpartition(SPLIT)
    return [HumanMessage(cache_marked(head.rstrip("\n"), provider, model)), HumanMessage(SPLIT + tail)]


def cache_marked(text: str, provider: str, model: str) -> Any:
    """The prefix with the provider's cache breakpoint (OpenAI caches a long prefix by itself)."""
    from benchmarker.agent.caching import CACHE_TTL, bedrock_supports_cache

    if provider == "anthropic":
        return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral", "ttl": CACHE_TTL}}]
    if provider == "bedrock" and bedrock_supports_cache(model):
        return [{"type": "text", "text": text}, {"cachePoint": {"type": "default"}}]
    return text


class Histories:
    """Each case's full-context history, built once for all of its questions."""

    def __init__(self, limit: int, cases: dict[str, Case]):
        self.limit = limit    # [baselines] full_context_tokens
        self.cases = cases    # history_cases: the cases whose questions ask for a history
        self._built: dict[str, History] = {}

    def get(self, case_id: str) -> History:
        if case_id not in self._built:
            self._built[case_id] = build_history(self.cases[case_id], self.limit)
        return self._built[case_id]


async def ask(name: str, reader: Any, answer: AnswerRecord, history: History | None, provider: str,
              qa_model: str) -> AnswerRecord:
    context = history.text if history is not None else ""
    reply = await reader.ainvoke(prompt_messages(name, answer, context, provider, qa_model))
    usage = usage_of(reply)
    line = answer.to_line()
    extra: dict[str, HistoryCut] = {"history_cut": history.cut()} if history is not None else {}
    return AnswerRecord(**{k: line[k] for k in QUESTION_KEYS if k in line}, **extra, **{
        "hypothesis": message_text(reply).strip(), "mode": "baseline", "baseline": name,
        "offline": provider == "offline", "reader_context": context, "context_chars": len(context),
        "context_tokens": history.tokens_after if history is not None else 0,
        "tokens": {"qa": {"input": usage.input_tokens, "output": usage.output_tokens,
                          "cache_read": usage.cache_read_tokens, "cache_write": usage.cache_write_tokens}}})


@dataclass(frozen=True)
class BaselineSettings:
    """What a baseline reads of the run's (or CONFIG's) config, taken once by `run_baselines`."""

    eval: EvalConfig
    run: RunSection
    baselines: BaselinesConfig
    provider: str          # [provider].type
    qa_model: str          # [models].qa
    dataset_kind: str
    cases: CaseRebuild     # how the full-context histories' cases are rebuilt


async def run_baseline(name: str, run_dir: Path, settings: BaselineSettings, models: RunModels, journal: JsonlWriter,
                       answers: dict[str, AnswerRecord], cases: dict[str, Case]) -> tuple[RunSummary, Path]:
    """Answer and judge every pending question of one baseline with `models` (their ledger journaled to
    `journal`); write its folder's outputs."""
    from benchmarker.reporting.outputs import write_outputs
    from benchmarker.reporting.run_meta import RunMeta
    from benchmarker.score import score

    out_dir = run_dir / BASELINES_DIR / name
    judge = models.judge_for(settings.eval, settings.run.max_failures_in_a_row)
    log = RunLog(run_dir, answers_dir=out_dir)
    pending = [a for q, a in answers.items() if q not in log.done.judged]
    to_ask = sorted({a.case_id for a in pending if a.question_id not in log.done.answered})
    histories = Histories(settings.baselines.full_context_tokens,
                          history_cases(settings.cases, run_dir, to_ask if name == "full_context" else []))
    semaphore = asyncio.Semaphore(settings.run.concurrency)

    async def one(gold: AnswerRecord) -> None:
        async with semaphore:
            answer = log.done.answered.get(gold.question_id)
            if answer is None:
                history = histories.get(gold.case_id) if name == "full_context" else None
                answer = await ask(name, models.qa, gold, history, settings.provider, settings.qa_model)
                log.append(answer)
            result = await score(answer, cases.get(gold.case_id), judge)
        log.append(result)

    async def case(questions: list[AnswerRecord]) -> None:
        await one(questions[0])  # its prefix is in the cache before the case's other questions are sent
        await run_all_or_stop(one(q) for q in questions[1:])

    by_case: dict[str, list[AnswerRecord]] = {}
    for gold in pending:
        by_case.setdefault(gold.case_id, []).append(gold)
    try:
        await run_all_or_stop(case(questions) for questions in by_case.values())
    finally:
        log.close()
        journal.close()
    meta: RunMeta = {"run_id": f"{run_dir.name}/{BASELINES_DIR}/{name}", "offline": models.offline, "mode": "agent",
            "judge": models.judge_kind, "point": f"{BASELINES_DIR}/{name}", "tokens": models.ledger.snapshot(),
            "dataset_kind": settings.dataset_kind, "thresholds": settings.eval.thresholds.model_dump(mode="json"),
            "baseline": {"name": name, "of_run": run_dir.name, "reader": settings.qa_model, "judge": models.judge_kind,
                         "context": CONTEXTS[name], "tokenizer": TOKENIZER, "original_report": "../../report.html",
                         **({"full_context_tokens": settings.baselines.full_context_tokens}
                            if name == "full_context" else {})}}
    return write_outputs(out_dir, run_dir, meta, SUITE_LOOKUP)[0], out_dir


async def run_baselines(run_dir: Path, config: RunConfig, names: Sequence[str]) -> list[tuple[str, RunSummary, Path]]:
    """Each named baseline in turn, on the run's questions, with the run's (or CONFIG's) reader and judge (their
    ledger continuing each baseline's journal, ledger.jsonl, and writing to it)."""
    from benchmarker.agent.ledger import JOURNAL_FILE, journal_totals
    from benchmarker.log.confined import make_folders
    from benchmarker.log.jsonl import JsonlWriter, read_jsonl
    from benchmarker.run.models import build_models
    from benchmarker.verbs.rescore import CaseRebuild, cases_for

    answers = run_answers(run_dir)
    rebuild = CaseRebuild.of(config)
    cases = cases_for(rebuild, run_dir, answers)
    config = config.model_copy(update={"run": config.run.model_copy(update={"mode": "agent", "phases": ("qa", "eval")})})
    settings = BaselineSettings(config.eval, config.run, config.baselines, config.provider.type, config.models.qa,
                                config.dataset.kind, rebuild)
    done = []
    for name in names:
        out_dir = run_dir / BASELINES_DIR / name
        journal = out_dir / JOURNAL_FILE
        models = build_models(config, earlier_tokens=journal_totals(read_jsonl(journal)), with_agent=False)
        make_folders(out_dir)   # never through a link below the run directory (log/confined.py)
        writer = JsonlWriter(journal, durable=True)
        models.ledger.journal_to(writer.write)
        done.append((name, *await run_baseline(name, run_dir, settings, models, writer, answers, cases)))
    return done
