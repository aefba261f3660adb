"""Levels L1-L16: generated scenarios graded on their rubric or by the level's own scoring (L13
tool trace, L14 stale values, L15 balance, L16 decisions), with a levels.jsonl line per level."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from statistics import mean
from typing import Any, cast

from benchmarker.config_schema import ThresholdsConfig
from benchmarker.datasets.schema import Case, Question
from benchmarker.datasets.source import CaseGroup, DatasetPlan
from benchmarker.log.lines import DecisionLine, Json, ResultLine
from benchmarker.log.records import LevelRecord
from benchmarker.log.store import RunLog
from benchmarker.reporting.section_spec import Lines, Section
from benchmarker.reporting.suite_parts import Record, SuiteReporting
from benchmarker.scoring.mean_scores import mean_score_table
from benchmarker.suites.base import Suite
from benchmarker.suites.levels.data import LEVEL_IDS, build_level
from benchmarker.suites.levels.data.spec import rubric
from benchmarker.suites.levels.options import LevelsOptions
from benchmarker.suites.levels.scoring import score_decision, score_forgetting, score_level
from benchmarker.suites.levels.shapes import DecisionScore, ForgettingScore
from benchmarker.suites.parts import AdversaryPolicy, CaseProtocol, DataSource
from benchmarker.suites.rubric import ScoreRow, score_on_rubric, score_table
from benchmarker.suites.scorer import Scorer
from benchmarker.suites.settings import PlanSettings

RUBRIC_LEVEL = "rubric"   # only levels scored question by question on their rubric take new questions
NOTE = ("mean score = mean rubric score of the level's questions; level score = the level's own scoring (L13 tool "
        "trace, L14 stale-value penalty, L15 harmonic mean of control accuracy and abstention, L16 decision); LLM "
        "dimensions are graded only with a judge model")


def _rubric_level(case: Case) -> bool:
    """Levels scored question by question on their rubric (not L13's tool trace, L14-L16's own scoring)."""
    return build_level(case.metadata["level_id"], case.metadata["seed"]).scoring == RUBRIC_LEVEL


def _level_rubric(answer: str, abstain: bool) -> dict[str, Any]:
    return rubric(abstain=True) if abstain else rubric([[answer]])


NAME, RECORD_KIND = "levels", "level"


def plan(settings: PlanSettings, run_dir: Path) -> DatasetPlan:
    seeds = list(settings.dataset.seeds) or [settings.dataset.seed]
    groups, levels = [], LevelsOptions.of(settings.dataset).levels
    for level_id in levels:
        specs = [build_level(level_id, seed) for seed in seeds]
        n = sum(len(spec.case.questions) for spec in specs)
        groups.append(CaseGroup(f"level_{level_id}", n, partial(_cases_of, specs)))
    return DatasetPlan(groups, None, None, f"levels {list(levels)}, seeds {seeds}")


def question_score(case: Case, question: Question, hypothesis: str,
                   thresholds: ThresholdsConfig) -> ForgettingScore | DecisionScore | None:
    """L14 / L16 per-question scoring replaces the plain rubric score."""
    level = case.metadata.get("level_id")
    if level == "L14":
        return score_forgetting(question, hypothesis, thresholds=thresholds)
    if level == "L16":
        return score_decision(question, hypothesis, thresholds=thresholds)
    return None


def score_case(case: Case, log: RunLog, *, default_cadence: int,
               thresholds: ThresholdsConfig | None = None) -> LevelRecord | None:
    """The level's own score (L13 tool trace, L15 balance, ...) from what `log` holds; None while
    some question has no result, when the level's line is already written, or for an adversarial
    round's questions (a killed run's missing line is written from the level's own questions).
    L13 is scored against the cadence the agent was told, on the agent's calls into the case's
    finished memory only."""
    results = log.done.judged
    if any(q.evidence.get("round") for q in case.questions):
        return None
    if case.case_id in log.done.levels or any(q.question_id not in results for q in case.questions):
        return None
    memory = log.done.memories.get(case.case_id)
    if memory is not None and memory.get("agent"):  # an outside agent: its latest learning's calls, no ids of ours
        tool_calls = [c for c in log.agent_tool_calls(case.case_id) if c.get("attempt") in (None, memory.attempt)]
        memory = None
    else:
        tool_calls = log.agent_tool_calls(case.case_id, memory.memory_id if memory else None)
    cadence = (memory.context_cadence if memory is not None else None) or default_cadence
    spec = build_level(case.metadata["level_id"], case.metadata["seed"], context_cadence=cadence)
    answers = {q.question_id: results[q.question_id].hypothesis for q in case.questions}
    bindings = {"vault_id": memory.vault_id if memory else None, "memory_id": memory.memory_id if memory else None}
    scored = score_level(spec, answers, decisions=[cast(DecisionLine, d.to_line()) for d in tool_calls], bindings=bindings,
                         thresholds=thresholds)
    return LevelRecord(case_id=case.case_id, level=spec.level_id, title=spec.title, context_cadence=cadence,
                       **scored)


def summarise(results: Sequence[ResultLine], *, level_scores: Sequence[Mapping[str, Json]]) -> Record:
    levels = [r for r in results if r.get("kind") == RECORD_KIND]
    by_level: dict[str, ScoreRow] = {k: {"n": v["n"], "mean_score": v["mean_score"]}
                                     for k, v in mean_score_table(levels, "level").items()}
    for name, cells in _level_scores(level_scores).items():
        by_level.setdefault(name, {"n": 0, "mean_score": 0.0}).update(cells)
    scores = [score for v in by_level.values() if (score := v.get("level_score")) is not None]
    headline = (f"mean level score {mean(scores):.3f} over {len(scores)} levels" if scores else "no scores")
    covers = sorted({c for r in levels for c in ((r.get("rubric") or {}).get("overall_covers") or [])})
    for name, cells in by_level.items():  # the level's name beside its id (L7 is "Teaching")
        if name in LEVEL_IDS:
            cells.setdefault("title", build_level(name, 0).title)
    ordered = sorted(by_level.items(), key=lambda kv: int(kv[0][1:]) if kv[0][1:].isdigit() else 99)
    return {NAME: {"by_level": dict(ordered), "by_category": mean_score_table(levels, "category"),
                        "headline": headline, "score_covers": covers, "note": NOTE}}


def report_sections(summary: Record) -> list[Section]:
    block = summary.get(NAME)
    if not block:
        return []
    return [Section("Levels L1-L16", (score_table(block["by_level"], "level"), Lines((block["note"],)),
                                      score_table(block["by_category"], "category")))]


def console_rows(summary: Record) -> list[tuple[str, str]]:
    block = summary.get(NAME)
    return [("levels", block["headline"])] if block and block.get("headline") else []


def retrieval_evidence(case: Case, question: Question) -> bool:
    """An adversarial round's question names the turns it was written from."""
    return bool(question.evidence.get("round"))


def _level_scores(lines: Sequence[Mapping[str, Json]]) -> dict[str, ScoreRow]:
    """Mean of each level's own score over its seeds (one levels.jsonl line per level and seed)."""
    groups: dict[str, list[Mapping[str, Json]]] = defaultdict(list)
    for line in lines:
        groups[str(line.get("level"))].append(line)
    return {name: {"level_score": round(mean(_number(line["score"]) for line in ls), 4),
                   "scoring": _text(ls[0].get("scoring")), "seeds": len(ls)} for name, ls in groups.items()}


def _number(value: Json) -> float:
    """A levels.jsonl line's score (LevelRecord: a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a levels.jsonl score is a number, not {value!r}")
    return float(value)


def _text(value: Json) -> str | None:
    return None if value is None else str(value)


SUITE = Suite(
    name=NAME,
    record_kinds=(RECORD_KIND,),
    data=DataSource(plan, options=LevelsOptions),
    scorer=Scorer(score=partial(score_on_rubric, question_score=question_score), score_case=score_case,
                  retrieval_evidence=retrieval_evidence),
    reporting=SuiteReporting(multi_seed=True, summarise=summarise, report_sections=report_sections,
                             console_rows=console_rows),
    protocol=CaseProtocol(reads_agent_trace=True,
                          replay_refusal="scores the agent's own tool calls and decisions (L13's tool trace, "
                                         "L16's decision), which a replay of its writes does not make"),
    adversary=AdversaryPolicy(aimable=_rubric_level, rubric=_level_rubric),
)


def _cases_of(specs: list[Any]) -> list[Case]:
    """A level group's cases, one per seed (re-iterable: the group is planned once, streamed per pass)."""
    return [spec.case for spec in specs]
