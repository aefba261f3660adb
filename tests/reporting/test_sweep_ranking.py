"""The sweep's best point: ranked by the configured metric, ties broken by a stated rule or reported,
and a lead inside the noise called what it is (issue 29)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.scoring.synthetic_run import result, write_run

from benchmarker.config import ConfigError, load_config
from benchmarker.metric_names import largest_common_k, metric_problem
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import rebuild_outputs


def hits(qid: str, evidence_rank: int | None, n: int) -> list[dict[str, Any]]:
    """n ranked hits from distinct sessions; the evidence session `<qid>-s1` at `evidence_rank`."""
    return [{"entry_id": f"{qid}-e{r}", "score": 1 / r, "rank": r, "turn_index": 1, "role": "user",
             "session_id": f"{qid}-s1" if r == evidence_rank else f"{qid}-other{r}", "summary": f"hit {r}"}
            for r in range(1, n + 1)]


def point_results(ranks: dict[str, int | None], labels: dict[str, bool], top_k: int) -> list[dict[str, Any]]:
    return [result(q, "multi-session", labels.get(q, False), hits=hits(q, rank, top_k), top_k=top_k)
            for q, rank in ranks.items()]


def sweep_dir(tmp_path: Path, points: dict[str, list[dict[str, Any]]], sweep: dict[str, Any] | None = None) -> Path:
    run_dir = tmp_path / "sweep"
    for label, rows in points.items():
        write_run(run_dir / "points" / label, rows)
    config = {"run": {"mode": "agent"}, "params": {"top_k": 10}, "memory": {"search_alpha": -1.0},
              "sweep": sweep or {}}
    (run_dir / "manifest.json").write_text(json.dumps({
        "run_id": "sweep", "models": {"offline": True}, "config": {"config": config},
        "judge": {"kind": "deterministic"}, "dataset": {"kind": "sample"}}), encoding="utf-8")
    rebuild_outputs(run_dir, suites=SUITE_LOOKUP)
    return run_dir


def sweep_json(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "sweep.json").read_text(encoding="utf-8"))


QIDS = [f"q{i}" for i in range(10)]


def test_a_tie_on_accuracy_is_broken_by_the_next_metric_not_by_the_order_of_points(tmp_path):
    # same accuracy everywhere (3/10); the later point (alpha 1.0) finds the evidence at rank 1 for every
    # question, the earlier one for half: before the fix the first point in order was crowned
    labels = {q: i < 3 for i, q in enumerate(QIDS)}
    weak = point_results({q: (1 if i % 2 else None) for i, q in enumerate(QIDS)}, labels, 5)
    strong = point_results(dict.fromkeys(QIDS, 1), labels, 5)
    run_dir = sweep_dir(tmp_path, {"alpha=0.0_topk=5": weak, "alpha=1.0_topk=5": strong})
    best = sweep_json(run_dir)["best"]
    assert best["label"] == "alpha=1.0_topk=5"
    assert best["decided_by"] == "session.recall_any@5"
    assert best["vs_runner_up"]["metric"] == "session.recall_any@5"
    assert (best["vs_runner_up"]["winner_only"], best["vs_runner_up"]["runner_up_only"]) == (5, 0)
    # 5 questions only the winner found, none the other way: exact McNemar p = 2 * 0.5**5 = 0.0625, so on
    # 10 questions even this lead is within the noise, and the verdict says so
    assert best["vs_runner_up"]["p_value"] == pytest.approx(0.0625)
    assert best["vs_runner_up"]["within_noise"] is True
    assert "within the noise" in (run_dir / "sweep.md").read_text(encoding="utf-8")


def test_points_equal_on_every_rule_are_reported_as_a_tie(tmp_path):
    rows = point_results(dict.fromkeys(QIDS, 2), {}, 5)
    run_dir = sweep_dir(tmp_path, {"alpha=0.0_topk=5": rows, "alpha=0.5_topk=5": rows})
    table = sweep_json(run_dir)
    assert table["best"]["tied_with"] == ["alpha=0.5_topk=5"]
    assert "No single best point" in (run_dir / "sweep.md").read_text(encoding="utf-8")


def test_the_smaller_top_k_wins_a_tie_on_every_metric(tmp_path):
    rows5, rows10 = point_results(dict.fromkeys(QIDS, 1), {}, 5), point_results(dict.fromkeys(QIDS, 1), {}, 10)
    best = sweep_json(sweep_dir(tmp_path, {"alpha=0.0_topk=10": rows10, "alpha=0.0_topk=5": rows5}))["best"]
    assert (best["label"], best["decided_by"]) == ("alpha=0.0_topk=5", "top_k")


def test_auto_metric_uses_the_largest_k_every_point_measures(tmp_path):
    # retrieval only (nothing judged), top_k 5 and 10: recall_all@10 would be n/a at every top_k = 5 point
    rows5 = point_results(dict.fromkeys(QIDS, 3), {}, 5)
    rows10 = point_results(dict.fromkeys(QIDS, 8), {}, 10)
    for rows in (rows5, rows10):
        for row in rows:  # not graded, as a retrieval run's lines are (unjudged ones would make the points invalid)
            row.update(label=None, autoeval_label=None, grade={"judge": "none"})
    table = sweep_json(sweep_dir(tmp_path, {"alpha=0.0_topk=5": rows5, "alpha=0.0_topk=10": rows10}))
    assert table["metric"] == "session.recall_all@5"
    assert table["best"]["label"] == "alpha=0.0_topk=5"  # the evidence at rank 3 is inside @5; at rank 8 it is not
    values = {p["label"]: p["value"] for p in table["points"]}
    assert values == {"alpha=0.0_topk=5": 1.0, "alpha=0.0_topk=10": 0.0}


def test_the_configured_metric_ranks_and_each_point_gets_its_interval(tmp_path):
    labels_a = {q: i < 6 for i, q in enumerate(QIDS)}
    labels_b = {q: i < 4 for i, q in enumerate(QIDS)}
    a = point_results(dict.fromkeys(QIDS, None), labels_a, 5)  # better accuracy, no retrieval
    b = point_results(dict.fromkeys(QIDS, 1), labels_b, 5)     # worse accuracy, perfect retrieval
    by_accuracy = sweep_json(sweep_dir(tmp_path / "acc", {"alpha=0.0_topk=5": a, "alpha=1.0_topk=5": b}))
    assert by_accuracy["best"]["label"] == "alpha=0.0_topk=5"
    assert by_accuracy["best"]["ci95"] == pytest.approx([0.3127, 0.8318], abs=1e-4)  # Wilson 6/10
    by_recall = sweep_json(sweep_dir(tmp_path / "rec", {"alpha=0.0_topk=5": a, "alpha=1.0_topk=5": b},
                                     {"metric": "session.recall_any@5"}))
    assert by_recall["metric"] == "session.recall_any@5"
    assert by_recall["best"]["label"] == "alpha=1.0_topk=5"
    assert by_recall["best"]["ci95"] == pytest.approx([0.7225, 1.0], abs=1e-4)  # Wilson 10/10


@pytest.mark.parametrize(("name", "top_ks", "judged", "fragment"), [
    ("session.recall_all@10", [5, 10], True, "above the smallest swept top_k (5)"),
    ("session.recall_all@7", [10], True, "k = 7 is not measured"),
    ("recall@5", [10], True, 'got "recall@5"'),
    ("accuracy", [10], False, "needs judged answers"),
])
def test_metric_names_a_run_cannot_rank_by_are_refused(name, top_ks, judged, fragment):
    assert fragment in (metric_problem(name, top_ks=top_ks, judged=judged) or "")


def test_metric_names_a_run_measures_pass():
    assert metric_problem("accuracy", top_ks=[5], judged=True) is None
    assert metric_problem("turn.ndcg_any@5", top_ks=[5, 10], judged=False) is None
    assert largest_common_k([5, 20]) == 5 and largest_common_k([20, 50]) == 10


def test_the_config_names_the_sweep_key_and_the_fix(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text('[dataset]\nkind = "sample"\n[provider]\ntype = "offline"\n[sweep]\ntop_k = [5, 10]\n'
                    'metric = "session.recall_all@10"\ntie_break = ["auto"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert "[sweep].metric" in text and 'e.g. "session.recall_all@5"' in text
    assert "[sweep].tie_break" in text


def test_the_metric_that_decided_has_a_column_and_the_verdict_quotes_its_values(tmp_path):
    # equal accuracy and recall (all 1.0); the evidence at rank 1 vs rank 3 separates the points on ndcg only:
    # before, the table showed only recall columns (all 1.000) and the verdict named ndcg without a value
    labels = dict.fromkeys(QIDS, True)
    first = point_results(dict.fromkeys(QIDS, 1), labels, 5)
    second = point_results(dict.fromkeys(QIDS, 3), labels, 5)
    run_dir = sweep_dir(tmp_path, {"alpha=0.0_topk=5": second, "alpha=1.0_topk=5": first})
    table = sweep_json(run_dir)
    assert table["best"]["decided_by"] == "session.ndcg_any@5"
    header = table["table"]["header"]
    assert "session.ndcg_any@5" in header
    column = header.index("session.ndcg_any@5")
    assert sorted(row[column] for row in table["table"]["rows"]) == ["0.631", "1.000"]
    verdict = table["verdict"]
    assert "decided by `session.ndcg_any@5`: 1.000 against 0.631 for the runner-up alpha=0.0_topk=5" in verdict
    assert "`qa.overall.accuracy` 1.000" in verdict  # the tie it broke, with its value

    from rich.console import Console

    from benchmarker.run.console import sweep_console_table

    console = Console(width=250, record=True)
    console.print(sweep_console_table(table))
    assert "session.ndcg_any@5" in console.export_text()


def test_a_tie_names_each_rule_and_its_value_and_the_report_links_each_point(tmp_path):
    rows = point_results(dict.fromkeys(QIDS, 2), {}, 5)
    run_dir = sweep_dir(tmp_path, {"alpha=0.0_topk=5": rows, "alpha=0.5_topk=5": rows})
    verdict = sweep_json(run_dir)["verdict"]
    assert "equal on every rule (`qa.overall.accuracy` 0.000, `session.recall_any@5` 1.000" in verdict
    assert "`session.ndcg_any@5` 1.000, and top_k)" in verdict
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    for label in ("alpha=0.0_topk=5", "alpha=0.5_topk=5"):
        assert f'<a href="points/{label}/report.html">points/{label}</a>' in page
        assert (run_dir / "points" / label / "report.html").is_file()
