"""The run page of an invalid run opens with a banner and lists every validity check; a valid run has no banner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from view_fixture import write_runs

from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

REASON = "3 of 9 searches failed (most often: HTTP 503 <script>alert(1)</script>)"  # error text is data: escaped


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    root = write_runs(tmp_path_factory.mktemp("validity"))
    summary_path = root / "run-a" / "summary.json"
    summary = json.loads(summary_path.read_text())
    summary["validity"] = {"valid": False, "reasons": [REASON], "checks": {
        "search_errors": {"what": "searches failed", "count": 3, "of": 9, "share": 0.3333, "threshold": 0.01,
                          "ok": False, "applies": True, "detail": "most often: HTTP 503"},
        "unanswered": {"what": "questions were not answered", "count": 0, "of": 9, "share": 0.0, "threshold": 0.0,
                       "ok": True, "applies": True, "detail": ""}}}
    summary_path.write_text(json.dumps(summary))
    valid = root / "run-b" / "summary.json"
    valid.write_text(json.dumps(json.loads(valid.read_text()) | {"validity": {"valid": True, "reasons": [], "checks": {}}}))
    return TestClient(create_app(Catalog([Path(root)])), base_url="http://127.0.0.1")


def test_an_invalid_run_page_opens_with_the_banner_and_every_check(client):
    page = client.get("/runs/run-a").text
    assert 'class="invalid-banner"' in page
    assert "INVALID: 3 of 9 searches failed" in page and "<script>alert(1)</script>" not in page
    assert page.index("invalid-banner") < page.index("<h2>Accuracy</h2>")
    assert "<td>search_errors</td>" in page and "<td>unanswered</td>" in page and "33.3%" in page


def test_a_valid_run_page_has_no_banner(client):
    assert "invalid-banner" not in client.get("/runs/run-b").text


def test_the_compare_page_labels_an_invalid_run_first(client):
    page = client.get("/compare/run-a/run-b").text
    assert "Run A is INVALID: 3 of 9 searches failed" in page and "Run B is" not in page
    assert "<script>alert(1)</script>" not in page and page.index("invalid-banner") < page.index("questions in both")
    assert "invalid-banner" not in client.get("/compare/run-b/run-b").text

