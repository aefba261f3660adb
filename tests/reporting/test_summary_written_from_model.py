"""summary.json is written from `RunSummary` (reporting/summary_file.py): what a run writes re-reads as a RunSummary
and dumps to the same bytes (key order included), a block off its model fails the build naming the key, and a block
whose suite registered its model (`Suite.reporting.summary_models`, LoCoMo's `locomo`) is typed on the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import rebuild_outputs
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_file import (
    SummaryShapeError,
    block_models,
    summary_from_blocks,
    with_blocks,
    write_summary_file,
)
from benchmarker.reporting.summary_model import SCHEMA_VERSION, load_summary
from benchmarker.suites.locomo.summary_model import LocomoBlock
from tests.scoring.synthetic_run import small_run, write_run
from tests.suites.locomo.test_locomo_summary import run_lines

LOCOMO_MODELS = block_models([SUITE_LOOKUP.named("locomo")])


def _reported(run_dir: Path, results: list[dict], kind: str) -> Path:
    """A run directory with its manifest, summarised by `report` (every block write_outputs adds)."""
    write_run(run_dir, results)
    config = {"run": {"mode": "agent"}, "params": {"top_k": 10}, "memory": {"search_alpha": -1.0}}
    (run_dir / "manifest.json").write_text(json.dumps({
        "run_id": run_dir.name, "started_at": "2024-01-01T10:00:00+00:00", "models": {"offline": True},
        "config": {"config": config}, "memory": {"backend": "embedded", "embedder": "static", "alpha": 0.6},
        "judge": {"kind": "llm"}, "dataset": {"kind": kind}}), encoding="utf-8")
    rebuild_outputs(run_dir, SUITE_LOOKUP)
    return run_dir / "summary.json"


@pytest.mark.parametrize(("results", "kind"), [(small_run(), "longmemeval"), (run_lines(), "locomo")])
def test_the_summary_a_run_writes_rereads_and_dumps_to_the_same_bytes(tmp_path: Path, results, kind) -> None:
    path = _reported(tmp_path / "run", results, kind)
    written = path.read_bytes()
    summary = load_summary(path)
    assert write_summary_file(tmp_path / "again.json", summary).read_bytes() == written
    assert list(summary.as_dict()) == list(json.loads(written))   # the file's key order, suite blocks included
    assert json.loads(written)["schema_version"] == SCHEMA_VERSION == summary.schema_version
    keys = list(json.loads(written))   # the order build_summary and write_outputs add the blocks in, as before
    assert keys[:10] == ["schema_version", "run_id", "offline", "notes", "run", "qa", "retrieval", "cost", "speed",
                         "counts"]
    assert keys[10] == ("locomo" if kind == "locomo" else "attribution")   # a suite's block right after counts


def test_a_built_summary_carries_the_suite_s_block_typed_and_others_as_written() -> None:
    summary = build_summary(run_lines(), run_meta={"run_id": "locomo"}, suites=SUITE_LOOKUP)
    block = summary.block("locomo")
    assert isinstance(block, LocomoBlock) and block.overall is not None and block.overall.questions == 5
    assert block.by_category is not None and block.by_category["5"].judge is not None
    assert block.by_category["5"].judge.correct == 2
    more = with_blocks(summary, {"a_later_block": {"x": [1, 2.5]}}, LOCOMO_MODELS)
    assert more.block("a_later_block") == {"x": [1, 2.5]} and isinstance(more.block("locomo"), LocomoBlock)
    assert list(more.as_dict())[-1] == "a_later_block"


def test_a_block_off_its_model_fails_the_build_naming_the_key() -> None:
    with pytest.raises(SummaryShapeError, match=r"`qa\.overall\.n` is not as documented") as caught:
        summary_from_blocks({"schema_version": 1, "qa": {"overall": {"n": "many"}}})
    assert caught.value.key == "qa.overall.n"
    off = {"locomo": {"overall": {"questions": "five"}}}
    with pytest.raises(SummaryShapeError, match=r"`locomo\.overall\.questions` is not as documented"):
        summary_from_blocks(off, LOCOMO_MODELS)
    assert summary_from_blocks(off).block("locomo") == off["locomo"]   # no model registered: kept as written


def test_a_dump_keeps_the_order_the_keys_came_in() -> None:
    blocks = {"zeta": 1, "qa": {"unjudged": 0, "later": True, "overall": {"ci95": [0.1, 0.9], "n": 2}}, "run_id": "r"}
    assert json.dumps(summary_from_blocks(blocks).as_dict()) == json.dumps(blocks)
