"""`replay` on the suites whose case is a conversation (LoCoMo, BEAM): one ingestion per conversation in
the source, replayed once per conversation, every question answered once from it; `compare` reads both.
Suites that score the agent itself refuse, each with its own reason, and docs/replay.md lists which replay.

The sources are real offline agent runs (built once per test process): the LoCoMo fixture's two
conversations, and the first of the shared BEAM 100K conversations with two of its abilities."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.log.jsonl import read_jsonl
from benchmarker.registry import DATASET_KINDS, suite
from benchmarker.run.runner import execute_run
from benchmarker.verbs.replay import execute_replay
from tests.once import built_once
from tests.verbs.test_replay import ingested, stored, without_run_id, writes
from tests.suites.beam.conftest import BEAM_100K

pytestmark = pytest.mark.slow

LOCOMO = Path(__file__).parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"
LOCOMO_DATA = f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO}"\n'
BEAM_DATA = f'[dataset]\nkind = "beam"\nfile = "{BEAM_100K}"\nsize = "100K"\nchats = [1]\n'
BEAM_RUN = 'question_types = ["information_extraction", "abstention"]\n'
DOCS = Path(__file__).parents[2] / "docs" / "replay.md"


def write_config(path: Path, dataset: str, *, memory: str = "", run: str = "", top: str = "") -> Path:
    path.write_text(f'{top}{dataset}[memory]\nembedder = "static"\n{memory}[run]\noutput_dir = "{path.parent / "runs"}"\n'
                    f"progress = false\nconcurrency = 2\n{run}", encoding="utf-8")
    return path


def agent_run(root: Path, dataset: str, run: str = "") -> Path:
    outcome = asyncio.run(execute_run(load_config(write_config(root / "source.toml", dataset, run=run,
                                                               top='run_id = "source"\n'))))
    assert not outcome.skipped
    return outcome.run_dir


@pytest.fixture(scope="module")
def locomo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once("replay-locomo-source", lambda: agent_run(tmp_path_factory.mktemp("locomo-src"), LOCOMO_DATA))


@pytest.fixture(scope="module")
def beam_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (BEAM_100K / "1" / "chat.json").is_file():
        pytest.skip(f"the shared BEAM sample is absent ({BEAM_100K}); see ../shared/data/beam/README.md")
    return built_once("replay-beam-source",
                      lambda: agent_run(tmp_path_factory.mktemp("beam-src"), BEAM_DATA, BEAM_RUN))


def check_replayed_per_conversation(source: Path, replayed: Path, conversations: list[str]) -> None:
    """Each conversation's memory holds the source's entries once; every question answered once, no agent call."""
    src_memories, new_memories = ingested(source), ingested(replayed)
    assert sorted(new_memories) == sorted(src_memories) == conversations
    ingestions = [m["case_id"] for m in read_jsonl(replayed / "memories.jsonl") if m["status"] == "ingested"]
    assert sorted(ingestions) == conversations  # once per conversation, not once per question
    for case, memory_id in src_memories.items():
        before = without_run_id(stored(source, memory_id))
        assert before and without_run_id(stored(replayed, new_memories[case])) == before
    assert len(writes(replayed, "replay")) == len(writes(source, "agent"))
    assert not [d for d in read_jsonl(replayed / "decisions.jsonl") if d.get("caller") == "agent"]
    answered = [a["question_id"] for a in read_jsonl(replayed / "answers.jsonl")]
    source_ids = {a["question_id"] for a in read_jsonl(source / "answers.jsonl")}
    assert len(answered) == len(set(answered)) and set(answered) == source_ids
    assert len({r["question_id"] for r in read_jsonl(replayed / "results.jsonl")}) == len(source_ids)
    manifest = json.loads((replayed / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["replay"]["cases"] == len(conversations) and manifest["replay"]["source_run_id"] == "source"


def compare_reads_both(source: Path, replayed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["compare", str(source), str(replayed)]) == 0
    out = capsys.readouterr().out
    assert source.name in out and replayed.name in out


def test_locomo_replays_once_per_conversation_and_compare_reads_both(locomo_source: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path / "bm25.toml", LOCOMO_DATA, memory="alpha = 0.0\n")
    assert main(["replay", str(locomo_source), str(cfg)]) == 0
    out = capsys.readouterr().out
    (replayed,) = (tmp_path / "runs").glob("bm25-replay-*")
    assert re.search(r"\d+ writes replayed", out) and "agent model calls" in out
    check_replayed_per_conversation(locomo_source, replayed, ["conv-26", "conv-30"])
    compare_reads_both(locomo_source, replayed, capsys)


def test_a_conversation_replays_whichever_of_its_questions_are_asked(locomo_source: Path, tmp_path: Path) -> None:
    # The memory of a conversation is the same whichever of its questions a run asks: a replay selecting
    # only conv-30's questions replays conv-30 alone, and answers exactly those.
    wanted = ["conv-30-q002", "conv-30-q005_abs"]
    cfg = write_config(tmp_path / "one.toml", LOCOMO_DATA, run=f"question_ids = {json.dumps(wanted)}\n")
    outcome = asyncio.run(execute_replay(locomo_source, load_config(cfg)))
    assert not outcome.skipped
    assert [m["case_id"] for m in read_jsonl(outcome.run_dir / "memories.jsonl") if m["status"] == "ingested"] \
        == ["conv-30"]
    assert {d["case_id"] for d in writes(outcome.run_dir, "replay")} == {"conv-30"}
    assert sorted(a["question_id"] for a in read_jsonl(outcome.run_dir / "answers.jsonl")) == wanted
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["replay"]["cases"] == 1
    assert manifest["replay"]["decisions_replayed"] == len([d for d in writes(locomo_source, "agent")
                                                            if d["case_id"] == "conv-30"])


def test_beam_replays_once_per_conversation_and_compare_reads_both(beam_source: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path / "bm25.toml", BEAM_DATA, memory="alpha = 0.0\n", run=BEAM_RUN)
    outcome = asyncio.run(execute_replay(beam_source, load_config(cfg)))
    assert not outcome.skipped
    check_replayed_per_conversation(beam_source, outcome.run_dir, ["beam-100K-1"])
    summary = json.loads((outcome.run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["beam"]["overall"]["scored"] == len(list(read_jsonl(beam_source / "results.jsonl")))
    compare_reads_both(beam_source, outcome.run_dir, capsys)


@pytest.mark.parametrize(("kind", "own", "other"), [
    ("levels", "tool calls", "fact"),
    ("fact_extraction", "facts the memory agent", "tool calls"),
])
def test_a_suite_that_cannot_replay_says_its_own_reason(locomo_source: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        kind: str, own: str, other: str) -> None:
    cfg = tmp_path / f"{kind}.toml"
    cfg.write_text(f'[dataset]\nkind = "{kind}"\n[run]\noutput_dir = "{tmp_path / "runs"}"\n', encoding="utf-8")
    assert main(["replay", str(locomo_source), str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(cfg) in err and f"kind = '{kind}' cannot be replayed" in err
    assert own in err and other not in err  # this suite's reason, not another suite's
    assert "locomo" in err and "beam" in err  # the suites that do replay
    assert not (tmp_path / "runs").exists()


def test_docs_list_which_suites_replay() -> None:
    """docs/replay.md's table says, for every built-in suite, whether it replays, as the suites do."""
    rows = [line.split("|") for line in DOCS.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    said = {kind: cells[2].strip().startswith("yes") for cells in rows for kind in re.findall(r"`(\w+)`", cells[1])}
    assert said == {kind: suite(kind).protocol.replayable for kind in DATASET_KINDS}
    assert said["locomo"] and said["beam"] and not said["levels"] and not said["fact_extraction"]
