"""The files a finished results directory gets: summary.json, report.{md,html}, plots, and
LongMemEval's own evaluation outputs, computed from the run directory's files alone.

The run graph's `summarise` node, `report RUN_DIR` and `score RUN_DIR CONFIG` all call this, so a
report can be rebuilt (or a finished run re-summarised after a metrics fix) without re-running
anything.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from benchmarker.errors import UserError
from benchmarker.log.decision_facts import decision_facts
from benchmarker.log.json_limits import load_json
from benchmarker.log.jsonl import (
    latest_by,
    read_decisions,
    read_json_object,
    read_jsonl,
    read_lines,
    read_memories,
    write_json_atomic,
    write_text_atomic,
)
from benchmarker.log.lines import ErrorLine, Manifest
from benchmarker.reporting.oracle_block import attribution_and_oracle
from benchmarker.reporting.run_meta import RunMeta
from benchmarker.reporting.suite_parts import SuiteLookup, suites_of_results
from benchmarker.reporting.summary_file import (
    BlockModels,
    SummaryShapeError,
    block_models,
    summary_from_blocks,
    write_summary_file,
)
from benchmarker.reporting.summary_model import RunSummary, load_summary
from benchmarker.scoring.records import checked_results

if TYPE_CHECKING:
    from benchmarker.agent.ledger import LedgerSnapshot
    from benchmarker.reporting.sweep import SweepBest, SweepTable

log = logging.getLogger(__name__)


class SweepFiles(TypedDict):
    """write_sweep_files(): the table sweep.json holds and its best point (None: no point has a value)."""

    sweep: SweepTable
    best: SweepBest | None

# summary.run keys the run graph wrote (its search settings): a rebuild keeps them as written.
# What `report` keeps from the run's own summary.json: the search settings, and what only the run could
# compute (the memory agent's cost floor for its cases, its writing mode, the attempt's wall time).
RUN_KEYS_KEPT = ("point", "top_k", "alpha", "floor", "memory_agent", "write_tool", "wall_s")
# The memory fields a summary names (MemoryDriver.describe); the manifest also says where the server ran
# (transport, url, port), which is not a result, so `report` leaves it out as `run` does.
SUMMARY_MEMORY_KEYS = ("backend", "embedder", "alpha", "server", "mapping", "scope", "lacks")


def write_outputs(answers_dir: Path, run_dir: Path, run_meta: RunMeta,
                  suites: SuiteLookup) -> tuple[RunSummary, Path]:
    """summary.json + report.{md,html} + plots for one results directory; summary.json is written from the
    returned RunSummary (reporting/summary_file.py)."""
    from benchmarker.reporting.report import write_report
    from benchmarker.reporting.sections import extra_sections, suite_summaries
    from benchmarker.reporting.summary import summary_blocks

    _rewrite_hypotheses(answers_dir)
    every_round = latest_by(checked_results(answers_dir / "results.jsonl"), "question_id")
    results = [r for r in every_round if not r.get("round")]  # the main metrics: the dataset's own questions
    # The speed block reads latencies only: not every written text at once (~700 MB on a LongMemEval_S run).
    decisions = list(decision_facts(run_dir / "decisions.jsonl"))
    run_meta = _manifest_facts(run_dir) | run_meta
    errors = list(read_lines(answers_dir / "errors.jsonl", ErrorLine))  # a case that failed on a lagging index is counted
    summary = summary_blocks(results, run_meta={**run_meta, "decisions": decisions, "errors": errors}, suites=suites)
    level_scores = latest_by(read_jsonl(answers_dir / "levels.jsonl"), "case_id")
    summary.update(suite_summaries(results, run_dir=run_dir, suites=suites, level_scores=level_scores,
                                   thresholds=run_meta.get("thresholds")))
    from benchmarker.reporting.rounds import adversary_ran, rounds_block

    if len(results) < len(every_round) or adversary_ran(run_dir):  # adversarial rounds, asked or not (graph/adversary.py)
        summary["rounds"] = rounds_block(every_round, run_dir)
    if run_meta.get("graders"):
        from benchmarker.scoring.graders import graders_block

        summary["graders"] = graders_block(answers_dir, tuple(run_meta["graders"]), run_meta.get("graders_note", ""))
    if run_meta.get("analyst"):
        from benchmarker.scoring.analyst import (
            EXPLAIN_FILE,
            ExplanationLine,
            analyse,
            attach_explanations,
            finished_memories,
        )

        block = analyse(every_round, read_decisions(run_dir / "decisions.jsonl"),  # read again, line by line
                        finished_memories(read_memories(run_dir / "memories.jsonl")))
        summary["analyst"] = attach_explanations(block, read_lines(answers_dir / EXPLAIN_FILE, ExplanationLine))
    summary.update(attribution_and_oracle(results, read_decisions(run_dir / "decisions.jsonl"), answers_dir,
                                          run_meta.get("write_tool")))  # streamed: it keeps evidence sessions only
    from benchmarker.scoring.validity import validity_block

    summary["validity"] = validity_block(answers_dir, run_dir)  # is this number a score? (scoring/validity.py)
    from benchmarker.reporting.baselines_report import baselines_block

    summary.update(baselines_block(results, answers_dir))  # after `baselines RUN_DIR`: is memory needed here?
    if results:  # what each reader saw, in tokens, and what top_k and the budget cut (reporting/budget.py)
        from benchmarker.reporting.budget import budget_block

        summary["budget"] = budget_block(results)
    from benchmarker.scoring.judge_sensitivity import judge_sensitivity

    if sensitivity := judge_sensitivity(answers_dir):  # judged again by `score` (scores/<judge>/): do the judges agree?
        summary["judge_sensitivity"] = sensitivity
    from benchmarker.scoring.calibration.store import find_calibration

    calibration = find_calibration(run_dir, results, run_meta.get("thresholds"))
    if calibration:  # how far this judge agrees with published labels (`calibrate`)
        summary["judge_calibration"] = calibration
    typed = _written_summary(answers_dir / "summary.json", summary, block_models(suites_of_results(suites, results)))
    for suite in suites_of_results(suites, results):
        suite.reporting.write_official_outputs(answers_dir, [r for r in results if r.get("kind") in suite.record_kinds])
    # the report renders what the file holds
    write_report(answers_dir, typed, results, suites=suites, extra_sections=extra_sections(typed, suites))
    return typed, answers_dir / "report.html"


def _written_summary(path: Path, blocks: dict[str, Any], models: BlockModels) -> RunSummary:
    """summary.json written from the RunSummary of `blocks` (what `report`, `compare` and `view` read back).
    A block off its model is our own bug, found after the run paid for its answers: the blocks are written as
    computed (the one write not from the model), loudly, and the summary returned lacks the broken blocks."""
    try:
        summary = summary_from_blocks(blocks, models)
    except SummaryShapeError as err:
        log.warning("summary.json does not match its documented shape (RunSummary); written anyway, please report "
                    "it: %s", err)
        write_json_atomic(path, blocks)
        readable = dict(blocks)
        while True:
            try:
                return summary_from_blocks(readable, models)
            except SummaryShapeError as broken:
                if broken.key.split(".")[0] not in readable:
                    raise
                readable.pop(broken.key.split(".")[0])
    write_summary_file(path, summary)
    return summary


def rebuild_outputs(run_dir: Path, suites: SuiteLookup) -> Path:
    """The `report` verb: recompute every summary and report from the files on disk."""
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.exists():
        raise UserError(f"{run_dir}: no manifest.json; is this a run directory?")
    try:
        manifest = load_json(manifest_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise UserError(f"{manifest_path}: not valid JSON ({err}); `run` writes it: run the same command again "
                        "to rewrite it, or restore it") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{manifest_path}: not a JSON object; `run` writes it: run the same command again") from None
    # the manifest's "config" block holds the config as run under its own "config" key
    config = manifest.get("config", {}).get("config", {})
    meta: RunMeta = {"run_id": manifest.get("run_id"), "offline": manifest.get("models", {}).get("offline", False),
            "mode": config.get("run", {}).get("mode", "agent"),
            "judge": manifest.get("judge", {}).get("kind"), "tokens": _tokens(run_dir, manifest, config),
            "dataset_kind": manifest.get("dataset", {}).get("kind"),
            "thresholds": (manifest.get("thresholds") or {}).get("eval")}
    if manifest.get("memory"):  # what the run's summary said, else the manifest's backend fields (not where it ran)
        meta["memory"] = (_written_run(run_dir).get("memory")
                          or {k: v for k, v in manifest["memory"].items() if k in SUMMARY_MEMORY_KEYS})
    if (config.get("multi_agent") or {}).get("analyst"):
        meta["analyst"] = True
    if (config.get("multi_agent") or {}).get("graders"):
        meta["graders"] = list(config["multi_agent"]["graders"])
    if (manifest.get("tracing") or {}).get("langsmith"):
        meta["tracing"] = manifest["tracing"]
    if manifest.get("replay"):
        agent = (manifest.get("tokens") or {}).get("roles", {}).get("agent") or {}
        meta["replay"] = manifest["replay"] | {"agent_calls": agent.get("calls", 0)}
    points = sorted(p for p in (run_dir / "points").glob("*") if p.is_dir()) if (run_dir / "points").exists() else []
    if not points:
        return write_outputs(run_dir, run_dir, _search_meta(run_dir, config, "") | meta, suites)[1]
    results = []
    for point in points:
        summary, _ = write_outputs(point, run_dir, _search_meta(point, config, point.name) | meta, suites)
        results.append((point.name, point, summary))
    write_sweep_files(run_dir, results, config.get("sweep") or {}, suites)
    return run_dir / "report.html"


def _tokens(run_dir: Path, manifest: dict[str, Any], config: dict[str, Any]) -> LedgerSnapshot | None:
    """What the run's model calls cost: from its ledger journal (ledger.jsonl, written as the tokens were
    spent, so a run killed mid-way still reports every attempt), else the manifest's snapshot."""
    from benchmarker.agent.ledger import JOURNAL_FILE, TokenLedger, journal_totals

    journaled = journal_totals(read_jsonl(run_dir / JOURNAL_FILE))
    if journaled is None:
        return manifest.get("tokens") or None  # usage_blocks.py's cost_block reads None as no ledger
    factor = (config.get("batch") or {}).get("price_factor", 0.5)
    # the manifest's tokens may be an older version's: both are read as JSON (reporting/usage_blocks.py cost_block)
    return TokenLedger(prices=config.get("prices") or {}, earlier=journaled, batch_factor=factor).snapshot()


def _search_meta(answers_dir: Path, config: dict[str, Any], point: str) -> RunMeta:
    """point, top_k and alpha of one results directory: what its summary.json already says (the run
    wrote them), else what the config as run and the point's label say (as `sweep_points` derives them)."""
    from benchmarker.reporting.sweep import SERVICE_ALPHA, parse_point_label

    search_alpha = config.get("memory", {}).get("search_alpha", -1.0)
    derived: RunMeta = {"point": point, "top_k": config.get("params", {}).get("top_k"),
                        "alpha": search_alpha if search_alpha is not None and search_alpha >= 0 else None}
    if point:
        alpha, derived["top_k"] = parse_point_label(point)
        derived["alpha"] = None if alpha == SERVICE_ALPHA else alpha
    written = _written_run(answers_dir)
    # the keys the run wrote to its `run` block are RunMeta's (summary.py copies run_meta there)
    return cast(RunMeta, derived | {k: written[k] for k in RUN_KEYS_KEPT if k in written})


def _rewrite_hypotheses(answers_dir: Path) -> None:
    """hypotheses.jsonl (LongMemEval's evaluation input) from answers.jsonl, one line per question.

    It is appended beside each answer while a run goes, so a run killed (or out of disk) between the
    two appends would lose that hypothesis for good; rebuilt here, it always matches the answers."""
    answers = answers_dir / "answers.jsonl"
    if not answers.exists():
        return
    lines = [json.dumps({"question_id": a.get("question_id"), "hypothesis": a.get("hypothesis")}, ensure_ascii=False)
             for a in latest_by(read_jsonl(answers), "question_id")]
    write_text_atomic(answers_dir / "hypotheses.jsonl", "".join(line + "\n" for line in lines))


def _manifest_facts(run_dir: Path) -> RunMeta:
    """When the run started and from which config file, as its manifest says (a report's header names
    both; read here so `run`, `report` and `score` write the same values)."""
    manifest = cast(Manifest, read_json_object(run_dir / "manifest.json"))  # read back as run/runner.py wrote it
    facts: RunMeta = {}
    if started_at := manifest.get("started_at"):
        facts["started_at"] = started_at
    if config := manifest.get("config_path"):
        facts["config"] = config
    return facts


def _written_run(answers_dir: Path) -> dict[str, Any]:
    """The `run` block the run itself wrote to summary.json ({} when there is none yet)."""
    return load_summary(answers_dir / "summary.json").run.as_dict()


def write_sweep_files(run_dir: Path, points: list[tuple[str, Path, RunSummary]],
                      settings: dict[str, Any] | None, suites: SuiteLookup) -> SweepFiles:
    """The comparison table over sweep points and the alpha x top_k heatmap report; `settings` is the
    config's [sweep] table as run (its metric and tie-breakers rank the points)."""
    from benchmarker.reporting.report import write_report
    from benchmarker.reporting.sweep import sweep_table

    table = sweep_table([(label, path, summary.as_dict()) for label, path, summary in points], settings)
    write_json_atomic(run_dir / "sweep.json", table)
    write_text_atomic(run_dir / "sweep.md", table["markdown"])
    best = table["best"]
    best_summary = next((s for label, _, s in points if best and label == best["label"]),
                        points[0][2] if points else RunSummary())
    results = latest_by(checked_results(Path(best["dir"]) / "results.jsonl"), "question_id") if best else []
    write_report(run_dir, best_summary, results, suites=suites, sweep=table["heatmap"],
                 extra_sections=[("Sweep", table["markdown"])])
    return {"sweep": table, "best": best}
