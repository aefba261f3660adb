"""Oracle survivors of issue 42's mutation audit: each test fails when its one-line bug is planted. A resumed
oracle judges the answers it had not judged yet; an adversarial round's line never replaces a question's gold;
an abstention question stays one whatever its id; the console prints the gold-evidence accuracy. One real
offline run (module fixture) is copied per test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarker.cli import main
from benchmarker.reporting.fmt import pct
from tests.run.test_damaged_run_dirs import finished, run  # a copied run, its config beside it

__all__ = ["finished", "run"]  # fixtures used by name
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("oracle_survivors")]  # one worker builds the module fixture


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def oracle_results(run: Path) -> dict[str, dict[str, Any]]:
    return {r["question_id"]: r for r in lines(run / "oracle" / "results.jsonl")}  # the last line of each wins


def test_a_resumed_oracle_judges_the_answers_it_had_not_judged(run: Path, capsys) -> None:
    answers = lines(run / "answers.jsonl")
    first = answers[0]
    # killed after writing this answer, before judging it: the resumed oracle judges it as written, asks the rest
    kept = {k: first[k] for k in ("case_id", "question_id", "question_type", "kind", "is_abstention", "question",
                                  "answer", "question_date", "evidence_turns")}
    kept |= {"hypothesis": "Your hamster is called Rex.", "mode": "oracle", "offline": True}
    (run / "oracle").mkdir()
    write_lines(run / "oracle" / "answers.jsonl", [kept])
    assert main(["oracle", str(run), "--estimate"]) == 0
    assert f"oracle: {len(answers)} of {len(answers)} questions to answer and judge" in capsys.readouterr().out
    assert main(["oracle", str(run)]) == 0
    judged = oracle_results(run)
    assert set(judged) == {a["question_id"] for a in answers}
    assert judged[first["question_id"]]["hypothesis"] == kept["hypothesis"]  # judged, not asked again
    assert judged[first["question_id"]]["label"] is False


def test_adversarial_round_lines_never_replace_a_questions_gold(run: Path) -> None:
    answers = lines(run / "answers.jsonl")
    gold = {a["question_id"]: (a["answer"], a["evidence"]) for a in answers}
    rounds = [a | {"round": 1, "answer": "a harder question's answer", "evidence": [],
                   "evidence_turns": []} for a in answers]  # the same ids, asked again in round 1
    rounds.append(answers[0] | {"round": 1, "question_id": "round-1-only", "answer": "x"})
    write_lines(run / "answers.jsonl", answers + rounds)
    assert main(["oracle", str(run)]) == 0
    judged = oracle_results(run)
    assert set(judged) == set(gold)
    assert {q: (r["answer"], r["evidence"]) for q, r in judged.items()} == gold


def test_an_abstention_question_without_abs_in_its_id_stays_one(run: Path) -> None:
    (abstention,) = [a for a in lines(run / "answers.jsonl") if a["is_abstention"]]
    old = abstention["question_id"]
    new = old.removesuffix("_abs")  # LoCoMo's adversarial questions: the flag says so, not the id
    assert new != old
    for name in ("answers.jsonl", "results.jsonl"):
        path = run / name
        path.write_text(path.read_text(encoding="utf-8").replace(f'"{old}"', f'"{new}"'), encoding="utf-8")
    assert main(["oracle", str(run)]) == 0
    assert oracle_results(run)[new]["is_abstention"] is True
    summary = json.loads((run / "oracle" / "summary.json").read_text(encoding="utf-8"))
    assert summary["qa"]["abstention"]["n"] == 1


def test_the_console_prints_the_gold_evidence_accuracy(run: Path, capsys) -> None:
    assert main(["oracle", str(run)]) == 0
    out = capsys.readouterr().out
    memory = json.loads((run / "summary.json").read_text(encoding="utf-8"))["qa"]["overall"]
    gold = json.loads((run / "oracle" / "summary.json").read_text(encoding="utf-8"))["qa"]["overall"]
    assert memory["accuracy"] != gold["accuracy"]  # the fixture tells them apart
    found = re.search(r"accuracy with memory (\S+), with the gold evidence (\S+) \(n=(\d+)\)", out)
    assert found is not None, out
    assert found.groups() == (pct(memory["accuracy"]), pct(gold["accuracy"]), str(gold["n"]))
