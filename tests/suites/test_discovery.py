"""Suites are discovered, not listed: a folder under benchmarker/suites/ exposing SUITE is a dataset
kind with no other file edited, a pip package adds one through the `mycelian_longmemeval.suites`
entry point, and a name two suites claim is an error naming both."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import textwrap
import types
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarker import registry
from benchmarker.errors import UserError
from benchmarker.suites.sample import SUITE as SAMPLE

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = ("longmemeval", "sample", "long_horizon", "levels", "fact_extraction", "locomo", "beam")
TINY = """
run_id = "tiny"
[dataset]
kind = "{kind}"
questions_per_type = 1
sessions_per_question = 3
[memory]
embedder = "none"
alpha = 0.0
[run]
output_dir = "runs"
progress = false
"""


def python(*args: str, pythonpath: list[Path], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """This interpreter in a subprocess with `pythonpath` first on its path."""
    path = [str(p) for p in pythonpath] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def write_config(folder: Path, kind: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "cfg.toml"
    path.write_text(TINY.format(kind=kind), encoding="utf-8")
    return path


# --- built-in suites: a folder is a kind -------------------------------------------------------


@pytest.fixture(scope="module")
def toy_tree(tmp_path_factory) -> Path:
    """A copy of the package (prompts/ where an install puts it) with suites/sample/ copied to
    suites/toy/ and only its registered name changed."""
    src = tmp_path_factory.mktemp("toy") / "src"
    shutil.copytree(ROOT / "benchmarker", src / "benchmarker", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "prompts", src / "benchmarker" / "prompts", ignore=shutil.ignore_patterns("__pycache__"))
    suites = src / "benchmarker" / "suites"
    shutil.copytree(suites / "sample", suites / "toy", ignore=shutil.ignore_patterns("__pycache__"))
    init = suites / "toy" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    assert text.count('name="sample"') == 1
    init.write_text(text.replace('name="sample"', 'name="toy"'), encoding="utf-8")
    return src


def test_a_copied_suite_folder_with_its_own_name_is_a_dataset_kind(toy_tree: Path, tmp_path: Path) -> None:
    sample, toy = toy_tree / "benchmarker/suites/sample", toy_tree / "benchmarker/suites/toy"
    assert sorted(p.name for p in toy.iterdir()) == sorted(p.name for p in sample.iterdir())
    changed = [(a, b) for a, b in zip((sample / "__init__.py").read_text().splitlines(),
                                      (toy / "__init__.py").read_text().splitlines(), strict=True) if a != b]
    assert changed == [('SUITE = replace(LONGMEMEVAL, name="sample",', 'SUITE = replace(LONGMEMEVAL, name="toy",')]
    cfg = write_config(tmp_path, "toy")
    script = textwrap.dedent(f"""
        import json, sys
        import benchmarker
        from benchmarker import registry
        from benchmarker.config import load_config
        toy = registry.suite("toy")
        module = next(m for m in list(sys.modules.values()) if getattr(m, "SUITE", None) is toy)
        print(json.dumps({{"package": benchmarker.__file__, "file": module.__file__,
                          "kinds": list(registry.DATASET_KINDS), "records": dict(registry.RECORD_KINDS),
                          "kind": load_config({str(cfg)!r}).dataset.kind}}))
    """)
    proc = python("-c", script, pythonpath=[toy_tree], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["package"] == str(toy_tree / "benchmarker" / "__init__.py")   # the copy, not the repo
    assert got["file"] == str(toy / "__init__.py")
    assert got["kinds"] == [*BUILTINS, "toy"] and got["kind"] == "toy"
    assert got["records"]["longmemeval"] == "longmemeval"   # toy inherits sample's record kind: the first suite wins


@pytest.mark.slow
def test_run_accepts_the_copied_suite(toy_tree: Path, tmp_path: Path) -> None:
    write_config(tmp_path, "toy")
    proc = python("-m", "benchmarker.cli", "run", "cfg.toml", pythonpath=[toy_tree], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    run_dir = tmp_path / "runs" / "tiny"
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "finished" and manifest["dataset"]["kind"] == "toy"
    results = [line for line in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(results) == manifest["dataset"]["questions"] == 9   # six types, one each, and three abstentions


# --- third-party suites: the entry point --------------------------------------------------------


def write_plugin(root: Path, package: str, dist: str, points: dict[str, str], body: str) -> Path:
    """A package installed the way pip leaves one: its folder and a dist-info with entry_points.txt."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(textwrap.dedent(body), encoding="utf-8")
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
    return root


def test_a_suite_installed_through_the_entry_point_is_a_dataset_kind(tmp_path: Path) -> None:
    plugins = write_plugin(tmp_path / "site", "toysuite_plugin", "toysuite_plugin",
                           {"plugin_toy": "toysuite_plugin:SUITE", "plugin_module": "toysuite_plugin.module_form"}, """
        from dataclasses import replace

        from benchmarker.suites.sample import SUITE as SAMPLE

        SUITE = replace(SAMPLE, name="plugin_toy")
    """)
    (plugins / "toysuite_plugin" / "module_form.py").write_text(textwrap.dedent("""
        from dataclasses import replace

        from benchmarker.suites.sample import SUITE as SAMPLE

        SUITE = replace(SAMPLE, name="plugin_module")
    """), encoding="utf-8")
    cfg = write_config(tmp_path / "work", "plugin_toy")
    script = textwrap.dedent(f"""
        import json
        from benchmarker import registry
        from benchmarker.config import load_config
        import toysuite_plugin, toysuite_plugin.module_form
        print(json.dumps({{"toy": registry.suite("plugin_toy") is toysuite_plugin.SUITE,
                          "module": registry.suite("plugin_module") is toysuite_plugin.module_form.SUITE,
                          "kinds": list(registry.DATASET_KINDS), "kind": load_config({str(cfg)!r}).dataset.kind}}))
    """)
    proc = python("-c", script, pythonpath=[plugins, ROOT], cwd=tmp_path / "work")
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got == {"toy": True, "module": True,
                   "kinds": [*BUILTINS, "plugin_module", "plugin_toy"], "kind": "plugin_toy"}


def test_a_plugin_named_like_a_built_in_suite_leaves_the_built_in_and_is_refused_naming_both(tmp_path: Path) -> None:
    plugins = write_plugin(tmp_path / "site", "clash_plugin", "clash_plugin", {"sample_again": "clash_plugin:SUITE"}, """
        from benchmarker.suites.sample import SUITE
    """)
    named = 'the entry point "sample_again = clash_plugin:SUITE" (from clash_plugin 0.1)'
    clash = 'clashes with the built-in suite "sample" (benchmarker.suites.sample)'
    for kind, code in (("sample", 0), ("sample_again", 2)):   # the built-in runs (with a warning); the plugin's is refused
        write_config(tmp_path / kind, kind)
        script = ("import sys; from benchmarker.cli_errors import run_verb; from benchmarker.config import load_config; "
                  "sys.exit(run_verb(lambda: load_config('cfg.toml') and 0))")   # the CLI's error boundary around a verb
        proc = python("-c", script, pythonpath=[plugins, ROOT], cwd=tmp_path / kind)
        assert proc.returncode == code, proc.stderr[-4000:]
        assert "Traceback" not in proc.stderr
        (line,) = proc.stderr.splitlines()
        assert named in line and clash in line


# --- the registry itself, in process ------------------------------------------------------------


@pytest.fixture
def fresh(monkeypatch):
    """The registry as if nothing had been discovered yet (restored afterwards)."""
    monkeypatch.setattr(registry, "_done", False)
    monkeypatch.setattr(registry, "_loaded", {})
    monkeypatch.setattr(registry, "_refused", {})
    monkeypatch.setattr(registry, "_shadowed", {})
    monkeypatch.setattr(registry.SUITES, "data", {})
    monkeypatch.setattr(registry.RECORD_KINDS, "data", {})
    return monkeypatch


def entry_points_of(monkeypatch, **points: str) -> None:
    eps = [importlib.metadata.EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in points.items()]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: eps if group == registry.ENTRY_POINT_GROUP else [])


def test_discovery_finds_the_built_ins_in_the_documented_order_and_derives_record_kinds(fresh) -> None:
    entry_points_of(fresh)
    assert tuple(registry.DATASET_KINDS) == BUILTINS and registry.DATASET_KINDS == BUILTINS
    assert dict(registry.SUITES) == {kind: f"benchmarker.suites.{kind}" for kind in BUILTINS}
    assert list(registry.RECORD_KINDS.items()) == [
        ("longmemeval", "longmemeval"), ("long_horizon", "long_horizon"), ("level", "levels"),
        ("fact_extraction", "fact_extraction"), ("locomo", "locomo"), ("beam", "beam")]
    assert registry.dataset_kinds_where(lambda got: got.data.reads_file) == ["longmemeval", "fact_extraction", "locomo", "beam"]


def test_an_entry_point_may_give_a_suite_or_a_module_and_nothing_else(fresh) -> None:
    module = types.ModuleType("plugged_module")
    module.SUITE = replace(SAMPLE, name="plugged", record_kinds=("plugged_case",))   # type: ignore[attr-defined]
    fresh.setitem(sys.modules, "plugged_module", module)
    entry_points_of(fresh, plugged="plugged_module")
    assert registry.suite("plugged") is module.SUITE   # type: ignore[attr-defined]
    assert registry.suite_of_record("plugged_case") is module.SUITE   # type: ignore[attr-defined]
    assert registry.DATASET_KINDS[-1] == "plugged"

    fresh.setattr(registry, "_done", False)
    fresh.setattr(registry.SUITES, "data", {})
    fresh.setattr(module, "SUITE", "not a suite")
    assert registry.suite("sample").name == "sample"   # a broken plugin stops only its own kind
    with pytest.raises(UserError, match=r'"plugged = plugged_module".* is not a benchmark suite'):
        registry.suite("plugged")


def test_two_suite_packages_with_one_name_are_refused_naming_both(fresh, tmp_path: Path) -> None:
    for folder in ("first", "second"):
        (tmp_path / "clashing_suites" / folder).mkdir(parents=True)
        (tmp_path / "clashing_suites" / folder / "__init__.py").write_text(
            "from benchmarker.suites.sample import SUITE\n", encoding="utf-8")
    (tmp_path / "clashing_suites" / "__init__.py").write_text("", encoding="utf-8")
    fresh.syspath_prepend(str(tmp_path))
    fresh.setattr(registry, "SUITES_PACKAGE", "clashing_suites")
    entry_points_of(fresh)
    with pytest.raises(UserError, match=r'both named "sample": clashing_suites\.first and clashing_suites\.second'):
        registry.suite("sample")


def test_importing_the_registry_and_the_config_schema_loads_no_suite(tmp_path: Path) -> None:
    script = ("import sys, benchmarker.registry, benchmarker.config_schema; "
              "print(sorted(m for m in sys.modules if m.startswith('benchmarker.suites.')))")
    proc = python("-c", script, pythonpath=[ROOT], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.strip() == "[]"
