"""LangSmith tracing of a real run and `judge-online` over what it traced, against the real
`langsmith` client talking to a local LangSmith fake (tests/fakes/langsmith_server.py): no network.

One small agent-mode run (offline models, embedded memory) is traced for the whole module; the
tests read what arrived: the ingestion turns as `memory_extraction` runs with their metadata,
the model and tool calls under them, no secret anywhere in what was sent; then judge-online
reads those runs back by tag and time window and posts feedback."""

from __future__ import annotations

import json
import os
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import langsmith
import pytest
from langsmith._internal._beta_decorator import LangSmithDeprecationWarning  # what langsmith's deprecations raise

from benchmarker.agent.tracing import RunTracing, scrub
from benchmarker.cli import main
from tests.e2e.cli import read_lines
from tests.fakes.langsmith_server import FakeLangSmith
from tests.verbs.judge_online.support import SMALL_RUN as RUN

pytestmark = pytest.mark.xdist_group("tracing")  # one worker builds the module fixture once

LS_KEY = "lsv2-test-key-0123456789"
OPENAI_SECRET = "sk-never-in-a-trace-987654321"


def _clear_langsmith_env_cache() -> None:
    langsmith.utils.get_env_var.cache_clear()
    langsmith.utils.get_tracer_project.cache_clear()


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """(fake LangSmith, run directory) of one run traced into project "bench-traces"."""
    folder = tmp_path_factory.mktemp("traced")
    with FakeLangSmith(compression=False) as ls, pytest.MonkeyPatch.context() as env:
        for name in list(os.environ):
            if name.startswith(("LANGSMITH_", "LANGCHAIN_")):
                env.delenv(name)
        env.setenv("LANGSMITH_API_KEY", LS_KEY)
        env.setenv("OPENAI_API_KEY", OPENAI_SECRET)   # a credential of this process: must never be sent
        _clear_langsmith_env_cache()
        config = folder / "traced.toml"
        config.write_text(RUN + f'[tracing]\nlangsmith = true\nproject = "bench-traces"\ntags = ["nightly"]\n'
                                f'endpoint = "{ls.url}"\n', encoding="utf-8")
        assert main(["run", str(config)]) == 0
        (run_dir,) = (folder / "runs").glob("traced-*")
        yield ls, run_dir, folder
        _clear_langsmith_env_cache()


def extraction_runs(ls: FakeLangSmith) -> list[dict]:
    return ls.runs_named("memory_extraction")


def test_every_ingestion_turn_is_a_memory_extraction_run_with_its_labels(traced):
    ls, run_dir, _ = traced
    turns = [d for d in read_lines(run_dir / "decisions.jsonl") if d["caller"] == "agent"]
    runs = extraction_runs(ls)
    data = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
    cases = {m["case_id"] for m in read_lines(run_dir / "memories.jsonl")}
    messages = sum(len(s) for q in data if q["question_id"] in cases for s in q["haystack_sessions"])
    assert len(runs) == messages and turns  # ingest_unit "message": one turn per message
    run_id = run_dir.name
    for run in runs:
        meta = run["extra"]["metadata"]
        assert {"memory_extraction", "nightly"} <= set(run["tags"])
        assert (meta["run_id"], meta["phase"], meta["role"]) == (run_id, "ingest", "agent")
        assert meta["case_id"] in cases and meta["session_id"] and isinstance(meta["turn_index"], int)
        assert run["inputs"]["conversation"][0]["content"] and "existing_memory" in run["inputs"]
        assert "extracted_output" in run["outputs"] and run["parent_run_id"] is None
    # the offline agent stores each message: its turn's output is one entry, and the memory grows
    assert all(len(r["outputs"]["extracted_output"]) == 1 for r in runs)
    by_case = {}
    for run in sorted(runs, key=lambda r: r["dotted_order"]):
        by_case.setdefault(run["extra"]["metadata"]["case_id"], []).append(len(run["inputs"]["existing_memory"]))
    assert all(sizes[:3] == [0, 1, 2] for sizes in by_case.values())


def test_model_and_tool_calls_are_traced_under_their_phase(traced):
    ls, run_dir, _ = traced
    roots = {r["id"] for r in extraction_runs(ls)}
    children = [r for r in ls.runs.values() if r["parent_run_id"] in roots]
    assert {r["run_type"] for r in children} >= {"chain"}  # the agent graph under each turn
    llm = [r for r in ls.runs.values() if r["run_type"] == "llm"]
    tools = [r for r in ls.runs.values() if r["run_type"] == "tool"]
    phases = {(r["extra"]["metadata"].get("phase"), r["extra"]["metadata"].get("role")) for r in llm}
    assert {("ingest", "agent"), ("qa", "qa")} <= phases  # memory agent and reader
    assert {"add_entry", "search_memories"} <= {r["name"] for r in tools}  # agent's write, harness's search
    qa = [r for r in llm if r["extra"]["metadata"].get("phase") == "qa"]
    answered = {a["question_id"] for a in read_lines(run_dir / "answers.jsonl")}
    assert {r["extra"]["metadata"]["question_id"] for r in qa} == answered


def test_no_secret_reaches_a_trace(traced):
    ls, _, _ = traced
    sent = b"".join(body for _, _, _, body in ls.requests)
    assert sent and OPENAI_SECRET.encode() not in sent and LS_KEY.encode() not in sent
    assert ls.api_keys_seen == {LS_KEY}  # the key travels only as the API's own header


def test_scrub_masks_credentials_anywhere():
    os.environ["SCRUB_TEST_TOKEN"] = "tok-abcdefgh-12345"
    try:
        out = scrub({"api_key": "x", "url": "https://bob:hunter2@host/v1?api_key=zzz",
                     "text": ["Bearer abcdefghijklmnop", "uses tok-abcdefgh-12345 inside"], "n": 3})
    finally:
        del os.environ["SCRUB_TEST_TOKEN"]
    flat = json.dumps(out)
    assert "hunter2" not in flat and "zzz" not in flat and "abcdefghijklmnop" not in flat
    assert "tok-abcdefgh-12345" not in flat and out["api_key"] == "***" and out["n"] == 3


def test_the_report_links_to_the_project_and_the_manifest_says_where(traced):
    _, run_dir, _ = traced
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["tracing"]["project"] == "bench-traces" and manifest["tracing"]["cases_traced"] == 2
    report = (run_dir / "report.md").read_text()
    assert "## Traces" in report and "bench-traces" in report and LS_KEY not in json.dumps(manifest)


def test_tracing_off_sends_nothing_even_with_langsmith_tracing_in_the_environment(tmp_path, monkeypatch):
    untraced_run(tmp_path, monkeypatch)


def untraced_run(tmp_path, monkeypatch) -> Path:
    """The module's run with tracing off but LANGSMITH_TRACING on: the fake must receive nothing."""
    with FakeLangSmith() as ls:
        monkeypatch.setenv("LANGSMITH_TRACING", "true")
        monkeypatch.setenv("LANGCHAIN_TRACING_V2", "true")
        monkeypatch.setenv("LANGSMITH_ENDPOINT", ls.url)
        monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
        _clear_langsmith_env_cache()
        try:
            config = tmp_path / "untraced.toml"
            config.write_text(RUN, encoding="utf-8")
            assert main(["run", str(config)]) == 0
        finally:
            _clear_langsmith_env_cache()
        assert ls.requests == [] and ls.runs == {}
    return config


def test_tracing_changes_no_answer(traced, tmp_path, monkeypatch):
    _, run_dir, _ = traced
    config = untraced_run(tmp_path, monkeypatch)
    (untraced,) = (config.parent / "runs").glob("untraced-*")
    answers = [{r["question_id"]: (r["hypothesis"], r["label"]) for r in read_lines(d / "results.jsonl")}
               for d in (run_dir, untraced)]
    assert answers[0] == answers[1] and len(answers[0]) == 2


def test_sampling_traces_whole_cases_and_the_same_ones_again():
    tracing = RunTracing(client=None, project="p", run_id="r1", sample_rate=0.3)
    chosen = {f"case-{i}" for i in range(400) if tracing.sampled(f"case-{i}")}
    assert 80 <= len(chosen) <= 160 and chosen == {f"case-{i}" for i in range(400) if tracing.sampled(f"case-{i}")}


def test_judge_online_reads_the_traced_runs_by_tag_and_window_and_posts_feedback(traced, monkeypatch):
    ls, run_dir, folder = traced
    monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
    old = ls.add_run(project_name="bench-traces", name="memory_extraction", tags=["memory_extraction"],
                     start_time=datetime.now(timezone.utc) - timedelta(days=30),
                     inputs={"conversation": [{"role": "user", "content": "I moved to Lyon."}]},
                     outputs={"extracted_output": ["The user moved to Lyon"]})
    ls.add_run(project_name="bench-traces", name="other", tags=["unrelated"],
               inputs={"conversation": "My budget is 3000 dollars."}, outputs={"extracted_output": []})
    config = folder / "online.toml"
    config.write_text(f'[online]\nsource = "langsmith"\nsince = "7d"\npost_feedback = true\n'
                      f'[tracing]\nproject = "bench-traces"\nendpoint = "{ls.url}"\n[provider]\ntype = "offline"\n'
                      '[run]\nconcurrency = 4\nprogress = false\noutput_dir = "judged"\n', encoding="utf-8")
    with warnings.catch_warnings():  # no deprecated langsmith call (list_runs goes after 2027-01-31)
        warnings.simplefilter("error", LangSmithDeprecationWarning)
        assert main(["judge-online", str(config)]) == 0
    assert [p for _, p, _, _ in ls.requests if p.endswith("/runs/query")] == ["/api/v2/runs/query"]
    (out,) = (folder / "judged").glob("online-*")
    lines = read_lines(out / "online.jsonl")
    traced_ids = {r["id"] for r in extraction_runs(ls)} - {old["id"]}
    assert {line["id"] for line in lines} == traced_ids  # the tag, inside the window, roots only
    assert all(line["run_id"] == run_dir.name and line["feedback_posted"] for line in lines)
    posted = ls.wait_for_feedback(3 * len(lines))
    assert {f["key"] for f in posted} == {"memory_extraction_precision", "memory_extraction_recall",
                                          "memory_extraction_f1"}
    assert {str(f["run_id"]) for f in posted} == traced_ids
    before = (out / "online.jsonl").read_bytes()
    assert main(["judge-online", str(config)]) == 0  # resumed: nothing judged or posted again
    assert (out / "online.jsonl").read_bytes() == before and len(ls.feedback) == len(posted)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judged"] == len(lines) and summary["micro"]["recall"] == 1.0

