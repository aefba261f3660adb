"""configs/lean.toml loads, and the issue-28 [agent] keys are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_lean_config_loads_with_the_cheapest_agent_settings(tmp_path):
    (tmp_path / "LongMemEval").mkdir()  # the clone it names, beside a copy of the file
    (tmp_path / "LongMemEval" / "longmemeval_s.json").write_text("[]", encoding="utf-8")
    (tmp_path / "configs").mkdir()
    text = (ROOT / "configs" / "lean.toml").read_text(encoding="utf-8")
    (tmp_path / "configs" / "lean.toml").write_text(text.replace("../../LongMemEval", "../LongMemEval"), encoding="utf-8")
    agent = load_config(tmp_path / "configs" / "lean.toml").agent
    assert (agent.ingest_unit, agent.raw_entry, agent.context_update, agent.context_every_sessions) == (
        "session", "harness", "session", 4)


@pytest.mark.parametrize("extra, key", [
    ('[agent]\ncontext_every_sessions = 3\n', "context_every_sessions"),
    ('[agent]\nraw_entry = "harness"\n[memory]\npreset = "mcp-server-memory"\n', "raw_entry"),
])
def test_agent_keys_that_cannot_apply_are_refused(tmp_path, extra, key):
    path = tmp_path / "run.toml"
    path.write_text('[dataset]\nkind = "sample"\n' + extra, encoding="utf-8")
    with pytest.raises(ConfigError, match=key):
        load_config(path)
