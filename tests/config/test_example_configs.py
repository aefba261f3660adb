"""Every shipped example config loads (credentials are read at run time, not at load time)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError

CONFIGS = sorted((Path(__file__).parents[2] / "configs").glob("*.toml"))


def test_examples_exist() -> None:
    names = {p.name for p in CONFIGS}
    assert {"quickstart.toml", "openai.toml", "bedrock.toml", "anthropic.toml",
            "mycelian_stack.toml", "sweep.toml", "retrieval.toml"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_example_loads(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_PROFILE", "AWS_ACCESS_KEY_ID"):
        monkeypatch.delenv(var, raising=False)
    text = path.read_text()
    if re.search(r'(?m)^kind = "locomo"', text):
        # LoCoMo is the user's file: the error names the key; with the file beside the config, it loads.
        with pytest.raises(ConfigError, match=r"\[dataset\]\.file"):
            load_config(path)
        fixture = Path(__file__).parents[1] / "locomo" / "fixtures" / "locomo_mini.json"
        (tmp_path / "locomo10.json").write_bytes(fixture.read_bytes())
        (tmp_path / path.name).write_text(text)
        assert load_config(tmp_path / path.name).dataset.kind == "locomo"
        return
    if not re.search(r"(?m)^dataset_repo_path =", text):
        load_config(path)
        return
    # The LongMemEval clone is not on this machine: the error must name the key ...
    with pytest.raises(ConfigError, match="dataset_repo_path"):
        load_config(path)
    # ... and with a clone in place, the same file loads.
    (tmp_path / "lme" / "data").mkdir(parents=True)
    for name in ("s", "m", "oracle"):
        (tmp_path / "lme" / "data" / f"longmemeval_{name}.json").write_text("[]")
    patched = re.sub(r'(?m)^dataset_repo_path = ".*?"', f'dataset_repo_path = "{tmp_path / "lme"}"',
                     text)
    copy = tmp_path / path.name
    copy.write_text(patched)
    cfg = load_config(copy)
    assert cfg.dataset_path is not None and cfg.dataset_path.is_file()
