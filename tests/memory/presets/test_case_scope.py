"""Which scope (and so which server folder) a case gets on a mapped server: a finished case reopens
its own; a cut-off one gets a new attempt; a folder left without a logged memory (the process died
between starting the server and logging it) is never reused."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from benchmarker.datasets.schema import Case
from benchmarker.log.records import MemoryRecord
from benchmarker.log.store import RunLog
from benchmarker.memory.driver import MemoryPlace
from benchmarker.memory.drivers.mapped import SERVERS_DIR
from benchmarker.memory.drivers.mapped import scope_for as scope_of


class Context:
    """The run log and how a context names a memory: what `scope_for` reads."""

    def __init__(self, run_dir: Path, per_process: bool, phases: tuple[str, ...]):
        self.log = RunLog(run_dir)
        self.per_process = per_process
        self.place = MemoryPlace(run_id="run1", title_template="{case_id}__{run_id}", cadence=6,
                                 can_create="ingest" in phases)


def context(run_dir: Path, *, per_process: bool = True, phases=("ingest", "qa", "eval")) -> Context:
    return Context(run_dir, per_process, tuple(phases))


def scope_for(ctx: Context, case: Case):
    return partial(scope_of, per_process=ctx.per_process)(ctx.log, case, ctx.place)


CASE = Case(case_id="q1", kind="longmemeval", sessions=(), questions=())


def test_a_new_case_gets_attempt_one_in_its_own_folder(tmp_path):
    scope = scope_for(context(tmp_path), CASE)
    assert (scope.title, scope.attempt, scope.directory) == ("q1-run1", 1, tmp_path / SERVERS_DIR / "q1-run1")


def test_a_folder_without_a_logged_memory_is_never_reused(tmp_path):
    (tmp_path / SERVERS_DIR / "q1-run1").mkdir(parents=True)
    (tmp_path / SERVERS_DIR / "q1-run1--a2").mkdir()
    scope = scope_for(context(tmp_path), CASE)
    assert (scope.title, scope.attempt) == ("q1-run1--a3", 3)


def test_a_finished_case_reopens_its_folder_and_a_cut_off_one_moves_on(tmp_path):
    ctx = context(tmp_path)
    ctx.log.append(MemoryRecord(case_id="q1", memory_id="q1-run1", vault_id="", title="q1-run1", attempt=1,
                                status="ingested", ingested=True))
    assert scope_for(ctx, CASE).directory == tmp_path / SERVERS_DIR / "q1-run1"
    other = Case(case_id="q2", kind="longmemeval", sessions=(), questions=())
    ctx.log.append(MemoryRecord(case_id="q2", memory_id="q2-run1", vault_id="", title="q2-run1", attempt=1,
                                status="created"))
    assert scope_for(ctx, other).attempt == 2
    ctx.log.close()


def test_namespace_scopes_have_no_folder_and_a_qa_only_run_starts_nothing(tmp_path):
    assert scope_for(context(tmp_path, per_process=False), CASE).directory is None
    assert scope_for(context(tmp_path, phases=("qa", "eval")), CASE) is None
