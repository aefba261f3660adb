"""The run browser with files nested 100,000 deep (issue 42, item 3), over HTTP: one such summary.json or
manifest.json shows that run with its error line and leaves `/` and the other runs' pages answering (it was
a 500 for all of them); one such results line is skipped, and the run still lists its other questions (it
showed "0 of 0 questions" until the file changed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from view_fixture import QUESTIONS, write_run, write_runs

from benchmarker.view.catalog import Catalog
from benchmarker.view.lines import ResultsIndex
from benchmarker.view.server import create_app

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    runs = write_runs(tmp_path_factory.mktemp("view"))
    write_run(runs / "run-deep-summary", "a", "2024-02-01T10:00:00+00:00")
    (runs / "run-deep-summary" / "summary.json").write_text(DEEP_OBJECT, encoding="utf-8")
    write_run(runs / "run-deep-manifest", "a", "2024-02-02T10:00:00+00:00")
    (runs / "run-deep-manifest" / "manifest.json").write_text(DEEP, encoding="utf-8")
    write_run(runs / "run-deep-line", "a", "2024-02-03T10:00:00+00:00")
    results = runs / "run-deep-line" / "results.jsonl"
    results.write_text(DEEP + "\n" + results.read_text(encoding="utf-8"), encoding="utf-8")
    return runs


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    return TestClient(create_app(Catalog([runs])), base_url="http://127.0.0.1")


def qids(html: str) -> set[str]:
    return set(re.findall(r'/questions/([^"]+)"', html))


def test_the_runs_table_still_lists_every_run(client):
    response = client.get("/")
    assert response.status_code == 200
    for run in ("run-a", "run-b", "run-deep-summary", "run-deep-manifest", "run-deep-line"):
        assert f'href="/runs/{run}"' in response.text


@pytest.mark.parametrize(("run", "file"), [("run-deep-summary", "summary.json"), ("run-deep-manifest", "manifest.json")])
def test_the_deep_run_shows_its_error_line_and_the_others_are_untouched(client, run, file):
    response = client.get(f"/runs/{run}")
    assert response.status_code == 200
    assert re.search(rf'<p class="note">[^<]*{run}/{file}: not read: nested deeper than 100 levels</p>', response.text)
    healthy = client.get("/runs/run-a")
    assert healthy.status_code == 200 and "not read" not in healthy.text and "oracle accuracy" in healthy.text


def test_a_deep_results_line_is_skipped_and_the_other_questions_listed(client):
    response = client.get("/runs/run-deep-line")
    assert response.status_code == 200
    assert qids(response.text) == set(QUESTIONS)
    assert client.get("/runs/run-deep-line/questions/q-correct").status_code == 200


def test_a_scan_that_fails_part_way_is_redone_in_full(tmp_path, monkeypatch):
    """The file's stamp is stored only with a finished scan: a failure part-way must not leave an empty list."""
    path = tmp_path / "results.jsonl"
    path.write_text('{"question_id": "a"}\n{"question_id": "b"}\n', encoding="utf-8")
    index = ResultsIndex(path)
    calls = {"n": 0}

    def failing_once(offset: int, raw: bytes):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RecursionError("maximum recursion depth exceeded")
        return real(offset, raw)

    import benchmarker.view.lines as lines

    real = lines._row
    monkeypatch.setattr(lines, "_row", failing_once)
    with pytest.raises(RecursionError):
        index.rows()
    assert set(index.rows()) == {"a", "b"}
