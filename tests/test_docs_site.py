"""The documentation site builds with `mkdocs build --strict`: a broken link or anchor, a page missing from
the nav or an unreadable mkdocs.yml fails here, so `make test` fails on it (`make docs` is the same build).

Also: every page in docs/ is in the nav, and every docs page the README links to exists (the README is
read on GitHub, outside the site, so mkdocs does not check its links). And "What a run writes" names every
`*.jsonl` file the package writes, the embedded database's lock and WAL files, and (with docs/judging.md)
every file `calibrate` leaves in its folder.
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


RUN_FILES = DOCS / "run-files.md"
# *.jsonl names in the package that are not written into a run directory: batch input files uploaded to a
# provider (OpenAI's files API, Bedrock's S3 bucket)
NOT_RUN_FILES = {"batch.jsonl", "input.jsonl"}


def test_run_files_page_names_every_jsonl_file_the_package_writes() -> None:
    """A new kind of log line gets a row in "What a run writes" (or in the calibrate folder's list there)."""
    names = {name for path in (REPO / "benchmarker").rglob("*.py")
             for name in re.findall(r"""["']([A-Za-z0-9_.-]+\.jsonl)["']""", path.read_text(encoding="utf-8"))}
    assert {"answers.jsonl", "results.jsonl", "verdicts.jsonl"} <= names, "the scan finds the package's file names"
    page = RUN_FILES.read_text(encoding="utf-8")
    missing = sorted(n for n in names - NOT_RUN_FILES if f"`{n}`" not in page)
    assert not missing, f"docs/run-files.md does not name: {missing}"


def test_run_files_page_names_the_embedded_databases_files(tmp_path: Path) -> None:
    """memory.sqlite's lock and SQLite's WAL files sit in the run directory beside it: each has a row."""
    from embedded_memory.store import Store

    store = Store(tmp_path / "memory.sqlite")
    try:
        names = sorted(p.name for p in tmp_path.iterdir())
    finally:
        store.close()
    assert "memory.sqlite.lock" in names, names
    page = RUN_FILES.read_text(encoding="utf-8")
    missing = [n for n in names if f"`{n}`" not in page]
    assert not missing, f"docs/run-files.md does not name: {missing}"


def test_every_file_calibrate_writes_for_the_grader_is_named_where_its_folder_is_described(tmp_path: Path) -> None:
    """`calibrate` with the deterministic grader (no model, no key): every file and folder it leaves is named
    in docs/judging.md's output list and in docs/run-files.md's calibration folder (verdicts.jsonl included:
    the grader writes it too, not only an LLM judge)."""
    import json

    from benchmarker.cli import main

    (tmp_path / "questions.json").write_text(json.dumps([
        {"question_id": "q1", "question_type": "single-session-user", "question": "Which city did I move to?",
         "answer": "Paris"},
        {"question_id": "q2", "question_type": "multi-session", "question": "How many bikes do I own?", "answer": 3}]),
        encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"question_id": "q1", "hypothesis": "You moved to Paris.", "label": True}) + "\n"
                      + json.dumps({"question_id": "q2", "hypothesis": "Two.", "label": True}) + "\n", encoding="utf-8")
    config = tmp_path / "calibrate.toml"
    config.write_text('[dataset]\nfile = "questions.json"\n[provider]\ntype = "offline"\n[run]\nprogress = false\n'
                      'output_dir = "out"\n', encoding="utf-8")
    assert main(["calibrate", str(config), "--labels", str(labels)]) == 0
    folder = tmp_path / "out" / "calibration" / "deterministic"
    written = sorted(p.name for p in folder.iterdir())
    assert {"verdicts.jsonl", "calibration.json", ".lock"} <= set(written), written
    judging = (DOCS / "judging.md").read_text(encoding="utf-8")
    output = judging[judging.index("- **Output**"):judging.index("- **An LLM judge**")]
    calibration = RUN_FILES.read_text(encoding="utf-8").split("`calibration/<judge label>/`", 1)[1][:600]
    for text, page in ((output, "judging.md's Output list"), (calibration, "run-files.md's calibration folder")):
        missing = [n for n in written if f"`{n}" not in text]
        assert not missing, f"docs/{page} does not name: {missing}"
