"""summary.json keys and values; official LongMemEval file formats and prompt loading."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from tests.scoring.synthetic_run import result, small_run, write_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.summary import build_summary, write_summary
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.records import load_results
from benchmarker.suites.longmemeval.official import load_official_prompt_builder, write_official_outputs

TOP_KEYS = {"schema_version", "run_id", "offline", "notes", "run", "qa", "retrieval", "cost", "speed", "counts"}


def test_summary_keys_and_sums(tmp_path):
    results = small_run()
    summary = build_summary(results, run_meta={"run_id": "r1", "offline": True, "decisions": [{"x": 1}]},
                            suites=SUITE_LOOKUP).as_dict()
    assert set(summary) == TOP_KEYS
    assert summary["schema_version"] == 1 and summary["offline"] is True
    assert any("offline run" in n for n in summary["notes"]) and any("unjudged" in n for n in summary["notes"])
    assert "decisions" not in summary["run"]
    n = len(results)  # 14 lines, each with the same tokens, costs and timings
    assert summary["counts"]["questions"] == n and summary["counts"]["unjudged"] == 1
    assert summary["counts"]["judges"] == {"llm": n}
    assert summary["cost"]["tokens"]["agent"] == {"input": 1000 * n, "output": 100 * n, "cache_read": 0,
                                                  "cache_write": 0}
    assert summary["cost"]["usd_per_question"] == pytest.approx(0.0155)
    assert summary["cost"]["usd"]["total"] == pytest.approx(0.0155 * n)
    assert summary["speed"]["phases"]["ingest_s"] == {"sum": 2.0 * n, "mean": 2.0, "n": n}
    # latencies are 10, 20, 30 repeated: p50 = 20; p95 of that multiset = 30
    assert summary["speed"]["tool_latency_ms"]["p50"] == 20.0 and summary["speed"]["tool_latency_ms"]["p95"] == 30.0
    assert summary["retrieval"]["available"] and summary["retrieval"]["metrics"]["session.recall_any@30"] is None
    path = write_summary(tmp_path, RunSummary.model_validate(summary))  # written from the model
    assert json.loads(path.read_text()) == json.loads(json.dumps(summary))


def test_summary_falls_back_to_ledger_and_decisions():
    bare = [{"question_id": "a", "question_type": "x", "label": True}]
    ledger = {"roles": {"agent": {"input_tokens": 7, "output_tokens": 3, "cost_usd": 0.5}}}
    decisions = [{"tool": "add_entry", "latency_ms": 4.0}, {"tool": "search_memories", "latency_ms": 8.0}]
    s = build_summary(bare, run_meta={"tokens": ledger, "decisions": decisions}, suites=SUITE_LOOKUP).as_dict()
    assert s["cost"]["tokens"]["agent"] == {"input": 7, "output": 3, "cache_read": 0, "cache_write": 0}
    assert s["cost"]["source"]["agent"] == "ledger"
    assert s["cost"]["usd"]["agent"] == 0.5 and s["cost"]["usd"]["qa"] is None
    assert s["speed"]["tool_latency_ms"]["n"] == 2 and s["speed"]["tool_latency_ms"]["p50"] == 6.0
    assert set(s["speed"]["tool_latency_by_tool_ms"]) == {"add_entry", "search_memories"}
    assert s["retrieval"]["available"] is False


def test_summary_of_nothing():
    s = build_summary([], run_meta={}, suites=SUITE_LOOKUP).as_dict()
    assert s["qa"]["overall"]["accuracy"] is None and s["counts"]["questions"] == 0
    assert s["speed"]["tool_latency_ms"]["p50"] is None and s["cost"]["usd"]["total"] is None


def test_load_results_last_line_wins_and_torn_tail(tmp_path):
    write_run(tmp_path, [result("a", "multi-session", False), result("a", "multi-session", True)])
    with open(tmp_path / "results.jsonl", "a") as fh:
        fh.write('{"question_id": "b", "lab')  # crash mid-write
    got = load_results(tmp_path)
    assert [r["label"] for r in got] == [True]


FAKE_EVALUATOR = '''
import openai          # not installed here: must not matter
import backoff
from tqdm import tqdm

def get_anscheck_prompt(task, question, answer, response, abstention=False):
    if abstention:
        return "ABS {} | {} | {}".format(question, answer, response)
    if task == "temporal-reasoning":
        return "TEMP {} | {} | {}".format(question, answer, response)
    if task in ("single-session-user", "multi-session"):
        return "BASE {} | {} | {}".format(question, answer, response)
    raise NotImplementedError

if __name__ == "__main__":
    raise SystemExit("never run")
'''


def test_load_official_prompt_builder_survives_missing_imports(tmp_path):
    evaluator = tmp_path / "LongMemEval" / "src" / "evaluation" / "evaluate_qa.py"
    evaluator.parent.mkdir(parents=True)
    evaluator.write_text(textwrap.dedent(FAKE_EVALUATOR))
    builder, reason = load_official_prompt_builder(tmp_path / "LongMemEval")
    assert builder is not None and reason == ""
    assert builder("temporal-reasoning", "q", "a", "r") == "TEMP q | a | r"
    assert builder("temporal-reasoning", "q", "a", "r", abstention=True) == "ABS q | a | r"
    assert "openai" not in sys.modules or sys.modules["openai"].__name__ == "openai"


def test_load_official_prompt_builder_absent(tmp_path):
    builder, reason = load_official_prompt_builder(tmp_path / "nope")
    assert builder is None and "not found" in reason
    (tmp_path / "src" / "evaluation").mkdir(parents=True)
    (tmp_path / "src" / "evaluation" / "evaluate_qa.py").write_text("x = 1\n")
    builder, reason = load_official_prompt_builder(tmp_path)
    assert builder is None and "get_anscheck_prompt" in reason


PRINT_QA_METRICS = '''
import sys, json
import numpy as np
in_data = [json.loads(l) for l in open(sys.argv[1]).readlines()]
ref = {x["question_id"]: x for x in json.load(open(sys.argv[2]))}
type2acc = {t: [] for t in ["single-session-user", "single-session-preference", "single-session-assistant",
                            "multi-session", "temporal-reasoning", "knowledge-update"]}
abst = []
for e in in_data:
    assert e["autoeval_label"]["model"] == "gpt-4o-2024-08-06"
    type2acc[ref[e["question_id"]]["question_type"]].append(1 if e["autoeval_label"]["label"] else 0)
    if "_abs" in e["question_id"]:
        abst.append(1 if e["autoeval_label"]["label"] else 0)
all_acc = [x for v in type2acc.values() for x in v]
print(json.dumps({"overall": float(np.mean(all_acc)), "abstention": float(np.mean(abst)), "n": len(all_acc)}))
'''


def test_official_outputs_are_readable_by_the_metrics_script(tmp_path):
    results = small_run() + [result("lvl1", "L1", True, kind="level")]
    paths = write_official_outputs(tmp_path, results)
    hyps = [json.loads(l) for l in paths["hypotheses"].read_text().splitlines()]
    assert len(hyps) == len(results) and set(hyps[0]) == {"question_id", "hypothesis"}
    assert paths["eval_results"].name == "hypotheses.jsonl.eval-results-gpt-4o-mini"
    lines = [json.loads(l) for l in paths["eval_results"].read_text().splitlines()]
    assert len(lines) == 13  # 14 LongMemEval lines minus the unjudged one; the L1 line is left out
    assert all(set(l) == {"question_id", "hypothesis", "autoeval_label"} for l in lines)
    # A copy of LongMemEval's print_qa_metrics.py logic, run with -O as documented (the judge is not gpt-4o).
    script = tmp_path / "print_qa_metrics.py"
    script.write_text(PRINT_QA_METRICS)
    out = subprocess.run([sys.executable, "-O", str(script), str(paths["eval_results"]), str(paths["references"])],
                         capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    judged = [r for r in small_run() if r["label"] is not None]
    assert got["n"] == 13 and got["overall"] == pytest.approx(sum(r["label"] for r in judged) / 13)
    assert got["abstention"] == 1.0


def test_cost_shows_cache_reads_writes_share_and_cost_per_question():
    bare = [{"question_id": q, "question_type": "x", "label": True} for q in ("a", "b")]
    ledger = {"roles": {"agent": {"input_tokens": 10_000, "output_tokens": 50, "cache_read_tokens": 8_500,
                                  "cache_write_tokens": 1_000, "cost_usd": 0.004}},
              "price_notes": ["m: no cache_write price, cache writes priced at the input price"]}
    cost = build_summary(bare, run_meta={"tokens": ledger}, suites=SUITE_LOOKUP).as_dict()["cost"]
    assert cost["tokens"]["agent"] == {"input": 10_000, "output": 50, "cache_read": 8_500, "cache_write": 1_000}
    assert cost["cache_hit_share"]["agent"] == pytest.approx(0.85) and cost["cache_hit_share"]["qa"] is None
    assert cost["usd_per_question"] == pytest.approx(0.002) and cost["price_notes"] == ledger["price_notes"]
