"""LoCoMo evidence ids: the obvious slips are repaired to the id they mean, and every id that cannot
be used is dropped with its reason (unparseable, or names no turn), counted and listed in the
loaded file, the answer lines, summary.json, the report and the plan's manifest block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarker.graph.qa import base_record
from benchmarker.reporting.section_render import section_lines
from benchmarker.suites.locomo import SUITE
from benchmarker.suites.locomo.data import load_locomo
from benchmarker.suites.locomo.evidence import NO_TURN, UNPARSEABLE, canonical, parse_evidence
from benchmarker.suites.locomo.report import locomo_section
from benchmarker.suites.settings import PlanSettings
from tests.suites.locomo.test_locomo_summary import line

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_mini.json"
numbers = st.integers(min_value=1, max_value=999)


# --- the parser ----------------------------------------------------------------------------------

@given(st.lists(st.tuples(numbers, numbers), max_size=6, unique=True), st.sampled_from(["list", "; ", ", ", " "]))
def test_well_formed_ids_round_trip(ids, joined):
    texts = [f"D{n}:{i}" for n, i in ids]
    parsed = parse_evidence(texts if joined == "list" else joined.join(texts))
    assert parsed.ids == ids and parsed.repaired == [] and parsed.unparseable == []
    assert [canonical(n, i) for n, i in parsed.ids] == texts


REPAIRS = ["D:{n}:{i}", "D{n}: {i}", "d{n}:{i}", "D{n}:{i} ", " D{n}:{i}", "D{n} :{i}", "D{n}:{i};", "D{n}:{i},",
           "D{n} : {i}", "D0{n}:0{i}", "d:{n}:{i}.", "D{n}:{i}\t"]


@given(numbers, numbers, st.sampled_from(REPAIRS))
def test_repaired_forms_map_to_the_canonical_id(n, i, form):
    written = form.format(n=n, i=i)
    parsed = parse_evidence([written])
    assert parsed.ids == [(n, i)] and parsed.unparseable == []
    canonical = f"D{n}:{i}"
    assert parsed.repaired == ([] if written.strip(" \t;,") == canonical else [(written.strip(), canonical)])


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=3),
                           max_leaves=12)


@given(json_values)
def test_garbage_is_reported_never_raises(value):
    parsed = parse_evidence(value)
    assert all(isinstance(text, str) and text for text in parsed.unparseable)
    assert all(n >= 0 and i >= 0 for n, i in parsed.ids)


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd", "Cs"), blacklist_characters=";,."), min_size=1))
def test_text_without_numbers_is_unparseable_not_lost(text):
    parsed = parse_evidence([text])
    assert parsed.ids == []
    assert bool(parsed.unparseable) == bool(text.strip())  # blank is no id at all; anything else is reported


def test_the_reported_slips():
    parsed = parse_evidence(["D:11:26", "D", "D8:6; D9:17", "D1:2 D1:3", "session 4", 7, None])
    assert parsed.ids == [(11, 26), (8, 6), (9, 17), (1, 2), (1, 3)]
    assert parsed.repaired == [("D:11:26", "D11:26")]
    assert parsed.unparseable == ["D", "session 4", "7", "null"]


# --- the file, the answer lines, the summary and the report ---------------------------------------

def malformed(tmp_path: Path) -> Path:
    data = json.loads(FIXTURE.read_text())
    qa = data[0]["qa"]
    qa[0]["evidence"] = ["D:1:3"]        # conv-43's slip: D1:3
    qa[1]["evidence"] = ["D"]            # conv-42's bare D
    qa[2]["evidence"] = ["d1:6", "D1 :4; D7:1"]  # repaired, repaired, names no turn
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    return path


def test_every_dropped_id_is_counted_and_listed_with_its_reason(tmp_path):
    parsed = load_locomo(malformed(tmp_path))
    questions = {q.question_id: q for q in parsed.cases[0].questions}
    assert questions["conv-26-q001"].evidence["turns"] == [["session_1", 2]]  # D:1:3 -> D1:3 is kept
    assert questions["conv-26-q001"].answer_session_ids == ("session_1",)
    assert questions["conv-26-q003"].evidence["turns"] == [["session_1", 5], ["session_1", 3]]
    dropped = [(d.question_id, d.id, d.reason) for d in parsed.dropped]
    assert dropped == [("conv-26-q002", "D", UNPARSEABLE), ("conv-26-q003", "D7:1", NO_TURN),
                       ("conv-26-q007", "D9:99", NO_TURN)]
    assert parsed.dropped_evidence == 3
    assert [(r.question_id, r.id, r.canonical) for r in parsed.repaired] == [
        ("conv-26-q001", "D:1:3", "D1:3"), ("conv-26-q003", "d1:6", "D1:6"), ("conv-26-q003", "D1 :4", "D1:4")]
    record = base_record(SUITE, parsed.cases[0], questions["conv-26-q002"])   # the answer line says what was dropped
    assert record["evidence_dropped"] == [{"id": "D", "reason": UNPARSEABLE}] and record["evidence_turns"] == []
    assert "evidence_dropped" not in base_record(SUITE, parsed.cases[0], questions["conv-26-q004"])


def test_the_summary_report_and_console_say_what_was_dropped():
    clean = line(1, 4, True, 1.0, 1.0)
    slips = line(2, 4, True, 1.0, 1.0) | {"evidence_dropped": [{"id": "D", "reason": UNPARSEABLE}],
                                          "evidence_repaired": [{"id": "D:11:26", "as": "D11:26"}]}
    gone = line(3, 2, False, 0.0, 0.0) | {"evidence_dropped": [{"id": "D9:99", "reason": NO_TURN}]}
    notes: list[str] = []
    block = SUITE.reporting.summary_blocks([clean, slips, gone], notes)["locomo"]
    assert block["evidence"] == {
        "dropped": 2, "unparseable": 1, "names_no_turn": 1, "repaired": 1,
        "dropped_ids": [{"question_id": "conv-26-q002", "id": "D", "reason": UNPARSEABLE},
                        {"question_id": "conv-26-q003", "id": "D9:99", "reason": NO_TURN}],
        "repaired_ids": [{"question_id": "conv-26-q002", "id": "D:11:26", "as": "D11:26"}]}
    said = [n for n in notes if "evidence id" in n]
    assert len(said) == 1 and "2 evidence id(s) dropped (1 unparseable, 1 name no turn)" in said[0]
    assert "conv-26-q002 `D` (unparseable)" in said[0] and "1 repaired" in said[0]
    assert any("2 evidence id(s) dropped" in text for text in section_lines(locomo_section(block)))
    assert ("evidence ids dropped", "2 (1 unparseable, 1 name no turn); 1 repaired") in \
        SUITE.reporting.console_rows({"locomo": block})
    clean_block = SUITE.reporting.summary_blocks([clean], [])["locomo"]
    assert clean_block["evidence"]["dropped"] == 0
    # the terminal table shows LoCoMo's own metrics (F1 and BLEU-1 over categories 1-4), and no evidence row
    assert [name for name, _ in SUITE.reporting.console_rows({"locomo": clean_block})] == ["F1 (categories 1-4)",
                                                                                  "BLEU-1 (categories 1-4)"]


def test_the_plan_lists_every_dropped_id_for_the_manifest(tmp_path, caplog):
    from benchmarker.config import load_config

    config_path = tmp_path / "run.toml"
    config_path.write_text(f'[dataset]\nkind = "locomo"\nfile = "{malformed(tmp_path)}"\n[run]\noutput_dir = "runs"\n',
                           encoding="utf-8")
    config = load_config(config_path)
    with caplog.at_level("WARNING"):
        plan = SUITE.data.plan(PlanSettings.of(config), tmp_path)
    evidence = plan.details["evidence"]
    assert (evidence["dropped"], evidence["unparseable"], evidence["names_no_turn"], evidence["repaired"]) == (3, 1, 2, 3)
    assert {"question_id": "conv-26-q002", "id": "D", "reason": UNPARSEABLE} in evidence["dropped_ids"]
    assert "3 evidence id(s) dropped (1 unparseable, 2 name no turn), 3 repaired" in plan.description
    assert "3 evidence id(s) dropped" in caplog.text and "conv-26-q002 `D` (unparseable)" in caplog.text


@pytest.mark.parametrize("value", [None, [], ""])
def test_no_evidence_is_not_a_drop(value):
    parsed = parse_evidence(value)
    assert parsed.ids == [] and parsed.unparseable == [] and parsed.repaired == []
