"""The allowlist and the diff applier: what the self-improve loop may change, and how strictly."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.graph.self_improve.allowlist import Refused, check_proposal, config_delta, prompt_file
from benchmarker.graph.self_improve.candidate import CandidateError, apply_proposal, baseline_candidate, prompts_of
from benchmarker.graph.self_improve.diffs import PatchError, apply_hunks, apply_patch, parse_unified_diff

ROOT = Path(__file__).resolve().parents[3]


def _diff(path: str, old: str = "old line", new: str = "new line") -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n-{old}\n+{new}\n"


# --- allowlist ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "prompts/judge_base.txt", "prompts/judge_temporal.txt", "prompts/rubric_temporal_awareness.txt",
    "prompts/fact_judge.txt", "prompts/self_improve_propose.txt", "prompts/self_improve_review.txt",
    "benchmarker/scoring/grader.py", "benchmarker/scoring/judge.py", "benchmarker/graph/self_improve/allowlist.py",
    "benchmarker/datasets/fact_cases.json", "runs/x/data/sample_longmemeval.json",
    "prompts/../prompts/qa_reader.txt", "../qa_reader.txt", "prompts/./qa_reader.txt",
    "/etc/passwd", "/work/main/prompts/qa_reader.txt", "C:/prompts/qa_reader.txt", "prompts\\qa_reader.txt",
])
def test_diffs_outside_the_allowlist_are_refused(path: str) -> None:
    with pytest.raises(Refused):
        check_proposal({"kind": "diff", "diff": _diff(path)})


@pytest.mark.parametrize("path,name", [
    ("prompts/qa_reader.txt", "qa_reader.txt"), ("qa_reader.txt", "qa_reader.txt"),
    ("prompts/memory_agent_prefix.txt", "memory_agent_prefix.txt"), ("prompts/agent_turn.txt", "agent_turn.txt"),
])
def test_diffs_against_the_prompt_copies_are_accepted(path: str, name: str) -> None:
    assert prompt_file(path) == name
    assert check_proposal({"kind": "diff", "diff": _diff(path)})["files"] == [name]


def test_a_diff_creating_or_deleting_a_file_is_refused() -> None:
    create = "--- /dev/null\n+++ b/prompts/qa_reader.txt\n@@ -0,0 +1,1 @@\n+x\n"
    with pytest.raises(Refused):
        check_proposal({"kind": "diff", "diff": create})


@pytest.mark.parametrize("delta", [
    {"eval.judge": "deterministic"}, {"judge": "llm"}, {"eval.votes": 9}, {"dataset.kind": "sample"},
    {"dataset.file": "/tmp/x.json"}, {"self_improve.min_gain": 0.0}, {"self_improve.iterations": 50},
    {"params.use_llm_judge": False}, {"models.eval": "gpt-4o"}, {"top_k": 5, "eval.judge": "llm"},
    {"top_k": 0}, {"top_k": 101}, {"top_k": 2.5}, {"top_k": True}, {"alpha": 1.5}, {"alpha": float("nan")},
    {"context_cadence": "6"}, {},
])
def test_config_deltas_outside_the_allowlist_are_refused(delta: dict) -> None:
    with pytest.raises(Refused):
        check_proposal({"kind": "config", "delta": delta})


def test_tunable_deltas_are_accepted_and_canonical() -> None:
    assert config_delta({"top_k": 10, "alpha": 0.25, "context_cadence": 4}) == \
        {"top_k": 10, "alpha": 0.25, "context_cadence": 4}
    assert config_delta({"params.top_k": 5.0, "memory.search_alpha": 1}) == {"top_k": 5, "alpha": 1.0}


def test_an_unknown_proposal_kind_is_refused() -> None:
    with pytest.raises(Refused):
        check_proposal({"kind": "shell", "command": "rm -rf /"})


# --- unified diff applier ---------------------------------------------------------------------

TEXT = "alpha\nbeta\ngamma\ndelta\nepsilon\n"


def test_a_correct_hunk_applies() -> None:
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n beta\n-gamma\n+GAMMA\n delta\n"
    assert apply_patch({"f.txt": TEXT}, diff) == {"f.txt": "alpha\nbeta\nGAMMA\ndelta\nepsilon\n"}


def test_insertions_deletions_and_several_hunks() -> None:
    diff = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n alpha\n+inserted\n beta\n"
            "@@ -4,2 +5,1 @@\n delta\n-epsilon\n")
    assert apply_patch({"f.txt": TEXT}, diff)["f.txt"] == "alpha\ninserted\nbeta\ngamma\ndelta\n"


def test_a_hunk_at_the_wrong_line_applies_only_where_its_text_is_unique() -> None:
    moved = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n gamma\n-delta\n+DELTA\n"  # really at line 3
    assert apply_patch({"f.txt": TEXT}, moved)["f.txt"] == "alpha\nbeta\ngamma\nDELTA\nepsilon\n"
    twice = "x\ny\nx\ny\n"
    with pytest.raises(PatchError, match="occurs 2 times"):
        apply_patch({"f.txt": twice}, "--- a/f.txt\n+++ b/f.txt\n@@ -9,1 +9,1 @@\n-x\n+z\n")


def test_a_hunk_whose_context_does_not_match_is_refused() -> None:
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n beta\n-gamma\n+GAMMA\n Delta\n"  # 'Delta' != 'delta'
    with pytest.raises(PatchError, match="does not apply"):
        apply_patch({"f.txt": TEXT}, diff)
    whitespace = "--- a/f.txt\n+++ b/f.txt\n@@ -2,1 +2,1 @@\n-beta \n+BETA\n"
    with pytest.raises(PatchError):
        apply_patch({"f.txt": TEXT}, whitespace)


def test_header_counts_must_match_the_hunk_body() -> None:
    with pytest.raises(PatchError, match="header counts"):
        parse_unified_diff("--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n beta\n-gamma\n+GAMMA\n")


def test_no_hunks_is_an_error() -> None:
    with pytest.raises(PatchError):
        parse_unified_diff("please make the reader better")


def test_apply_hunks_keeps_a_missing_final_newline() -> None:
    patches = parse_unified_diff("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+b\n\\ No newline at end of file\n")
    assert apply_hunks("a", patches[0].hunks) == "b"


# --- applying proposals to candidate copies -----------------------------------------------------

@pytest.fixture()
def root(tmp_path: Path) -> tuple[Path, dict]:
    loop = tmp_path / "run" / "self_improve"
    base = baseline_candidate(loop, {"top_k": 1, "alpha": None}, ROOT / "prompts")
    return loop, base


def test_a_config_delta_becomes_a_candidate_with_copied_prompts(root) -> None:
    loop, base = root
    cand = apply_proposal(loop, base, {"kind": "config", "delta": {"top_k": 5}}, 1)
    assert cand["tunables"] == {"top_k": 5, "alpha": None}
    assert cand["key"] != base["key"] and cand["prompts_hash"] == base["prompts_hash"]
    assert (loop / "candidates" / "1" / "tunables.json").exists()
    assert (prompts_of(loop, cand) / "qa_reader.txt").read_text() == (ROOT / "prompts" / "qa_reader.txt").read_text()


def test_a_prompt_diff_patches_only_the_copy(root) -> None:
    loop, base = root
    original = (ROOT / "prompts" / "qa_reader.txt").read_text(encoding="utf-8")
    line = next(x for x in original.splitlines() if x.startswith("- Answer concisely"))
    n = original.splitlines().index(line) + 1
    diff = (f"--- a/prompts/qa_reader.txt\n+++ b/prompts/qa_reader.txt\n@@ -{n},1 +{n},2 @@\n {line}\n"
            "+- Quote numbers exactly as the memory states them.\n")
    cand = apply_proposal(loop, base, {"kind": "diff", "diff": diff, "rationale": "test"}, 1)
    patched = (prompts_of(loop, cand) / "qa_reader.txt").read_text(encoding="utf-8")
    assert "Quote numbers exactly" in patched
    assert (ROOT / "prompts" / "qa_reader.txt").read_text(encoding="utf-8") == original  # shipped prompt untouched
    assert cand["prompts_hash"] != base["prompts_hash"]
    assert (loop / "candidates" / "1" / "change.diff").read_text() == diff


def test_a_diff_that_breaks_the_prompt_format_is_refused(root) -> None:
    loop, base = root
    diff = ("--- a/prompts/qa_reader.txt\n+++ b/prompts/qa_reader.txt\n@@ -12,1 +12,1 @@\n"
            "-=== END MEMORY CONTEXT ===\n+=== END ===\n")
    with pytest.raises(CandidateError, match="broken"):
        apply_proposal(loop, base, {"kind": "diff", "diff": diff}, 1)
    assert not (loop / "candidates" / "1").exists()


def test_apply_checks_the_allowlist_again(root) -> None:
    loop, base = root
    with pytest.raises(Refused):
        apply_proposal(loop, base, {"kind": "diff", "diff": _diff("prompts/judge_base.txt")}, 1)
    with pytest.raises(Refused):
        apply_proposal(loop, base, {"kind": "config", "delta": {"eval.judge": "deterministic"}}, 1)
    with pytest.raises(CandidateError, match="does not apply"):
        apply_proposal(loop, base, {"kind": "diff", "diff": _diff("prompts/qa_reader.txt", "no such line")}, 1)
