"""A suite owns its [dataset] keys: its options model (`Suite.data.options`) checks them once the kind is known, and a
key no suite reads is an unknown key naming itself, as before."""

from __future__ import annotations

import sys
import types
from dataclasses import replace
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from benchmarker import registry
from benchmarker.config import canonical_hash, load_config
from benchmarker.errors import ConfigError
from benchmarker.suites.sample import SUITE as SAMPLE
from benchmarker.suites.sample.options import SampleOptions


class SizeOptions(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    size: Literal["100K", "500K"] = "100K"
    chats: tuple[int, ...] = Field(default=(), strict=False, max_length=100)  # a TOML array, read as a tuple


SIZED = replace(SAMPLE, name="sized", data=replace(SAMPLE.data, options=SizeOptions))


@pytest.fixture
def sized(monkeypatch):
    module = types.ModuleType("sized_suite")
    module.SUITE = SIZED
    monkeypatch.setitem(sys.modules, "sized_suite", module)
    monkeypatch.setitem(registry.SUITES, "sized", "sized_suite")
    return module.SUITE


def _load(tmp_path: Path, dataset: str):
    path = tmp_path / "run.toml"
    path.write_text(f'[run]\noutput_dir = "{tmp_path}/runs"\n[dataset]\n{dataset}\n', encoding="utf-8")
    return load_config(path)


def _problems(tmp_path: Path, dataset: str) -> str:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, dataset)
    return str(info.value)


def test_a_suites_own_keys_are_read_through_its_model(sized, tmp_path):
    cfg = _load(tmp_path, 'kind = "sized"\nsize = "500K"\nchats = [1, 3]')
    assert sized.data.options_of(cfg.dataset) == SizeOptions(size="500K", chats=(1, 3))
    default = _load(tmp_path, 'kind = "sized"')
    assert sized.data.options_of(default.dataset) == SizeOptions()
    assert canonical_hash(cfg) != canonical_hash(default)  # its keys are part of what was run


def test_a_bad_value_names_the_dataset_key(sized, tmp_path):
    text = _problems(tmp_path, 'kind = "sized"\nsize = "2M"')
    assert "[dataset].size" in text and '"100K"' in text
    text = _problems(tmp_path, 'kind = "sized"\nchats = "all"')
    assert "[dataset].chats" in text and "expected an array" in text


def test_a_misspelt_suite_key_is_unknown_with_a_suggestion(sized, tmp_path):
    text = _problems(tmp_path, 'kind = "sized"\nsise = "500K"')
    assert "[dataset].sise" in text and "unknown key" in text and "did you mean `size`" in text


def test_a_key_of_another_suite_is_unknown_where_the_suite_has_no_options(tmp_path):
    text = _problems(tmp_path, 'kind = "sample"\nsize = "500K"')
    assert "[dataset].size" in text and "unknown key" in text
    assert "did you mean `seed`" in _problems(tmp_path, 'kind = "sample"\nsed = 3')


def test_built_in_suites_keep_their_keys_and_run_ids(tmp_path):
    cfg = _load(tmp_path, 'kind = "sample"\nseed = 7\nquestions_per_type = 1')
    assert registry.suite("sample").data.options_of(cfg.dataset) == SampleOptions(questions_per_type=1)
    assert SampleOptions.of(cfg.dataset).sessions_per_question == 8   # the default where the key is absent
