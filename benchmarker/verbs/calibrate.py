"""`mycelian-longmemeval calibrate CONFIG --labels FILE ...`: how far CONFIG's judge agrees with
published labels, before anyone trusts its accuracy column.

The judge is the one a run of CONFIG would use (`[eval] judge`, `[models].eval`, its prompts,
`[eval] votes`, `judge_retries` and `[eval.thresholds]`; the deterministic grader with `[provider]
type = "offline"`), or each `--judge` given (deterministic | llm | official), so our `llm` prompts
and LongMemEval's official ones are calibrated on the same labels in one command. It grades every
labelled answer through `benchmarker.score.score`, the same entry point a run's eval phase
uses, and writes `ROOT/<judge label>/` (ROOT: `--out`, else `<[run] output_dir>/calibration`):

    calibration.json    the summary (n, agreement, kappa + bootstrap interval, confusion, precision,
                        recall, by_type, by_file, labels, judge, tokens)
    calibration.jsonl   every disagreement (and unjudged answer): question, gold, answer, label,
                        verdict, the judge's reason
    report.md / .html   the same as tables
    verdicts.jsonl      an LLM judge's verdicts, appended as they come: a rerun skips what is judged
    tokens.json         the ledger so far (a resumed calibration counts every attempt's tokens)

An LLM judge runs `[run] concurrency` answers at once with the usual retries, the ledger and the
progress line, and stops after `[run] max_failures_in_a_row` judge failures in a row. The
deterministic grader is free and always grades everything again (it changes with the code).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from benchmarker.config_schema import RunConfig
from benchmarker.errors import UserError
from benchmarker.log.jsonl import JsonlWriter, read_json_object, read_jsonl, write_json_atomic
from benchmarker.registry import suite
from benchmarker.run.concurrent import run_all_or_stop
from benchmarker.scoring.calibration.labels import LabelledAnswer, file_names, read_labels
from benchmarker.scoring.calibration.store import CALIBRATION_DIR, judge_label
from benchmarker.scoring.judges import judge_class
from benchmarker.suites.settings import PlanSettings

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot
    from benchmarker.datasets.schema import Case
    from benchmarker.reporting.calibration_shapes import CalibrationSummary, Disagreement
    from benchmarker.scoring.calibration.labels import Gold

VERDICTS_FILE = "verdicts.jsonl"
TOKENS_FILE = "tokens.json"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class JudgeChoice:
    """One judge to calibrate: the config it is built from, its kind and its folder name."""

    config: RunConfig
    kind: str
    label: str
    note: str


def calibration_gold(settings: PlanSettings, config_path: Path | None) -> tuple[dict[str, Gold], dict[str, Case]]:
    """(question_id -> Gold, question_id -> case) from the config's suite (its `[dataset] file`, read by the suite);
    one line when it has none."""
    source = suite(settings.dataset.kind).calibration_gold
    got = None if source is None else source.read(settings)
    if got is None:
        raise UserError(f"{config_path}: calibrate needs gold answers it can read: a LongMemEval-format file "
                        "([dataset] file, e.g. ../shared/data/judge/longmemeval_questions.json, or "
                        f"dataset_repo_path) or a BEAM clone (kind = \"beam\"); kind \"{settings.dataset.kind}\" has none")
    return got


def choose_judges(config: RunConfig, kinds: list[str]) -> list[JudgeChoice]:
    """CONFIG's own judge, or each of `kinds` (deterministic | llm | official) in its place."""
    from benchmarker.scoring.judges import choose_judge

    out: list[JudgeChoice] = []
    wanted: list[str | None] = list(dict.fromkeys(kinds)) or [None]
    for kind in wanted:
        cfg = config if kind is None else config.model_copy(
            update={"eval": config.eval.model_copy(update={"judge": kind})})
        # ConfigError: llm / official without [models].eval and a provider
        chosen, note = choose_judge(cfg.eval, cfg.models, cfg.provider, cfg.run, cfg.params, cfg.config_path)
        thresholds = cfg.eval.thresholds.model_dump(mode="json")
        out.append(JudgeChoice(cfg, chosen, judge_label(chosen, cfg.models.eval, thresholds), note))
    return out


def out_dir(output_dir: str, choice: JudgeChoice, root: Path | None) -> Path:
    """A judge's calibration folder: under `root`, else `[run] output_dir`/calibration."""
    return Path(root if root is not None else Path(output_dir) / CALIBRATION_DIR) / choice.label


def _done(path: Path) -> dict[str, dict[str, Any]]:
    """key -> the latest judged verdict line (unjudged ones are asked again)."""
    return {line["key"]: line for line in read_jsonl(path) if line.get("verdict") is not None and "key" in line}


def _official_builder(choice: JudgeChoice) -> Any:
    """LongMemEval's prompt builder for the official judge (None for any other); a missing one is an error
    here, where `run` would fall back to our prompts: a calibration must measure the judge it names."""
    from benchmarker.run.models import official_prompt_for

    builder, reason = official_prompt_for(choice.kind, PlanSettings.of(choice.config))
    if builder is None and reason:
        raise UserError(f"{choice.config.config_path}: judge = \"official\" needs the benchmark's own evaluator: "
                        f"{reason} (for LongMemEval set dataset_repo_path to your clone)")
    return builder


def estimate(answers: list[LabelledAnswer], choices: list[JudgeChoice], output_dir: str,
             root: Path | None = None) -> list[EstimateRow]:
    """Tokens and USD of each judge's calls still to make, without building or calling a model: each
    answer's rendered judge prompt (characters / 4) in, a yes/no out, priced by [prices]."""
    from benchmarker.agent.ledger import Usage, price_usage
    from benchmarker.run.estimate_model import tokens
    from benchmarker.scoring.judge import build_prompt
    from benchmarker.verbs.estimate import JUDGE_OUTPUT

    rows: list[EstimateRow] = []
    for choice in choices:
        unique = {a.key: a for a in answers}
        if not judge_class(choice.kind).needs_model:
            rows.append({"judge": choice.label, "kind": choice.kind, "model": None, "answers": len(answers),
                         "to_judge": len(unique), "already_judged": 0, "calls": 0, "input_tokens": 0,
                         "output_tokens": 0, "usd": 0.0, "note": "deterministic grader: no model call"})
            continue
        builder = _official_builder(choice)
        done = _done(out_dir(output_dir, choice, root) / VERDICTS_FILE)
        pending = [a for k, a in unique.items() if k not in done]
        usage = Usage(calls=len(pending), output_tokens=JUDGE_OUTPUT * len(pending),
                      input_tokens=sum(tokens(len(build_prompt(a.record(), builder)[2])) for a in pending))
        model = choice.config.models.eval
        price = choice.config.prices.get(model)
        usd = price_usage(usage, None if price is None else price.model_dump(), model)[0]
        rows.append({"judge": choice.label, "kind": choice.kind, "model": model, "answers": len(answers),
                     "to_judge": len(pending), "already_judged": len(unique) - len(pending), "calls": usage.calls,
                     "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "usd": usd,
                     "note": "judge retries after an unusable reply are not included"})
    return rows


def format_estimate(rows: list[EstimateRow]) -> str:
    out = []
    for r in rows:
        usd = "no price in [prices]" if r["usd"] is None else f"${r['usd']:,.4f}"
        out.append(f"{r['judge']}: {r['to_judge']} answers to judge ({r['already_judged']} already judged) with "
                   f"{r['model'] or 'the deterministic grader'}: ~{r['input_tokens']:,} tokens in, "
                   f"~{r['output_tokens']:,} out, {usd}")
    return "\n".join(out)


async def calibrate(answers: list[LabelledAnswer], cases: dict[str, Case], choices: list[JudgeChoice],
                    output_dir: str, files: list[Path], development: list[Path],
                    root: Path | None = None) -> list[dict[str, Any]]:
    """Calibrate each chosen judge on `answers` (read from `files`); return their summaries (each also in its
    calibration.json). The `development` files (also calibrated) are reported apart, as a fit: the judge was
    developed on them."""
    return [await calibrate_one(choice, answers, out_dir(output_dir, choice, root), files, development, cases)
            for choice in choices]


def with_development(label_files: list[Path], development: list[Path]) -> list[Path]:
    """The labels files to read: --labels, then any --development file not already among them."""
    seen = {Path(p).resolve() for p in label_files}
    return [*label_files, *(p for p in development if Path(p).resolve() not in seen)]


async def calibrate_one(choice: JudgeChoice, answers: list[LabelledAnswer], folder: Path,
                        label_files: list[Path], marked: list[Path] | None = None,
                        cases: dict[str, Case] | None = None) -> dict[str, Any]:
    from benchmarker.run.run_lock import hold_run_lock

    folder.mkdir(parents=True, exist_ok=True)
    with hold_run_lock(folder, "calibrate"):   # held while writing too: no write below `folder` follows a link
        verdicts, tokens = await _judge_all(choice, answers, folder, cases or {})
        return _write(choice, answers, verdicts, tokens, folder, label_files, list(marked or []))


async def _judge_all(choice: JudgeChoice, answers: list[LabelledAnswer], folder: Path,
                     cases: dict[str, Case]) -> tuple[dict[str, dict[str, Any]], LedgerSnapshot]:
    """key -> verdict line for every answer (resumed ones too), and the ledger's snapshot; `cases` holds the
    case of each question whose suite scores from it (a BEAM rubric)."""
    from benchmarker.agent.ledger import TokenLedger
    from benchmarker.graph.progress import RunProgress
    from benchmarker.run.models import build_models
    from benchmarker.run.runner import ledger_totals
    from benchmarker.score import score
    from benchmarker.scoring.judges import DeterministicGrader

    config = choice.config
    llm = judge_class(choice.kind).needs_model
    path, tokens_path = folder / VERDICTS_FILE, folder / TOKENS_FILE
    if not llm:  # free, and the grader changes with the code: grade everything again
        path.unlink(missing_ok=True)
    earlier = cast("LedgerSnapshot | None", read_json_object(tokens_path) or None)  # what an earlier pass spent
    if llm:
        as_eval = config.model_copy(update={"run": config.run.model_copy(update={"phases": ("eval",)})})
        models = build_models(as_eval, earlier_tokens=earlier, with_agent=False)
        if models.judge_kind != choice.kind:  # the official judge without LongMemEval's evaluator
            raise UserError(f"{config.config_path}: judge = \"official\": {models.judge_note}")
        judge, ledger = models.judge_for(config.eval, config.run.max_failures_in_a_row), models.ledger
    else:  # no model at all: the grader needs no key, whatever the provider
        judge, ledger = DeterministicGrader(thresholds=config.eval.thresholds), TokenLedger()
    verdicts = _done(path)
    unique = {a.key: a for a in answers}
    pending = [a for k, a in unique.items() if k not in verdicts]
    writer = JsonlWriter(path, durable=llm)
    semaphore = asyncio.Semaphore(config.run.concurrency)
    try:
        with RunProgress(len(pending), enabled=config.run.progress and llm,
                         stats=lambda: ledger_totals(ledger)) as progress:
            progress.set_phase("judge")

            async def one(answer: LabelledAnswer) -> None:
                async with semaphore:
                    result = await score(answer.record(), cases.get(answer.gold.question_id), judge)
                line = {"key": answer.key, "question_id": answer.gold.question_id, "verdict": result.label,
                        "grade": result.grade}
                writer.write(line)
                if result.label is not None:
                    verdicts[answer.key] = line
                state = "unjudged" if result.label is None else ("agrees" if result.label == answer.label
                                                                  else "disagrees")
                progress.question_done(f"{answer.gold.question_id}: {state}")

            await run_all_or_stop(one(a) for a in pending)  # the judge failing too often stops every answer
    finally:
        writer.close()
        if llm:
            write_json_atomic(tokens_path, ledger.snapshot())
    for line in read_jsonl(path):  # unjudged answers of this attempt: their last word
        verdicts.setdefault(line.get("key", ""), line)
    return verdicts, ledger.snapshot()


def _reason(grade: dict[str, Any]) -> str:
    reason = str(grade.get("reason") or "")
    reply = grade.get("reply")
    return f"{reason}; reply: {reply}" if reply and str(reply) not in reason else reason


def _write(choice: JudgeChoice, answers: list[LabelledAnswer], verdicts: dict[str, dict[str, Any]],
           tokens: LedgerSnapshot, folder: Path, label_files: list[Path], marked: list[Path]) -> dict[str, Any]:
    from collections import Counter

    from benchmarker.reporting.calibration import FILES, write_calibration
    from benchmarker.run.manifest import utc_now
    from benchmarker.scoring.calibration.agreement import summarise
    from benchmarker.scoring.calibration.development import development_notes

    rows = []
    disagreements: list[Disagreement] = []   # calibration.jsonl's lines
    for a in answers:
        line = verdicts.get(a.key) or {}
        verdict = line.get("verdict")
        rows.append((a.file, a.gold.question_type, a.abstention, a.label, verdict))
        if verdict is None or verdict != a.label:
            disagreements.append({"file": a.file, "line": a.line, "question_id": a.gold.question_id,
                                  "question_type": a.gold.question_type, "question": a.gold.question,
                                  "gold": a.gold.answer, "answer": a.hypothesis, "label": a.label,
                                  "labelled_by": a.model, "verdict": verdict, "unjudged": verdict is None,
                                  "reason": _reason(line.get("grade") or {})})
    config = choice.config
    names = file_names(label_files)
    development = development_notes(label_files, names, marked=marked, developed_on=judge_class(choice.kind).developed_on)
    labels = [{"file": name, "path": str(path), "n": sum(1 for a in answers if a.file == name),
               "models": dict(Counter(a.model for a in answers if a.file == name)),
               "development": development.get(name)}
              for name, path in zip(names, label_files, strict=True)]
    summary = {"schema_version": SCHEMA_VERSION, "created_at": utc_now(),
               "judge": {"label": choice.label, "kind": choice.kind,
                         "model": config.models.eval if judge_class(choice.kind).needs_model else None,
                         "note": choice.note, "thresholds": config.eval.thresholds.model_dump(mode="json"),
                         "votes": config.eval.votes},
               "dataset_file": str(config.dataset_path), "labels": labels,
               "labels_models": dict(Counter(a.model for a in answers))} | summarise(rows, development)
    summary |= {"disagreements": sum(1 for d in disagreements if not d["unjudged"]), "tokens": tokens,
                "files": {name: str(folder / name) for name in FILES}}
    # TODO(issue 46): agreement.summarise returns an open dict; typed, `summary` is a CalibrationSummary without a cast
    # calibration.json once, with the paths it lists
    write_calibration(folder, cast("CalibrationSummary", summary), disagreements)
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    """The console table: all, per type, per labels file."""
    def row(name: str, b: dict[str, Any]) -> str:
        kappa = "undefined" if b["kappa"] is None else f"{b['kappa']:.3f}"
        ci = "" if not b.get("kappa_ci95") else f" [{b['kappa_ci95'][0]:.2f}, {b['kappa_ci95'][1]:.2f}]"
        agreement = "n/a" if b["agreement"] is None else f"{b['agreement']:.3f}"
        return f"  {name:<52} n {b['n']:>5}  agreement {agreement}  kappa {kappa}{ci}"

    out = [f"{summary['judge']['label']}: {summary['disagreements']} disagreements, {summary['unjudged']} unjudged",
           row("all", summary)]
    if summary.get("development_fit"):
        held = summary.get("held_out")
        out.append(row("held out (the calibration)", held) if held else
                   "  held out: none: every labels file given was used in developing this judge")
        out.append(row("development fit (not a calibration)", summary["development_fit"]))
    out += [row(t, b) for t, b in summary["by_type"].items()]
    if len(summary["by_file"]) > 1:
        out += [row(f, b) for f, b in summary["by_file"].items()]
    out.append(f"report: {summary['files'].get('report.html', '')}")
    return "\n".join(out)


def json_line(summary: dict[str, Any]) -> str:
    return json.dumps(summary, ensure_ascii=False)


class EstimateRow(TypedDict):
    """One judge's line of `calibrate --estimate` (printed as JSON with --json)."""

    judge: str
    kind: str
    model: str | None
    answers: int
    to_judge: int
    already_judged: int
    calls: int
    input_tokens: int
    output_tokens: int
    usd: float | None
    note: str


@dataclass(frozen=True)
class CalibrateArgs:
    """What `calibrate` is asked (commands/calibrate.py builds it from the command line)."""

    config: Path
    labels: tuple[Path, ...]
    development: tuple[Path, ...] = ()   # labels files the judge was developed on: reported apart
    judges: tuple[str, ...] = ()         # deterministic | llm | official; empty: the config's judge
    json: bool = False                   # one JSON object a judge instead of the table
    estimate: bool = False               # only price the judge calls
    out: Path | None = None              # ROOT of ROOT/<judge>/; None: <[run] output_dir>/calibration


def run_calibrate_verb(args: CalibrateArgs) -> int:
    """The verb: estimate, or calibrate and print the table (or one JSON object per judge)."""
    from benchmarker.config import load_config

    config = load_config(args.config)
    if args.out is not None:
        check_out_folder(args.out)
    labels, development, judges = list(args.labels), list(args.development), list(args.judges)
    files = with_development(labels, development)
    gold, cases = calibration_gold(PlanSettings.of(config), config.config_path)
    answers = read_labels(files, gold)
    choices = choose_judges(config, judges)
    if args.estimate:
        rows = estimate(answers, choices, config.run.output_dir, args.out)
        print("\n".join(json.dumps(r) for r in rows) if args.json else format_estimate(rows))
        return 0
    summaries = asyncio.run(calibrate(answers, cases, choices, config.run.output_dir, files, development, args.out))
    print("\n".join(json_line(s) if args.json else format_summary(s) for s in summaries))
    return 0


def check_out_folder(out: Path) -> None:
    """`--out` is a folder the calibrations go into: a file, a device or an unwritable place is one line."""
    if out.exists() and not out.is_dir():
        raise UserError(f"calibrate --out {out}: not a folder; give a folder (each judge gets a subfolder in it)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"calibrate --out {out}: cannot create that folder ({err.strerror or err}); "
                        "give a folder you can write") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"calibrate --out {out}: not writable; give a folder you can write")
