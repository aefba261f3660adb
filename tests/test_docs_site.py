"""The documentation site builds with `mkdocs build --strict`: a broken link or anchor, a page missing from
the nav or an unreadable mkdocs.yml fails here, so `make test` fails on it (`make docs` is the same build).

Also: every page in docs/ is in the nav, and every docs page the README links to exists (the README is
read on GitHub, outside the site, so mkdocs does not check its links).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).parents[1]
DOCS = REPO / "docs"


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in _nav_pages(value)]
    return []


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip('mkdocs / mkdocs-material not installed: pip install -e ".[dev]" (make install does)')
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "configuration" / "index.html").is_file()


def test_every_docs_page_is_in_the_nav() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    in_nav = set(_nav_pages(config["nav"]))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages == in_nav, f"not in mkdocs.yml's nav: {sorted(pages - in_nav)}; missing: {sorted(in_nav - pages)}"


def test_readme_links_to_docs_pages_and_headings_that_exist() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#([^)\s]*))?\)", readme)
    assert links, "the README links into docs/"
    missing = sorted({path for path, _ in links if not (REPO / path).exists()})
    assert not missing, f"README links to missing files: {missing}"
    for path, anchor in links:
        if anchor:
            headings = re.findall(r"(?m)^#+ (.+)$", (REPO / path).read_text(encoding="utf-8"))
            assert anchor in {_slug(h) for h in headings}, f"README links to {path}#{anchor}: no such heading"


def _slug(heading: str) -> str:
    """The anchor of a heading, as mkdocs (Python-Markdown's toc) and GitHub make it for plain headings."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"\s", "-", text)


def test_readme_is_a_newcomer_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250, "the README is the first screens; move reference material into docs/"
    assert "make run" in readme and "make test" in readme and "make test-fast" in readme
