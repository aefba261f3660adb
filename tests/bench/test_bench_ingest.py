"""The ingestion bench of issue 45: the floor counts and stores every message, the generated S file loads
as LongMemEval, and the quick bench (bench/bench_ingest.py --quick) writes every row and column with
ratios computed from its own numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import bench_ingest, ingest_floor, locomo_synth, longmemeval_synth
from benchmarker.suites.longmemeval.data import iter_longmemeval, validate_longmemeval
from tests.once import built_once
from tests.shared_data import REAL_5Q


def test_floor_stores_and_searches_every_message_of_a_locomo_file(tmp_path: Path) -> None:
    data = locomo_synth.generate(2, 45, 3, 7)   # 45 turns: the last embedding batch is a partial one
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    turns = sum(len(v) for sample in data for k, v in sample["conversation"].items()
                if k.startswith("session_") and isinstance(v, list))
    floor = ingest_floor.measure_floor(path)
    assert floor["kind"] == "locomo"
    assert (floor["conversations"], floor["messages"], floor["stored"], floor["questions"]) == (2, turns, turns, 6)
    assert floor["messages_per_s"] == pytest.approx(turns / floor["ingest_s"], rel=0.02)


def test_floor_reads_a_longmemeval_file_and_stores_the_harness_text(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    longmemeval_synth.write(path, questions=2, messages=23, seed=3, chars=80)
    db = tmp_path / "floor.sqlite"
    floor = ingest_floor.measure_floor(path, db_path=db)
    assert (floor["kind"], floor["conversations"], floor["messages"], floor["questions"]) == ("longmemeval", 2, 46, 2)
    import sqlite3

    with sqlite3.connect(db) as conn:
        first = conn.execute("SELECT text FROM entries ORDER BY id LIMIT 1").fetchone()[0]
        hits = conn.execute("SELECT COUNT(*) FROM entries_fts WHERE entries_fts MATCH 'by'").fetchone()[0]
    case = next(iter(iter_longmemeval(path)))
    session = case.sessions[0]
    assert first == f"[{session.date}] {session.messages[0].role}: {session.messages[0].content}"
    assert hits >= 2   # each question's fact turn ("By the way, my ...") is in the FTS5 index


def test_generated_s_file_is_longmemeval_shaped_and_seeded(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    written = longmemeval_synth.write(first, questions=4, messages=30, seed=5, chars=120)
    longmemeval_synth.write(second, questions=4, messages=30, seed=5, chars=120)
    assert first.read_bytes() == second.read_bytes()
    assert written["messages"] == 120 and written["chars_source"] == "given"
    assert validate_longmemeval(first) == 4
    raw = json.loads(first.read_text(encoding="utf-8"))
    for instance in raw:
        sessions = instance["haystack_sessions"]
        assert sum(len(s) for s in sessions) == 30
        assert len(instance["haystack_session_ids"]) == len(instance["haystack_dates"]) == len(sessions)
        answer = instance["haystack_session_ids"].index(instance["answer_session_ids"][0])
        assert sessions[answer][0]["has_answer"] and sessions[answer][0]["role"] == "user"
        assert instance["answer"] in sessions[answer][0]["content"]
        assert [m["role"] for m in sessions[0][:3]] == ["user", "assistant", "user"]
    lengths = [len(m["content"]) for i in raw for s in i["haystack_sessions"] for m in s]
    assert 90 <= sum(lengths) / len(lengths) <= 160


def test_message_length_is_measured_in_the_real_s_file() -> None:
    if not REAL_5Q.is_file():
        pytest.skip(f"{REAL_5Q} is absent")
    mean = longmemeval_synth.mean_message_chars(REAL_5Q)
    assert mean is not None and round(mean) == longmemeval_synth.FALLBACK_CHARS


def quick_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("ingest") / "ingest.json"
    assert bench_ingest.main(["--quick", "--minilm-messages", "0", "--out", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return built_once(__name__, lambda: quick_report(tmp_path_factory))


@pytest.mark.slow   # five retrieval runs in subprocesses: ~30 s on 2 cores
def test_quick_bench_has_every_row_and_column(report: dict[str, Any]) -> None:
    assert [(r["row"], r["variant"]) for r in report["rows"]] == [
        ("locomo", "after"), ("locomo", "before"), ("s", "after"), ("s", "before")]
    for row in report["rows"]:
        assert set(row) == set(bench_ingest.COLUMNS)
    measured = report["rows"] if report["write_batch_known"] else report["rows"][1::2]
    for row in measured:
        assert row["messages"] > 0 and row["messages_per_s"] > 0 and row["process_wall_s"] > 0
        assert row["harness_peak_rss_mb"] > 0 and row["service_peak_rss_mb"] > 0
    for row in report["rows"][2:]:   # the S rows search once per question; the LoCoMo rows only ingest
        if row["messages"]:
            assert row["search_p50_ms"] is not None and row["search_p95_ms"] >= row["search_p50_ms"]
    assert report["minilm"]["row"] == "minilm" and report["minilm"]["note"].startswith("skipped")


@pytest.mark.slow
def test_quick_bench_ratios_come_from_its_numbers(report: dict[str, Any]) -> None:
    for row in report["rows"]:
        floor = report["floors"][row["row"]]
        assert row["floor_messages_per_s"] == floor["messages_per_s"]
        assert (row["floor_search_p50_ms"], row["floor_search_p95_ms"]) == (floor["search_p50_ms"],
                                                                            floor["search_p95_ms"])
        if row["messages_per_s"]:
            assert row["x_floor"] == round(floor["messages_per_s"] / row["messages_per_s"], 2)
    before = [r for r in report["rows"] if r["variant"] == "before"]
    assert all(r["write_batch"] == (0 if report["write_batch_known"] else None) for r in before)


@pytest.mark.slow
def test_quick_bench_floor_and_runs_count_every_message(report: dict[str, Any]) -> None:
    size = bench_ingest.QUICK
    assert report["floors"]["locomo"]["messages"] == size.conversations * size.turns
    assert report["floors"]["s"]["messages"] == report["s_file"]["messages"] == 3 * size.s_messages
    assert report["floors"]["s"]["stored"] == report["floors"]["s"]["messages"]
    locomo_before, s_before = report["rows"][1], report["rows"][3]
    assert locomo_before["messages"] == report["floors"]["locomo"]["messages"]
    assert (s_before["questions"], s_before["messages"]) == (2, 2 * size.s_messages)   # the before slice
