"""The run browser masks a question whole before it cuts it for the list (issue 42, item 2): a key that the
300-character cut goes through leaves no prefix of itself on the page (a results file written elsewhere, or
a credential the run's process did not know, reaches `view` unmasked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from view_fixture import _jsonl, result, write_run

from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app
from tests.log.test_mask_before_cut import SECRETS, leaks, straddling


@pytest.mark.parametrize("secret", SECRETS)
def test_a_key_cut_by_the_question_list_leaves_no_prefix_on_the_run_page(tmp_path: Path, secret: str) -> None:
    run = tmp_path / "runs" / "run-k"
    write_run(run, "a", "2024-01-01T10:00:00+00:00")
    _jsonl(run / "results.jsonl", [{**result("q-correct", "a"), "question": straddling(secret, 300)}])
    page = TestClient(create_app(Catalog([tmp_path / "runs"])), base_url="http://127.0.0.1").get("/runs/run-k")
    assert page.status_code == 200 and "xxxxxxxx" in page.text
    assert not leaks(page.text, secret)
