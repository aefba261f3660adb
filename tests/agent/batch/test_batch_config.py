"""The `[batch]` table: validated, and never part of the run id (it changes price and latency only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.config import canonical_hash, load_config
from benchmarker.errors import ConfigError

OPENAI = '[provider]\ntype = "openai"\n[models]\nagent = "offline-memory-agent"\nqa = "gpt-4o-mini"\neval = "gpt-4o"\n'


def load(tmp_path: Path, text: str):
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_batch_keeps_the_run_id_and_has_defaults(tmp_path: Path) -> None:
    cfg = load(tmp_path, OPENAI + "[batch]\nqa = true\neval = true\npoll_s = 5.0\n")
    b = cfg.batch
    assert (b.qa, b.eval, b.poll_s, b.max_requests, b.price_factor) == (True, True, 5.0, 1000, 0.5)
    assert canonical_hash(cfg) == canonical_hash(load(tmp_path, OPENAI))


@pytest.mark.parametrize(("text", "says"), [
    ('[batch]\nqa = true\n', "needs a provider with a batch API"),
    (OPENAI + '[batch]\nqa = true\nprice_factor = 0.0\n', "price_factor"),
    (OPENAI + '[batch]\nqa = true\nmax_requests = 0\n', "max_requests"),
    (OPENAI.replace("openai", "bedrock") + '[provider.bedrock]\nregion = "us-west-2"\n[batch]\neval = true\n',
     "bedrock_role_arn"),
    (OPENAI + '[batch]\neval = true\nbedrock_s3_uri = "bucket/x"\n', "s3://bucket/prefix"),
])
def test_bad_batch_settings_are_refused(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load(tmp_path, text)
