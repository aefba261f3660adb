"""An error's advice must itself be valid: doing exactly what the message says gives a config that loads.

Issue 37: a newcomer made configs/openai.toml offline; the first error said `eval = ""`, and doing that
produced a second error (`judge = "llm"` needs an eval model) whose own example (`eval = "gpt-4o-mini"`)
an offline provider refuses again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError

OFFLINE_WITH_LLM_JUDGE = """\
[provider]
type = "offline"
[models]
agent = "offline-memory-agent"
qa = "offline-reader"
eval = "{eval}"
[eval]
judge = "{judge}"
"""


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


@pytest.mark.parametrize("judge", ["llm", "official"])
def test_offline_with_a_real_judge_model_advises_a_config_that_loads(tmp_path: Path, judge: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(OFFLINE_WITH_LLM_JUDGE.format(eval="gpt-4o", judge=judge), encoding="utf-8")
    message = _error(config)
    assert '[models].eval: got "gpt-4o"' in message
    assert '"" and [eval].judge = "deterministic"' in message, message
    # follow the advice to the letter: eval = "" and judge = "deterministic"
    config.write_text(OFFLINE_WITH_LLM_JUDGE.format(eval="", judge="deterministic"), encoding="utf-8")
    assert load_config(config).eval.judge == "deterministic"


def test_offline_with_llm_judge_and_no_eval_model_does_not_advise_a_real_model(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(OFFLINE_WITH_LLM_JUDGE.format(eval="", judge="llm"), encoding="utf-8")
    message = _error(config)
    assert '[models].eval: required when [eval].judge = "llm"' in message
    assert 'set [eval].judge = "deterministic"' in message, message
    for judge in ("deterministic", "auto"):   # both pieces of advice load
        config.write_text(OFFLINE_WITH_LLM_JUDGE.format(eval="", judge=judge), encoding="utf-8")
        load_config(config)


def test_a_real_provider_without_eval_model_still_gets_a_model_example(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[provider]\ntype = "anthropic"\n[models]\nagent = "a"\nqa = "b"\n[eval]\njudge = "llm"\n',
                      encoding="utf-8")
    message = _error(config)
    assert '[models].eval: required when [eval].judge = "llm"; e.g. eval = "claude-3-5-haiku-latest"' in message
