"""Which scope (and so which server folder) a case gets on a mapped server: a finished case reopens
its own; a cut-off one gets a new attempt; a folder left without a logged memory (the process died
between starting the server and logging it) is never reused."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from benchmarker.datasets.schema import Case
from benchmarker.graph.case_scope import SERVERS_DIR, scope_for
from benchmarker.log.records import MemoryRecord
from benchmarker.log.store import RunLog


def context(run_dir: Path, *, per_process: bool = True, phases=("ingest", "qa", "eval")) -> SimpleNamespace:
    return SimpleNamespace(log=RunLog(run_dir), launch=object() if per_process else None, phases=phases,
                           run_id="run1", config=SimpleNamespace(params=SimpleNamespace(
                               memory_title_template="{case_id}__{run_id}")))


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
