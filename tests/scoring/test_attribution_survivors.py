"""Attribution survivors of issue 42's mutation audit: each test fails when its one-line bug is planted
(per-type shares, the k-of-n counts of a partly written question, the write-matching rules at their edges),
and a results line whose evidence `turn_index` is not a whole number is skipped with a note, never a traceback."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarker.scoring.attribution import attribute, attribute_results, attribution_block, case_writes

WORDS = ("adopted", "beagle", "biscuit", "shelter")  # four content words (no stop words, all 3+ letters)


def line(question_id: str = "q1", label: bool | None = False, question_type: str = "single-session-user",
         evidence: list[tuple[str, int, str]] | None = None, **extra: Any) -> dict[str, Any]:
    turns = evidence if evidence is not None else [("s1", 2, "I adopted a beagle named Biscuit from the shelter.")]
    return {"case_id": "c1", "question_id": question_id, "question_type": question_type, "label": label,
            "retrieved": [], "evidence_turns": [[s, t] for s, t, _ in turns],
            "evidence": [{"session_id": s, "turn_index": t, "role": "user", "content": c} for s, t, c in turns]} | extra


def add(raw: str, session: str | None = "s1", tags: dict[str, Any] | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"vault_id": "v", "memory_id": "m", "raw_entry": raw, "summary": ""}
    if tags is not None:
        args["tags"] = tags
    return {"case_id": "c1", "tool": "add_entry", "session_id": session, "turn": 0, "args": args, "error": None}


def written(result: dict[str, Any], decisions: list[dict[str, Any]]) -> bool:
    """Whether the (only) evidence turn counts as stored, read through the whole scoring path."""
    found = attribute_results([result], decisions)[result["question_id"]]
    return found.evidence_written == "1 of 1"


def test_per_type_shares_sum_to_one_within_each_type() -> None:
    results = [line("a", True), line("b", False), line("c", False, "multi-session"), line("d", True, "multi-session"),
               line("e", True, "multi-session"), line("f", True, "temporal-reasoning")]
    stages = {q: a.stage for q, a in attribute_results(results, []).items()}
    block = attribution_block(results, stages)
    assert block is not None
    for qtype, cell in block["by_type"].items():
        assert sum(cell["shares"].values()) == pytest.approx(1.0, abs=1e-3), qtype
    assert block["by_type"]["single-session-user"]["shares"]["correct"] == 0.5
    assert block["by_type"]["multi-session"]["shares"]["correct"] == pytest.approx(2 / 3, abs=1e-4)
    assert block["by_type"]["temporal-reasoning"]["shares"]["correct"] == 1.0


def test_two_evidence_turns_one_written_none_seen_is_not_retrieved() -> None:
    two = line(evidence=[("s1", 2, "I adopted a beagle named Biscuit from the shelter."),
                         ("s2", 0, "My sister Ana moved to Lisbon in March for her new job.")])
    found = attribute(two, case_writes([add("x", tags={"session_id": "s1", "turn_index": 2})])["c1"])
    assert found is not None
    assert (found.stage, found.evidence_seen, found.evidence_written) == ("not_retrieved", "0 of 2", "1 of 2")
    assert found.fields() == {"attribution": "not_retrieved", "evidence_seen": "0 of 2", "evidence_written": "1 of 2"}


def test_an_entry_holding_only_the_first_200_characters_of_a_long_turn_is_written() -> None:
    head = "I adopted a beagle named Biscuit from the shelter on Elm Street last spring and he sleeps all day long. "
    tail = " ".join(f"distinctword{i}" for i in range(40))  # most content words come after character 200
    stored = (head * 3)[:200]
    text = stored + tail
    assert len(stored) == 200 and " " not in (stored[0], stored[-1], stored[-2])
    assert written(line(evidence=[("s1", 2, text)]), [add(f"note: {stored} (cut)")])
    assert not written(line(evidence=[("s1", 2, text)]), [add(f"note: {stored[:199]} (cut)")])


def test_exactly_half_of_four_content_words_matches() -> None:
    text = "adopted the beagle, Biscuit, at the shelter"
    assert {w for w in WORDS if w in text.casefold()} == set(WORDS)
    assert written(line(evidence=[("s1", 2, text)]), [add("Beagle from a shelter")])  # 2 of 4
    assert not written(line(evidence=[("s1", 2, text)]), [add("a shelter")])          # 1 of 4


def test_a_two_word_turn_never_matches_by_words() -> None:
    text = "Beagle? Biscuit."  # two content words, under the text rule's 20 characters
    assert not written(line(evidence=[("s1", 2, text)]), [add("The beagle is called Biscuit")])


def test_an_entry_tagged_with_another_session_counts_for_its_tags() -> None:
    turn = "I adopted a beagle named Biscuit from the shelter."
    # ingesting s9, the tags say s1 (a wrong turn): the text names s1's turn, so it was written for s1
    assert written(line(evidence=[("s1", 2, turn)]), [add(f"user: {turn}", session="s9",
                                                          tags={"session_id": "s1", "turn_index": 7})])
    # ingesting s1, the tags say s9: it counts for s9, not for the s1 turn it quotes
    assert not written(line(evidence=[("s1", 2, turn)]), [add(f"user: {turn}", session="s1",
                                                              tags={"session_id": "s9", "turn_index": 7})])


@pytest.mark.parametrize("bad", ["x", None, "²", 1.5, float("inf"), True])
def test_a_non_numeric_evidence_turn_index_is_skipped_with_a_note(bad: Any) -> None:
    result = line()
    result["evidence"].append({"session_id": "s1", "turn_index": bad, "role": "user", "content": "stray text"})
    result["evidence_turns"].append(["s1", bad])
    result["retrieved"] = [{"session_id": "s1", "turn_index": bad, "rank": 1}]
    decisions = [add("x", tags={"session_id": "s1", "turn_index": bad})]
    found = attribute_results([result], decisions)["q1"]
    assert (found.stage, found.evidence_written) == ("not_written", "0 of 1")  # the good turn still counts
    block = attribution_block([result], {"q1": found.stage})
    assert block is not None
    assert any("q1" in note and "turn_index" in note for note in block["notes"]), block["notes"]
