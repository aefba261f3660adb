"""The validity verdict on known files: each check's figure, its threshold, the reason an invalid run opens with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.config_schema import ValidityConfig
from benchmarker.errors import ConfigError, UserError
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.reporting.validity_report import banner, invalid_runs, struck, validity_section
from benchmarker.scoring.validity import CHECKS, headline, validity_block, verdict
from benchmarker.scoring.validity_checks import RunFiles

QUESTIONS = 10


def answer(qid: str, case: str, hits: int = 3, top_k: int = 10, **extra) -> dict:
    return {"question_id": qid, "case_id": case, "retrieved": [{"rank": i + 1} for i in range(hits)], "top_k": top_k,
            "index_searchable": True, **extra}


def result(qid: str, case: str, label: bool | None = True, reason: str = "judge replied yes", **extra) -> dict:
    return answer(qid, case, **extra) | {"label": label, "grade": {"judge": "llm", "reason": reason,
                                                                    "unjudged": label is None}}


def search(qid: str, case: str, error: str | None = None) -> dict:
    return {"case_id": case, "question_id": qid, "caller": "harness", "tool": "search" if error else "search_memories",
            "error": error}


def clean(n: int = QUESTIONS) -> RunFiles:
    """n questions, one case each, every one searched, answered and judged; 5 writes per case stored."""
    cases = [f"c{i}" for i in range(n)]
    writes = [{"case_id": c, "caller": "agent", "tool": "add_entry"} for c in cases for _ in range(5)]
    return RunFiles(manifest={"dataset": {"questions": n}, "config": {"config": {}}},
                    answers=[answer(f"q{i}", c) for i, c in enumerate(cases)],
                    results=[result(f"q{i}", c) for i, c in enumerate(cases)],
                    decisions=writes + [search(f"q{i}", c) for i, c in enumerate(cases)],
                    memories=[{"case_id": c, "ingested": True, "entries": 5, "stored": 5} for c in cases])


def test_a_clean_run_is_valid_and_lists_every_check_with_its_figure():
    block = verdict(clean(), ValidityConfig())
    assert block["valid"] is True and block["reasons"] == []
    assert list(block["checks"]) == list(CHECKS)
    assert (block["checks"]["search_errors"]["count"], block["checks"]["search_errors"]["of"]) == (0, QUESTIONS)
    assert (block["checks"]["write_failures"]["count"], block["checks"]["write_failures"]["of"]) == (0, 5 * QUESTIONS)
    assert block["checks"]["unanswered"]["share"] == 0.0
    assert all(check["ok"] for check in block["checks"].values())
    assert headline(block) is None


def test_failed_searches_name_their_share_and_error_and_a_transient_one_is_tolerated():
    files = clean(200)
    for i in range(0, 3):  # 3 of 200 failed: above the 1% default
        files.decisions.append(search(f"q{i}", f"c{i}", error="MemoryToolError: search_memories: HTTP 503 from the memory server"))
    block = verdict(files, ValidityConfig())
    check = block["checks"]["search_errors"]
    assert (check["count"], check["of"], check["ok"]) == (3, 203, False)
    assert block["reasons"][0].startswith("3 of 203 searches failed (most often: MemoryToolError: search_memories: HTTP 503")
    assert headline(block).startswith("INVALID: 3 of 203 searches failed")
    assert verdict(files, ValidityConfig(search_errors=0.02))["valid"] is True  # 1.5% is within 2%


def test_timeouts_are_counted_apart_from_other_search_errors():
    files = clean()
    files.decisions.append(search("q0", "c0", error="TimeoutError: search_memories timed out after 60 s"))
    files.decisions.append(search("q1", "c1", error="MemoryToolError: HTTP 503"))
    block = verdict(files, ValidityConfig())
    assert block["checks"]["search_errors"]["count"] == 2
    assert block["checks"]["search_timeouts"]["count"] == 1


def test_empty_searches_on_a_memory_that_holds_entries_are_the_broken_index_signature():
    files = clean()
    files.answers = [answer(a["question_id"], a["case_id"], hits=0) for a in files.answers]
    block = verdict(files, ValidityConfig())
    assert block["checks"]["search_empty"]["count"] == QUESTIONS and not block["checks"]["search_empty"]["ok"]
    assert block["checks"]["memory_replaced"]["count"] == QUESTIONS  # every case's every search empty: emptied
    one_miss = clean()
    one_miss.answers[0] = answer("q0", "c0", hits=0)  # one empty search among ten: a miss, not an emptied memory
    checks = verdict(one_miss, ValidityConfig())["checks"]
    assert (checks["search_empty"]["count"], checks["memory_replaced"]["count"]) == (1, 0)
    files.memories = [m | {"stored": 0, "entries": 0} for m in files.memories]  # nothing stored: empty is right
    assert verdict(files, ValidityConfig())["valid"] is True


def test_a_context_budget_that_dropped_every_hit_is_not_an_empty_search():
    files = clean()  # the server answered, but a tight [run] context_budget_tokens left the reader no whole hit
    files.answers = [answer(a["question_id"], a["case_id"], hits=0) | {"hits_returned": 5} for a in files.answers]
    block = verdict(files, ValidityConfig())
    assert (block["checks"]["search_empty"]["count"], block["checks"]["memory_replaced"]["count"]) == (0, 0)
    assert block["valid"] is True


def test_a_memory_gone_at_question_time_is_a_replaced_memory():
    files = clean()
    files.answers, files.results = files.answers[2:], files.results[2:]
    files.decisions = [d for d in files.decisions if d["case_id"] not in ("c0", "c1")]
    files.errors = [{"case_id": c, "error": f"MemoryToolError: await_consistency: no memory with id "
                                           f"'5a4d4b35-7d0f-4ffa-bd0a-76771{i}c0f323'; call list_memories"}
                    for i, c in enumerate(("c0", "c1"))]
    block = verdict(files, ValidityConfig())
    assert block["checks"]["memory_replaced"]["count"] == 2
    assert block["checks"]["unanswered"]["count"] == 2
    assert "no memory with id '<id>'" in block["reasons"][0] and "(2x)" in block["reasons"][0]


def test_unanswered_questions_of_crashed_cases_make_the_run_invalid():
    files = clean()
    files.answers, files.results = files.answers[1:], files.results[1:]
    files.errors = [{"case_id": "c0", "error": "RuntimeError: boom"}]
    block = verdict(files, ValidityConfig())
    assert block["checks"]["unanswered"]["count"] == 1
    assert "1 of 10 questions were not answered (most often: RuntimeError: boom)" in block["reasons"]


def test_a_reader_that_failed_after_its_search_is_a_reader_error():
    files = clean()
    files.answers, files.results = files.answers[1:], files.results[1:]
    files.errors = [{"case_id": "c0", "error": "APITimeoutError: Request timed out.",
                     "traceback": "...\nDuring task with name 'qa' and id 'x'\n"}]
    block = verdict(files, ValidityConfig())
    assert block["checks"]["reader_errors"]["count"] == 1
    assert "APITimeoutError" in block["checks"]["reader_errors"]["detail"]


def test_judge_errors_and_refusals_are_told_apart():
    files = clean()
    files.results[0] = result("q0", "c0", label=None, reason="unjudged: APIConnectionError: refused")
    files.results[1] = result("q1", "c1", label=None, reason="unjudged after 4 attempts: no yes/no in the reply")
    block = verdict(files, ValidityConfig())
    assert block["checks"]["unjudged"]["count"] == 2
    assert block["checks"]["judge_errors"]["count"] == 1
    assert block["checks"]["judge_refusals"]["count"] == 1


def test_hits_above_top_k_are_counted_and_invalid_only_when_the_reader_saw_them():
    files = clean()
    files.answers[0] = answer("q0", "c0", hits=10, hits_returned=30, hits_trimmed=20)
    block = verdict(files, ValidityConfig())
    assert block["checks"]["hits_above_top_k"]["count"] == 1
    assert block["checks"]["hits_above_top_k"]["detail"] == "20 hit(s) beyond top_k"
    assert block["valid"] is True  # trimmed before the reader: counted, not invalid
    files.answers[0] = answer("q0", "c0", hits=30)  # a run from before trimming: the reader saw 30
    assert verdict(files, ValidityConfig())["checks"]["reader_above_top_k"]["ok"] is False


def test_checks_of_a_phase_not_run_do_not_apply():
    files = clean()
    files.manifest["config"] = {"config": {"run": {"phases": ["ingest"]}}}
    files.answers, files.results, files.decisions = [], [], files.decisions[:5]
    block = verdict(files, ValidityConfig())
    assert block["valid"] is True
    assert block["checks"]["unanswered"]["applies"] is False


def test_outside_agent_protocol_errors_count_per_case():
    files = clean()
    files.manifest["config"] = {"config": {"agent": {"type": "http"}}}
    files.answers, files.results = files.answers[1:], files.results[1:]
    files.errors = [{"case_id": "c0", "error": "AdapterError: agent http://x: converse: protocol violation"}]
    block = verdict(files, ValidityConfig())
    assert block["checks"]["agent_errors"]["count"] == 1
    assert block["checks"]["search_errors"]["applies"] is False


def test_the_block_reads_the_thresholds_the_run_was_configured_with(tmp_path: Path):
    files = clean()
    (tmp_path / "manifest.json").write_text(json.dumps({"dataset": {"questions": 2}, "config": {"config": {
        "validity": {"unanswered": 0.5}}}}))
    (tmp_path / "answers.jsonl").write_text(json.dumps(files.answers[0]) + "\n")
    (tmp_path / "results.jsonl").write_text(json.dumps(files.results[0]) + "\n")
    block = validity_block(tmp_path)
    assert block["checks"]["unanswered"]["threshold"] == 0.5 and block["valid"] is True
    assert validity_block(tmp_path, limits=ValidityConfig())["valid"] is False


def test_the_report_opens_with_the_verdict_and_strikes_the_accuracy(tmp_path: Path):
    files = clean()
    files.answers, files.results = files.answers[1:], files.results[1:]
    summary = RunSummary.model_validate({"validity": verdict(files, ValidityConfig())})
    assert banner(summary)[0].startswith("> **INVALID: 1 of 10 questions were not answered")
    assert struck(summary, "80.0%") == "~~80.0%~~ not a score"
    assert struck(RunSummary.model_validate({"validity": verdict(clean(), ValidityConfig())}), "80.0%") == "80.0%"
    assert any(line.startswith("| unanswered | 1 | 10 |") for line in validity_section(summary))


def test_compare_refuses_an_invalid_run_unless_allowed(tmp_path: Path):
    run = tmp_path / "bad"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({"validity": {"valid": False, "reasons": ["3 of 9 searches failed"],
                                                               "checks": {}}}))
    with pytest.raises(UserError, match="is INVALID: 3 of 9 searches failed.*--allow-invalid"):
        invalid_runs([run], allow=False, verb="compare")
    assert invalid_runs([run], allow=True, verb="compare") == {run: "INVALID: 3 of 9 searches failed"}


def test_a_threshold_out_of_range_names_its_key(tmp_path: Path):
    config = tmp_path / "run.toml"
    config.write_text('[dataset]\nkind = "sample"\n[validity]\nsearch_errors = 1.5\n')
    with pytest.raises(ConfigError, match=r"\[validity\]\.search_errors"):
        load_config(config)


def test_a_sweep_never_picks_an_invalid_point(tmp_path: Path):
    from tests.scoring.synthetic_run import result as line
    from tests.scoring.synthetic_run import write_run
    from tests.reporting.test_sweep_ranking import sweep_dir, sweep_json

    good = [line(f"q{i}", "multi-session", i < 3) for i in range(10)]
    better = [line(f"q{i}", "multi-session", i < 8) for i in range(10)]
    run_dir = sweep_dir(tmp_path, {"alpha=0.0_topk=5": good, "alpha=1.0_topk=5": better})
    assert sweep_json(run_dir)["best"]["label"] == "alpha=1.0_topk=5"
    write_run(run_dir / "points" / "alpha=1.0_topk=5", better[:7])  # the better point lost 3 questions' answers
    (run_dir / "manifest.json").write_text(json.dumps(json.loads((run_dir / "manifest.json").read_text())
                                                      | {"dataset": {"kind": "sample", "questions": 10}}))
    from benchmarker.registry import SUITE_LOOKUP
    from benchmarker.reporting.outputs import rebuild_outputs

    rebuild_outputs(run_dir, suites=SUITE_LOOKUP)
    table = sweep_json(run_dir)
    assert table["best"]["label"] == "alpha=0.0_topk=5" and table["invalid"] == ["alpha=1.0_topk=5"]
    assert "INVALID point(s) not ranked" in table["verdict"]
