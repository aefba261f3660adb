"""`RunSummary` (reporting/summary_model.py): every summary.json the harness writes validates and dumps back to
exactly what was written; `report`, `compare` and the run browser read summary.json through it, and one not
shaped as documented is one line naming the file and the field (exit 2), never a KeyError traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarker.cli import main
from benchmarker.errors import UserError
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import rebuild_outputs
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import RunSummary, load_summary
from tests.run.test_bad_input_round3 import _one_error_line
from tests.scoring.synthetic_run import TYPES, hits_for, result, small_run, write_run


def _same(summary: dict[str, Any]) -> None:
    """The model validates `summary` and dumps it back unchanged: same keys, same values, same JSON types
    (1 stays 1, 1.0 stays 1.0). summary.json is written from the model, which keeps each block's key order
    (tests/reporting/test_summary_written_from_model.py checks the bytes and the order)."""
    model = RunSummary.model_validate(summary)
    dumped = model.model_dump(exclude_unset=True, by_alias=True)
    assert dumped == summary
    assert json.dumps(dumped, sort_keys=True) == json.dumps(summary, sort_keys=True)


def _manifest(run_dir: Path) -> None:
    config = {"run": {"mode": "agent"}, "params": {"top_k": 10}, "memory": {"search_alpha": -1.0}}
    (run_dir / "manifest.json").write_text(json.dumps({
        "run_id": run_dir.name, "started_at": "2024-01-01T10:00:00+00:00", "models": {"offline": True},
        "config": {"config": config}, "memory": {"backend": "embedded", "embedder": "static", "alpha": 0.6},
        "judge": {"kind": "llm"}, "dataset": {"kind": "longmemeval"}}), encoding="utf-8")


@pytest.fixture
def reported_run(tmp_path: Path) -> Path:
    """A run directory `report` has summarised: every block write_outputs adds, the oracle's included."""
    run_dir = write_run(tmp_path / "run", small_run())
    _manifest(run_dir)
    oracle = write_run(run_dir / "oracle", [result(f"q{i}a", t, True) for i, t in enumerate(TYPES)])
    (oracle / "summary.json").write_text(json.dumps(build_summary(
        [result(f"q{i}a", t, True) for i, t in enumerate(TYPES)], run_meta={}, suites=SUITE_LOOKUP).as_dict()))
    rebuild_outputs(run_dir, SUITE_LOOKUP)
    return run_dir


def test_a_reported_run_s_summary_validates_and_round_trips(reported_run: Path) -> None:
    written = json.loads((reported_run / "summary.json").read_text(encoding="utf-8"))
    assert {"attribution", "oracle", "qa", "retrieval", "cost", "speed", "counts", "run"} <= written.keys()
    _same(written)
    summary = load_summary(reported_run / "summary.json")
    assert summary.schema_version == 1 and summary.run_id == "run" and summary.offline is True
    assert summary.qa is not None and summary.qa.overall is not None and summary.qa.overall.n == 13
    assert summary.oracle is not None and summary.oracle.questions == 6
    assert summary.run.memory is not None and summary.run.memory.embedder == "static"
    assert summary.counts is not None and summary.counts.questions == 14


def test_report_rewrites_the_same_bytes_through_the_typed_reader(reported_run: Path) -> None:
    before = (reported_run / "summary.json").read_bytes()
    assert main(["report", str(reported_run)]) == 0
    assert (reported_run / "summary.json").read_bytes() == before


def test_suite_blocks_and_unknown_keys_pass_through(tmp_path: Path) -> None:
    locomo = [result(f"l{i}", "single-hop", i % 2 == 0, kind="locomo") | {"locomo": {"category": 4, "f1": 0.5,
                                                                                      "bleu1": 0.25}}
              for i in range(4)]
    summary = build_summary(locomo, run_meta={"run_id": "l"}, suites=SUITE_LOOKUP).as_dict()
    summary["a_later_block"] = {"x": [1, 2.5, None]}
    _same(summary)
    assert RunSummary.model_validate(summary).model_extra == {k: summary[k] for k in summary
                                                              if k not in RunSummary.model_fields}


def test_a_missing_summary_is_empty_and_a_partial_one_reads(tmp_path: Path) -> None:
    assert load_summary(tmp_path / "summary.json").as_dict() == {}
    (tmp_path / "summary.json").write_text(json.dumps({"run": {"mode": "agent", "alpha": None}}))
    run = load_summary(tmp_path / "summary.json").run
    assert run.mode == "agent" and run.alpha is None and "alpha" in run.model_fields_set and run.top_k is None


_line = st.tuples(st.sampled_from(TYPES), st.sampled_from([True, False, None]), st.booleans(),
                  st.sampled_from(["llm", "deterministic"]), st.integers(1, 12),
                  st.one_of(st.integers(0, 3), st.floats(0, 1, allow_nan=False)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=12), offline=st.booleans(),
       mode=st.sampled_from(["agent", "retrieval"]), alpha=st.one_of(st.none(), st.integers(0, 1), st.floats(0, 1)))
def test_any_built_summary_round_trips_exactly(lines, offline, mode, alpha) -> None:
    results = []
    for i, (qtype, label, found, judge, top_k, usd) in enumerate(lines):
        qid = f"q{i}" + ("_abs" if i % 5 == 4 else "")
        r = result(qid, qtype, label, judge=judge, top_k=top_k, hits=hits_for(qid, found, n=top_k))
        r["cost_usd"] = {"agent": usd, "qa": usd, "eval": None}
        results.append(r)
    meta = {"run_id": "p", "offline": offline, "mode": mode, "alpha": alpha, "top_k": 10,
            "memory": {"backend": "embedded", "embedder": "none", "alpha": 0.5, "lacks": []}}
    _same(build_summary(results, run_meta=meta, suites=SUITE_LOOKUP).as_dict())


def test_a_summary_whose_qa_is_a_string_is_one_line_naming_the_file_and_field(reported_run: Path, capsys) -> None:
    path = reported_run / "summary.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"qa": "all good"}), encoding="utf-8")
    assert main(["compare", str(reported_run), str(reported_run)]) == 2
    line = _one_error_line(capsys)
    assert str(path) in line and "`qa`" in line
    assert main(["report", str(reported_run)]) == 2
    line = _one_error_line(capsys)
    assert str(path) in line and "`qa`" in line
    with pytest.raises(UserError, match=r"summary\.json: `run\.top_k` is not as documented"):
        path.write_text(json.dumps({"run": {"top_k": "ten"}}), encoding="utf-8")
        load_summary(path)
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(UserError, match=r"summary\.json: not valid JSON"):
        load_summary(path)


def test_the_run_browser_shows_a_bad_summary_s_error_not_a_traceback(reported_run: Path) -> None:
    from benchmarker.view.catalog import Catalog
    from benchmarker.view.links import ServerLinks
    from benchmarker.view.listing import ListQuery
    from benchmarker.view.pages import Site

    path = reported_run / "summary.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"qa": "all good"}), encoding="utf-8")
    site = Site(Catalog([reported_run.parent]))
    info = next(i for i in site.infos() if i.ref.id == "run")
    assert info.summary_error and "`qa`" in info.summary_error and info.overall is None
    html = site.run_page(info.ref, ListQuery(), ServerLinks())
    assert "`qa` is not as documented" in html


def test_a_mycelian_stack_s_alpha_is_a_word_not_a_number() -> None:
    # runner.py writes "service default" for a Mycelian stack, whose alpha the harness does not set
    summary = RunSummary.model_validate({"run": {"memory": {"backend": "mcp", "alpha": "service default"}}})
    assert summary.run is not None and summary.run.memory is not None and summary.run.memory.alpha == "service default"


def test_a_summary_off_its_documented_shape_is_still_written_with_a_warning(tmp_path: Path, caplog) -> None:
    # a shape the model does not know (here a memory embedder that is no string) is our bug found after a paid run:
    # every file is kept and the warning asks for a report, instead of the run failing at its last step
    run_dir = write_run(tmp_path / "run", small_run())
    _manifest(run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest["memory"]["embedder"] = {"name": "static"}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with caplog.at_level("WARNING"):
        rebuild_outputs(run_dir, SUITE_LOOKUP)
    written = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert written["run"]["memory"]["embedder"] == {"name": "static"} and (run_dir / "report.html").is_file()
    assert "does not match its documented shape" in caplog.text and "memory" in caplog.text
