"""`[dataset] conversations` picks LoCoMo conversations by sample_id (like BEAM's `chats`): only those are
ingested and asked, `[run]` selection works within them, an id the file lacks is one line naming the closest
one it holds, and a config without the key keeps its run id."""

from __future__ import annotations

from pathlib import Path

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.suites.locomo import SUITE
from benchmarker.suites.settings import PlanSettings

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_mini.json"


def config(tmp_path: Path, dataset: str = "", run: str = "") -> Path:
    path = tmp_path / "locomo.toml"
    path.write_text(f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"\n{dataset}\n[run]\noutput_dir = "runs"\n'
                    f"progress = false\n{run}\n", encoding="utf-8")
    return path


def planned(path: Path, tmp_path: Path) -> dict[str, list[str]]:
    plan = SUITE.data.plan(PlanSettings.of(load_config(path)), tmp_path)
    return {case.case_id: [q.question_id for q in case.questions] for group in plan.groups for case in group.cases()}


def test_only_the_named_conversations_are_planned(tmp_path):
    got = planned(config(tmp_path, 'conversations = ["conv-30"]'), tmp_path)
    assert list(got) == ["conv-30"] and len(got["conv-30"]) == 5
    plan = SUITE.data.plan(PlanSettings.of(load_config(config(tmp_path, 'conversations = ["conv-30"]'))), tmp_path)
    assert "5 questions over 1 conversation(s)" in plan.description
    assert "evidence id(s) dropped" not in plan.description  # conv-26's bad id is not this run's


def test_run_selection_applies_within_the_conversations(tmp_path):
    got = planned(config(tmp_path, 'conversations = ["conv-30"]', "limit = 2"), tmp_path)
    assert got == {"conv-30": ["conv-30-q001", "conv-30-q002"]}  # not conv-26's first two
    both = planned(config(tmp_path, 'conversations = ["conv-30", "conv-26"]'), tmp_path)
    assert sorted(both) == ["conv-26", "conv-30"] and sum(map(len, both.values())) == 15


def test_an_unknown_conversation_is_one_line_naming_the_closest(tmp_path, capsys):
    assert main(["estimate", str(config(tmp_path, 'conversations = ["conv-3"]'))]) == 2
    err = capsys.readouterr().err
    assert "[dataset].conversations: conversation(s) conv-3 (did you mean conv-30?)" in err
    assert "it holds conv-26, conv-30" in err and "Traceback" not in err


def test_the_key_is_checked_like_any_other(tmp_path, capsys):
    assert main(["estimate", str(config(tmp_path, 'conversation = ["conv-30"]'))]) == 2
    assert "[dataset].conversation: unknown key; did you mean `conversations`?" in capsys.readouterr().err
    assert main(["estimate", str(config(tmp_path, 'conversations = ["conv-30", "conv-30"]'))]) == 2
    assert "duplicate values conv-30" in capsys.readouterr().err


def test_set_changes_the_run_id(tmp_path):
    # unset, the key is not in the dumped config, so an existing config's run id (and its resume) is unchanged
    plain = load_config(config(tmp_path)).run_id
    assert "conversations" not in load_config(config(tmp_path)).dataset.model_dump()
    assert load_config(config(tmp_path, 'conversations = ["conv-26"]')).run_id != plain
