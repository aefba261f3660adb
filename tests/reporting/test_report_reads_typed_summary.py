"""The report reads summary.json through `RunSummary`: the run block's typed parts (memory_agent, rescored, tracing,
started_at, wall_s) and the errata block dump back byte for byte, reach the report's lines, and one of the wrong
type is refused naming its field."""

from __future__ import annotations

import json

import pytest

from benchmarker.errors import UserError
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.report import render_markdown
from benchmarker.reporting.sections import extra_sections
from benchmarker.reporting.summary import build_summary
from benchmarker.reporting.summary_model import parse_summary
from tests.scoring.synthetic_run import small_run

RUN = {"started_at": "2024-01-01T10:00:00+00:00", "config": "configs/x.toml", "wall_s": 12.5,
       "memory_agent": {"ingest_unit": "session", "raw_entry": "harness", "context_update": "session",
                        "context_every_sessions": 3},
       "rescored": {"of_run": "base", "judge": "llm", "model": "gpt-x", "label": "llm-gpt-x",
                    "original_report": "../../report.html", "thresholds": "the defaults"},
       "tracing": {"langsmith": True, "project": "p1", "endpoint": "LangSmith cloud", "tags": ["t"],
                   "sample_rate": 0.5, "cases_traced": 2, "url": "https://smith.example/p1"}}
ERRATA = {"questions": 1, "labels_changed": 1,
          "corrections": [{"question_id": "q0", "field": "answer", "published": ["a", 1], "corrected": "b",
                           "turn": None, "source": "errata.json", "label_published": False, "label_corrected": True}]}


def _summary() -> dict:
    results = small_run()
    data = build_summary(results, run_meta={"run_id": "typed"}, suites=SUITE_LOOKUP).as_dict()
    data["run"] |= RUN
    data["qa_corrected"], data["errata"] = data["qa"], ERRATA
    return data


def test_the_typed_run_parts_and_errata_dump_back_unchanged():
    data = _summary()
    typed = parse_summary(data)
    assert json.dumps(typed.as_dict()) == json.dumps(data)
    assert typed.run.memory_agent is not None and typed.run.memory_agent.context_every_sessions == 3
    assert typed.errata is not None and typed.errata.corrections is not None
    assert typed.errata.corrections[0].published == ["a", 1]


def test_the_report_shows_what_the_typed_parts_hold(tmp_path):
    typed = parse_summary(_summary())
    text = render_markdown(tmp_path, typed, [], suites=SUITE_LOOKUP)
    assert "- memory agent: ingest unit session, raw_entry harness (the model named each message; the harness " \
           "stored its text), context written every 3 sessions" in text
    assert "> **Re-judged answers** of run `base` by `llm` (gpt-x), thresholds the defaults; the run's own report " \
           "is `../../report.html`." in text
    assert "- started: `2024-01-01T10:00:00+00:00`" in text and "took 12.5 s of wall time" in text
    assert "| `q0` | answer | [\"a\", 1] | b | wrong / correct | errata.json |" in text
    traces = dict(extra_sections(typed, SUITE_LOOKUP))["Traces"]
    assert "[p1](https://smith.example/p1) (LangSmith cloud; sample rate 0.5)" in traces


@pytest.mark.parametrize(("block", "key", "value", "field"), [
    ("run", "memory_agent", "message", "run.memory_agent"),
    ("run", "wall_s", "long", "run.wall_s"),
    ("errata", "questions", "one", "errata.questions"),
])
def test_a_part_of_the_wrong_type_is_refused_naming_its_field(block, key, value, field):
    data = _summary()
    data[block] = data[block] | {key: value}
    with pytest.raises(UserError, match=f"`{field}"):
        parse_summary(data, "summary.json")
