"""The run graph, assembled where every node and edge is visible at a glance.

    run graph:   START -> setup -> cases | level_L1 ... level_L16 -> [adversary] -> [analyst] -> [graders]
                 -> [self_improve] -> summarise -> END
    case graph:  START -> prepare_memory -> ingest -> qa -> score -> END
                                                  \\-> read_back -> score   (fact extraction)
    an outside agent (graph/agent_case.py): START -> converse -> score -> END

One case = one memory. `cases` streams cases from the dataset (bounded memory, even for the
2.7 GB M file) and runs the case graph on up to `[run].concurrency` of them at once; never two
sessions of one case at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from benchmarker.agent.batch.slot import case_slot
from benchmarker.datasets.schema import Case
from benchmarker.errors import RunAbortedError
from benchmarker.graph.context import RunContext
from benchmarker.graph.facts import read_back
from benchmarker.graph.ingest import ingest
from benchmarker.graph.memory_setup import prepare_memory
from benchmarker.graph.qa import qa
from benchmarker.graph.scoring import score_answers
from benchmarker.graph.setup import setup
from benchmarker.graph.state import CaseState, RunState, Setup
from benchmarker.graph.summarise import summarise
from benchmarker.log.safe_open import UnsafePathError


def after_ingest(state: CaseState, runtime: Runtime[RunContext]) -> str:
    """A suite whose cases have no questions (fact extraction) reads back what was written instead."""
    return "read_back" if runtime.context.suite.protocol.reads_back else "qa"


def build_case_graph():
    graph = StateGraph(CaseState, context_schema=RunContext)
    graph.add_node("prepare_memory", prepare_memory)
    graph.add_node("ingest", ingest)
    graph.add_node("qa", qa)
    graph.add_node("read_back", read_back)
    graph.add_node("score", score_answers)
    graph.add_edge(START, "prepare_memory")
    graph.add_edge("prepare_memory", "ingest")
    graph.add_conditional_edges("ingest", after_ingest, ["qa", "read_back"])
    graph.add_edge("qa", "score")
    graph.add_edge("read_back", "score")
    graph.add_edge("score", END)
    return graph.compile(name="case")


CASE_GRAPH = build_case_graph()


async def run_cases(cases: Iterable[Case], ctx: RunContext, setup: Setup) -> tuple[list[str], list[str]]:
    """Run each case through the executor (here, or on a Ray worker), `concurrency` at a time; stop the
    run when `[run].max_failures_in_a_row` cases fail one after another (a dead server, a revoked key)."""
    limit = ctx.run.concurrency
    max_failures = ctx.run.max_failures_in_a_row
    semaphore = asyncio.Semaphore(limit)
    done: list[str] = []
    skipped: list[str] = []
    failures_in_a_row = 0

    async def one(case: Case) -> None:
        nonlocal failures_in_a_row
        case_slot.set(semaphore)  # a case waiting on a batch ([batch]) lets another case run meanwhile
        try:
            final = await ctx.executor.run_case(case, ctx, setup)
        except asyncio.CancelledError:  # the run is stopping (Ctrl-C, a lost memory server): the runner says why
            ctx.log.interrupted.add(case.case_id)
            raise
        except RunAbortedError as err:  # systematic already (e.g. the judge failed N answers in a row)
            ctx.log.log_error(case.case_id, err)
            raise
        except UnsafePathError:  # a run file the harness must not write (a planted link): every case would fail on it
            raise
        except Exception as err:  # one bad case must not cost the rest of a paid run
            failures_in_a_row += 1
            ctx.log.log_error(case.case_id, err)
            skipped.append(case.case_id)
            ctx.progress.question_done(f"{case.case_id} FAILED: {type(err).__name__}: {err}",
                                       len(case.questions) or 1, case_id=case.case_id)
            if failures_in_a_row >= max_failures:
                raise RunAbortedError(f"{failures_in_a_row} cases failed in a row; last error: {err}") from err
            return
        finally:
            ctx.log.release_trace(case.case_id)
            semaphore.release()
        failures_in_a_row = 0
        if final.get("skipped"):
            skipped.append(case.case_id)
            ctx.progress.question_done(f"{case.case_id} skipped: {final['skipped']}", len(case.questions) or 1,
                                       case_id=case.case_id)
        else:
            done.append(case.case_id)
            ctx.progress.question_done(_case_label(case, final), len(case.questions) or 1, case_id=case.case_id)

    async with asyncio.TaskGroup() as group:
        for case in cases:
            await semaphore.acquire()  # back-pressure: at most `limit` cases held in memory
            group.create_task(one(case))
    return done, skipped


def _case_label(case: Case, final: CaseState) -> str:
    results = final.get("results") or []
    if len(results) == 1 and results[0].label is not None:
        return f"{case.case_id}: {'correct' if results[0].label else 'wrong'}"
    return f"{case.case_id}: done"


def cases_node(name: str, source: Callable[[], Iterable[Case]]):
    """A node that runs the case graph over `source()`; levels get one such node each."""

    async def node(state: RunState, runtime: Runtime[RunContext]) -> RunState:
        done, skipped = await run_cases(source(), runtime.context, state["setup"])
        return {"cases_done": done, "cases_skipped": skipped}

    node.__name__ = name
    return node


class LocalExecutor:
    """Cases run in this process: each in its memory's own scope (a mapped server's per-case scope or
    process), through the subject's case graph."""

    def __init__(self, case_graph: Any, cases: Callable[[], Iterable[Case]]):
        self.case_graph = case_graph
        self._cases = cases

    def cases(self) -> Iterable[Case]:
        return self._cases()

    async def run_case(self, case: Case, ctx: RunContext, setup: Setup) -> CaseState:
        async with ctx.memory.for_case(case, ctx.log, ctx.memory_place()) as memory:
            case_ctx = ctx if memory is ctx.memory else dataclasses.replace(ctx, memory=memory)
            return await self.case_graph.ainvoke({"case": case, "setup": setup}, context=case_ctx)


def build_run_graph(case_nodes: list[tuple[str, Callable[[], Iterable[Case]]]], *,
                    self_improve_node: Callable | None = None,
                    adversary_node: Callable | None = None, graders_node: Callable | None = None,
                    analyst_node: Callable | None = None):
    """setup -> one node per case group (in order) -> [adversary] -> [analyst] -> [graders] ->
    [self_improve] -> summarise."""
    graph = StateGraph(RunState, context_schema=RunContext)
    graph.add_node("setup", setup)
    graph.add_edge(START, "setup")
    previous = "setup"
    for name, source in case_nodes:
        graph.add_node(name, cases_node(name, source))
        graph.add_edge(previous, name)
        previous = name
    if adversary_node is not None:  # harder questions against the same memories (graph/adversary.py)
        graph.add_node("adversary", adversary_node)
        graph.add_edge(previous, "adversary")
        previous = "adversary"
    if analyst_node is not None:  # a model explains each wrong answer's diagnosis (graph/analyst.py)
        graph.add_node("analyst", analyst_node)
        graph.add_edge(previous, "analyst")
        previous = "analyst"
    if graders_node is not None:  # extra scores from named perspectives (graph/graders.py)
        graph.add_node("graders", graders_node)
        graph.add_edge(previous, "graders")
        previous = "graders"
    if self_improve_node is not None:
        graph.add_node("self_improve", self_improve_node)
        graph.add_edge(previous, "self_improve")
        previous = "self_improve"
    graph.add_node("summarise", summarise)
    graph.add_edge(previous, "summarise")
    graph.add_edge("summarise", END)
    return graph.compile(name="run")
