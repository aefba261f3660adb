"""Relative paths in a config resolve against the config's folder, and a missing data file's hint leads
somewhere that loads: what a user following the README (or the error message) actually does."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError

LOCOMO_FIXTURE = Path(__file__).parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"
KUZU = '[memory]\nbackend = "mcp"\npreset = "kuzu-memory"\ncommand = "{command}"\n'


def _config(folder: Path, text: str, name: str = "run.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_relative_command_with_a_folder_resolves_against_the_config_folder(tmp_path, monkeypatch):
    # the README's kuzu snippet: the server lives under the repo, the config in configs/, the
    # command is started in each case's own folder, so it must not depend on the cwd
    server = tmp_path / ".venv-servers" / "kuzu" / "bin" / "kuzu-memory"
    server.parent.mkdir(parents=True)
    server.write_text("#!/bin/sh\n")
    server.chmod(0o755)
    config = _config(tmp_path / "configs", KUZU.format(command="../.venv-servers/kuzu/bin/kuzu-memory"))
    monkeypatch.chdir("/")  # the cwd must not matter
    cfg = load_config(config)
    assert cfg.memory.command == str(server)


def test_relative_command_keeps_a_symlink(tmp_path):
    # a venv's bin/python is a symlink: following it would start the system Python without the venv
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(shutil.which("sh") or "/bin/sh")
    cfg = load_config(_config(tmp_path / "configs", KUZU.format(command="../venv/bin/python")))
    assert cfg.memory.command == str(tmp_path / "venv" / "bin" / "python")


def test_bare_command_name_stays_a_path_lookup(tmp_path):
    for bare in ("npx", "kuzu-memory"):
        cfg = load_config(_config(tmp_path, KUZU.format(command=bare)))
        assert cfg.memory.command == bare


def test_absolute_command_is_kept(tmp_path):
    cfg = load_config(_config(tmp_path, KUZU.format(command="/opt/kuzu/bin/kuzu-memory")))
    assert cfg.memory.command == "/opt/kuzu/bin/kuzu-memory"


def test_resolving_command_keeps_the_run_id(tmp_path):
    # the run id is built from the config as written: moving to an absolute command path must not
    # start a new run for configs that already ran
    a = load_config(_config(tmp_path / "a", KUZU.format(command="bin/kuzu-memory")))
    b = load_config(_config(tmp_path / "b", KUZU.format(command="bin/kuzu-memory")))
    assert a.run_id == b.run_id and a.memory.command != b.memory.command


LOCOMO = '[dataset]\nkind = "locomo"\nfile = "{file}"\n'


def test_missing_locomo_file_hint_leads_to_a_config_that_loads(tmp_path):
    config = _config(tmp_path / "configs", LOCOMO.format(file="../data/locomo10.json"))
    with pytest.raises(ConfigError) as err:
        load_config(config)
    message = str(err.value)
    assert "[dataset].file" in message and "remove it" not in message  # removing it is an error for LoCoMo
    # the hint is a download command writing exactly where the config looks
    (url, target) = re.search(r"curl -L --create-dirs -o (\S+) (https://\S+locomo10\.json)", message).group(2, 1)
    assert url.startswith("https://raw.githubusercontent.com/snap-research/LoCoMo/")
    assert Path(target) == (tmp_path / "data" / "locomo10.json")
    Path(target).parent.mkdir(parents=True)
    shutil.copyfile(LOCOMO_FIXTURE, target)  # what the curl command would have written
    assert load_config(config).dataset.file == target


def test_missing_longmemeval_file_hint_without_a_clone_names_the_clone(tmp_path):
    # "remove it to find the file under dataset_repo_path" only helps when dataset_repo_path is set
    with pytest.raises(ConfigError) as err:
        load_config(_config(tmp_path, 'dataset_file = "nope.json"\n'))
    message = str(err.value)
    assert "dataset_file" in message and "under dataset_repo_path" not in message
    assert 'dataset_repo_path = "/path/to/LongMemEval"' in message


def test_missing_fact_case_file_hint_says_the_built_in_cases_are_used(tmp_path):
    with pytest.raises(ConfigError) as err:
        load_config(_config(tmp_path, '[dataset]\nkind = "fact_extraction"\nfile = "cases.json"\n'))
    message = str(err.value)
    assert "[dataset].file" in message and "built-in" in message
    # following it: without the key the config loads
    assert load_config(_config(tmp_path, '[dataset]\nkind = "fact_extraction"\n', "fixed.toml")).dataset.file == ""
