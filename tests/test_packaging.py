"""The built wheel holds every package and every prompt, and an installed copy loads the prompts.

`prompts/` sits at the top of the repository and is mapped into the package as
`benchmarker.prompts` (pyproject's package-dir), so both the wheel and the editable install find
it with importlib.resources. The build runs on a copy of the sources so it leaves no build/ behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PROMPTS = sorted((REPO / "prompts").glob("*.txt"))
LOAD_ALL = """
import json, sys
from importlib import resources
import benchmarker
from benchmarker.agent.prompts import load_prompt, prompts_dir
names = sys.argv[1:]
print(json.dumps({"package": benchmarker.__file__, "dir": str(prompts_dir()),
                  "resources": str(resources.files("benchmarker.prompts")),
                  "prompts": {n: load_prompt(n) for n in names}}))
"""

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]


def expected(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[:-1] if text.endswith("\n") else text


def run_outside_repo(cwd: Path, env_extra: dict[str, str]) -> dict:
    """LOAD_ALL in a fresh interpreter, away from the checkout and without a prompts override."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYCELIAN_LME_PROMPTS_DIR")}
    env.update(env_extra)
    done = subprocess.run([sys.executable, "-c", LOAD_ALL, *(p.stem for p in PROMPTS)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for folder in ("benchmarker", "embedded_memory", "prompts"):
        shutil.copytree(REPO / folder, src / folder, ignore=ignore)
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
                           "--no-index", "-q", "-w", str(dist)], cwd=src, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = dist.glob("*.whl")
    return built


def test_wheel_holds_every_prompt_and_every_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [p.name for p in PROMPTS if f"benchmarker/prompts/{p.name}" not in names]
    assert PROMPTS and not missing, f"prompts missing from the wheel: {missing}"
    sources = {p.relative_to(REPO).as_posix() for package in ("benchmarker", "embedded_memory")
               for p in (REPO / package).rglob("*")
               if p.is_file() and p.suffix in (".py", ".json", ".md", ".txt", ".toml", ".html", ".css", ".js")
               and "__pycache__" not in p.parts}
    assert sorted(sources - names) == [], "add the package to [tool.setuptools] packages in pyproject.toml"


def test_installed_wheel_loads_every_prompt_from_outside_the_repo(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "elsewhere"
    work.mkdir()
    found = run_outside_repo(work, {"PYTHONPATH": str(site)})
    assert Path(found["package"]).is_relative_to(site)
    assert Path(found["dir"]) == Path(found["resources"]) == site / "benchmarker" / "prompts"
    assert found["prompts"] == {p.stem: expected(p) for p in PROMPTS}


def editable_install() -> bool:
    """pip's record of `pip install -e` (a stray mycelian_longmemeval.egg-info in the checkout has none)."""
    for dist in metadata.distributions(name="mycelian-longmemeval"):
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        if direct.get("dir_info", {}).get("editable"):
            return True
    return False


@pytest.mark.skipif(not editable_install(), reason="the environment has no editable install (make install)")
def test_editable_install_finds_the_checkouts_prompts(tmp_path):
    found = run_outside_repo(tmp_path, {})
    assert Path(found["package"]).is_relative_to(REPO)
    assert Path(found["dir"]) == Path(found["resources"]) and Path(found["dir"]).samefile(REPO / "prompts")
    assert found["prompts"] == {p.stem: expected(p) for p in PROMPTS}
