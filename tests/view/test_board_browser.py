"""The board in headless Chromium (tests/view/test_view_browser.py's browser and page): sort a column by clicking
its head, then click from a board row to its run's page; the same from the static bundle opened from file://."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from test_board import served  # noqa: F401  (a fixture: the board's run directories and bundles)
from test_view_browser import browser, page  # noqa: F401  (fixtures: chromium, a page that fails on any dialog)

from benchmarker.view.bundle import write_bundle
from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("view_browser")]


@pytest.fixture(scope="module")
def board_server(served) -> Iterator[str]:  # noqa: F811
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    live = uvicorn.Server(uvicorn.Config(create_app(Catalog([served])), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=live.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not live.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    live.should_exit = True
    thread.join(5)


def _keys(page) -> list[str]:  # noqa: F811
    return page.locator("section.board-group").first.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => r.getAttribute('data-key'))")


def test_sort_the_board_then_click_a_row_to_its_run(page, board_server):  # noqa: F811
    page.goto(board_server + "/board")
    assert _keys(page) == ["best", "shipped.tar.gz", "cheap", "dominated"]  # best accuracy first
    head = page.locator("section.board-group").first.locator("th", has_text="USD / question")
    head.click()
    assert _keys(page) == ["cheap", "shipped.tar.gz", "best", "dominated"]
    head.click()
    assert _keys(page) == ["dominated", "best", "shipped.tar.gz", "cheap"]
    assert page.locator("img[src$='-cost.png']").first.evaluate("img => img.naturalWidth") > 0
    page.locator("tr[data-key=best] a", has_text="best").click()
    page.wait_for_url("**/runs/best")
    assert page.locator("h1").first.inner_text().startswith("best")


def test_the_bundled_board_opens_from_file_and_links_to_its_run(page, served, tmp_path):  # noqa: F811
    out = tmp_path / "site"
    write_bundle(Catalog([served]), out)
    page.goto((out / "board.html").as_uri())
    assert page.locator("img[src$='-latency.png']").first.evaluate("img => img.naturalWidth") > 0
    page.locator("tr[data-key=cheap] a", has_text="cheap").click()
    page.wait_for_url("**/runs/cheap/index.html")
    assert Path(page.url.removeprefix("file://")).is_file()
