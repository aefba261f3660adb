"""A run directory whose every question was answered (and judged wrong), written straight from a config's dataset:
what `baselines` and `oracle` need (manifest, answers.jsonl, results.jsonl) without paying for an ingestion.

The benches time the baselines on it at full size, and the tests use it where the run's own answers do not
matter (the estimate, the wire against the test server). The answers are "I don't know" and judged wrong, so
the run's own accuracy is 0: never a figure to quote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_answered_run(config_path: Path, run_dir: Path) -> int:
    """The run directory for the config at `config_path`; returns how many questions it answered."""
    from benchmarker.config import load_config
    from benchmarker.log.records import AnswerRecord
    from benchmarker.registry import plan_dataset
    from benchmarker.scoring.grade import Grade
    from benchmarker.suites.settings import PlanSettings

    config = load_config(config_path)
    run_dir.mkdir(parents=True, exist_ok=True)
    plan = plan_dataset(PlanSettings.of(config), run_dir)
    answers, results = [], []
    for group in plan.groups:
        for case in group.cases():
            for q in case.questions:
                line: dict[str, Any] = AnswerRecord(
                    case_id=case.case_id, question_id=q.question_id, question_type=q.question_type,
                    category=q.category, kind=case.kind, is_abstention=q.is_abstention, question=q.question,
                    answer=q.answer, question_date=q.question_date, answer_session_ids=list(q.answer_session_ids),
                    hypothesis="I don't know", offline=True).to_line()
                answers.append(line)
                results.append(line | Grade(label=False, judge="deterministic", reason="bench").line_fields())
    manifest = {"run_id": run_dir.name, "config_path": str(config_path),
                "config": {"config": config.model_dump(mode="json")},
                "dataset": {"kind": config.dataset.kind, "path": plan.path, "sha256": plan.sha256},
                "models": {"offline": config.provider.type == "offline"}, "judge": {"kind": "deterministic"}}
    (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for name, lines in (("answers.jsonl", answers), ("results.jsonl", results)):
        (run_dir / name).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return len(answers)
