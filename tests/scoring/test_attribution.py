"""Attribution on known inputs: each stage from its definition, every way a write is matched to a turn, and
the summary block, compare moves and report section built from them."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarker.reporting.attribution_compare import stage_moves
from benchmarker.reporting.attribution_report import attribution_section
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.scoring.attribution import Write, attribute, attribute_results, attribution_block, case_writes

TURN = "I adopted a beagle named Biscuit from the shelter on Elm Street last spring."


def line(label: bool | None = False, **extra: Any) -> dict[str, Any]:
    base = {"case_id": "c1", "question_id": "q1", "question_type": "single-session-user", "label": label,
            "evidence_turns": [["s1", 2]], "retrieved": [],
            "evidence": [{"session_id": "s1", "turn_index": 2, "role": "user", "content": TURN}]}
    return base | extra


def add(raw: str, summary: str = "", session: str | None = "s1", turn: int | None = 2,
        tags: dict[str, str] | None = None, tool: str = "add_entry", error: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"vault_id": "v", "memory_id": "m", "raw_entry": raw, "summary": summary}
    if tags is not None:
        args["tags"] = tags
    return {"case_id": "c1", "tool": tool, "session_id": session, "turn": turn, "args": args, "error": error}


def stage(result: dict[str, Any], decisions: list[dict[str, Any]], tools: frozenset[str] = frozenset({"add_entry"})):
    found = attribute(result, case_writes(decisions, tools).get("c1", []))
    return None if found is None else (found.stage, found.evidence_seen, found.evidence_written)


TAGGED = {"session_id": "s1", "turn_index": "2"}


def test_each_stage_follows_its_definition() -> None:
    hit = {"session_id": "s1", "turn_index": 2, "rank": 3}
    assert stage(line(None), []) is None  # unjudged: nothing to attribute
    assert stage(line(True), []) == ("correct", "0 of 1", "0 of 1")
    assert stage(line(False, question_id="q1_abs", is_abstention=True), []) == ("false_answer", "0 of 1", "0 of 1")
    assert stage(line(True, question_id="q1_abs", is_abstention=True), [])[0] == "correct"  # declined
    assert stage(line(False), []) == ("not_written", "0 of 1", "0 of 1")
    assert stage(line(False), [add("x", tags=TAGGED, error="boom")])[0] == "not_written"  # a failed call stored nothing
    assert stage(line(False), [add("x", tags=TAGGED)]) == ("not_retrieved", "0 of 1", "1 of 1")
    assert stage(line(False, retrieved=[hit]), [add("x", tags=TAGGED)]) == ("not_used", "1 of 1", "1 of 1")
    assert stage(line(False, evidence_turns=[], evidence=[]), [add("x", tags=TAGGED)]) == ("no_evidence", None, None)


def test_two_evidence_turns_one_seen_is_not_retrieved_with_k_of_n() -> None:
    two = line(False, evidence_turns=[["s1", 2], ["s2", 0]], retrieved=[{"session_id": "s2", "turn_index": 0, "rank": 1}])
    writes = [add("x", tags=TAGGED), add("y", session="s2", turn=0, tags={"session_id": "s2", "turn_index": "0"})]
    assert stage(two, writes) == ("not_retrieved", "1 of 2", "2 of 2")


@pytest.mark.parametrize(("write", "written"), [
    (add(f"[2023/05/01] user: {TURN}", session="s1", turn=5), True),                        # model raw_entry holds the text
    (add("User adopted beagle Biscuit from Elm Street shelter in spring.", turn=None), True),  # paraphrase: >= half the words
    (add("User talked about the weather.", turn=2), False),                                  # same session, other content
    (add(f"[2023/05/01] user: {TURN}", session="s9"), False),                                # the text, but another session
    (add(f"user: {TURN}", session="s1", tags={"session_id": "s1", "turn_index": "3"}), True),  # tags guessed the turn wrong
    (add("ok", tags=TAGGED, session="s9"), True),                                            # tags name it outright
])
def test_a_write_is_matched_to_its_turn_by_tags_or_text(write: dict[str, Any], written: bool) -> None:
    assert (stage(line(False), [write])[0] != "not_written") is written


def test_a_mapped_servers_write_tool_and_text_arguments_count() -> None:
    mapped = {"case_id": "c1", "tool": "create_entities", "session_id": "s1", "turn": 2, "error": None,
              "args": {"entities": "x", "observation": TURN}}
    assert stage(line(False), [mapped])[0] == "not_written"  # not a write tool of this run
    assert stage(line(False), [mapped], frozenset({"create_entities"}))[0] == "not_retrieved"
    assert Write.of(mapped).raw_entry.endswith(TURN)


def test_the_readers_context_counts_as_seen() -> None:
    summary = "On 2023-05-01 the user said they adopted Biscuit, a beagle."
    context = f"## Memory context\n- {summary.upper()}\n## Retrieved memory entries\n[1] something else"
    found = attribute(line(False, reader_context=context), case_writes([add("x", summary, tags=TAGGED)])["c1"])
    assert found is not None and (found.stage, found.evidence[0].seen_via) == ("not_used", "context")
    assert stage(line(False, reader_context=f"... {TURN} ..."), [add("x", tags=TAGGED)])[0] == "not_used"
    assert stage(line(False, reader_context="Thanks!"), [add("Thanks!", tags=TAGGED)])[0] == "not_retrieved"


def test_outside_agents_and_oracle_answers() -> None:
    outside = line(False, agent={"name": "http"})
    outside.pop("retrieved")
    assert stage(outside, [add("x", tags=TAGGED)])[0] == "unattributed"  # nothing of its memory can be inspected
    assert stage(outside | {"label": True}, [])[0] == "correct"
    assert stage(outside | {"is_abstention": True}, [])[0] == "false_answer"
    assert stage(line(False, mode="oracle"), []) is None


def test_summary_block_report_and_compare_moves(tmp_path) -> None:
    results = [line(True, question_id="a"), line(False, question_id="b"),
               line(False, question_id="c", question_type="multi-session", retrieved=[{"session_id": "s1", "turn_index": 2}]),
               line(None, question_id="d")]
    decisions = [add("x", tags=TAGGED) | {"case_id": "c1"}, add("noise", tags=TAGGED, tool="search_memories")]
    stages = {q: a.stage for q, a in attribute_results(results, decisions).items()}
    assert stages == {"a": "correct", "b": "not_retrieved", "c": "not_used"}
    block = attribution_block(results, stages)
    assert block is not None and block["n"] == 3 and block["lost_by_memory"] == 1
    assert block["by_type"]["multi-session"]["counts"]["not_used"] == 1
    assert block["shares"]["correct"] == pytest.approx(1 / 3, abs=1e-4)
    text = "\n".join(attribution_section(RunSummary.model_validate({"attribution": block, "qa": {}}), tmp_path))
    assert "## Where answers were lost" in text and (tmp_path / "attribution.png").is_file()
    assert "| **overall** | 3 |" in text
    assert attribution_block([line(None)], {}) is None
    base = [{"question_id": q, "attribution": s} for q, s in stages.items()]
    other = [{"question_id": "a", "attribution": "correct"}, {"question_id": "b", "attribution": "correct"},
             {"question_id": "c", "attribution": "not_written"}, {"question_id": "d", "attribution": None}]
    moves = stage_moves(base, other)
    assert moves["n_common"] == 3 and moves["moves"] == {"not_retrieved -> correct": ["b"],
                                                         "not_used -> not_written": ["c"]}


def test_a_resumed_run_reads_a_cases_writes_back_from_the_file(tmp_path) -> None:
    """Scoring after a restart: the case's writes come from decisions.jsonl by offset, this process's otherwise."""
    from benchmarker.log.records import DecisionRecord
    from benchmarker.log.store import RunLog

    first = RunLog(tmp_path)
    rows = [("c1", "agent", "add_entry", "m1", None), ("c1", "agent", "add_entry", "m0", None),  # an abandoned memory
            ("c1", "agent", "add_entry", "m1", "boom"), ("c1", "harness", "search_memories", "m1", None),
            ("c2", "agent", "add_entry", "m2", None), ("c1", "replay", "add_entry", "m1", None),
            ("c1", "harness", "_ingest_done", None, None)]
    for case, caller, tool, memory, error in rows:
        first.append(DecisionRecord(case_id=case, caller=caller, tool=tool, error=error,
                                    args={"memory_id": memory, "raw_entry": f"{caller} {memory}"} if memory else {}))
    here = first.memory_writes("c1", "m1", frozenset({"add_entry"}))
    first.close()
    with (tmp_path / "decisions.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"case_id": "c1", "tool": "add_en')  # a torn last line is skipped
    later = RunLog(tmp_path).memory_writes("c1", "m1", frozenset({"add_entry"}))
    assert [w["args"]["raw_entry"] for w in later] == ["agent m1", "replay m1"]
    assert sorted(w["args"]["raw_entry"] for w in here) == ["agent m1", "replay m1"]
