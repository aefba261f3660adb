"""hypotheses.jsonl always matches answers.jsonl once the outputs are written, even when a run died
(a kill, a full disk) between an answer's append and its hypothesis's append."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarker.log.records import AnswerRecord
from benchmarker.log.store import RunLog
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import write_outputs


def answer(qid: str, text: str) -> AnswerRecord:
    return AnswerRecord(case_id=qid, question_id=qid, question_type="single-session-user", question="q?",
                        answer="a", hypothesis=text)


def test_a_hypothesis_lost_between_two_appends_is_back_after_the_outputs(tmp_path: Path) -> None:
    log = RunLog(tmp_path)
    for qid in ("q1", "q2", "q3"):
        log.append(answer(qid, f"hypothesis of {qid}"))
    log.append(answer("q2", "a retried answer wins"))
    log.close()
    hypotheses = log.hypotheses_path.read_text(encoding="utf-8").splitlines()
    log.hypotheses_path.write_text(hypotheses[0] + "\n", encoding="utf-8")  # died after q1's hypothesis
    write_outputs(tmp_path, tmp_path, {"run_id": "r", "offline": True, "mode": "agent", "judge": "deterministic"}, suites=SUITE_LOOKUP)
    rebuilt = [json.loads(line) for line in log.hypotheses_path.read_text(encoding="utf-8").splitlines()]
    assert rebuilt == [{"question_id": "q1", "hypothesis": "hypothesis of q1"},
                       {"question_id": "q2", "hypothesis": "a retried answer wins"},
                       {"question_id": "q3", "hypothesis": "hypothesis of q3"}]
