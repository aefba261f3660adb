"""The run browser in a real browser (Playwright driving the system chromium) against a real uvicorn
server: click through runs, filter, a question's evidence marks, compare, and a bundle from file://.
XSS payloads in the data must show as text and never run (no dialog opens).

VIEW_SCREENSHOT=1 also saves the question page to docs/images/view-question.png (the README shows it).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from view_fixture import XSS_HYPOTHESIS, XSS_QUESTION, write_runs

from benchmarker.view.bundle import write_bundle
from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

try:  # auto-retrying assertions (the browser fixture says what to do when playwright is absent)
    from playwright.sync_api import expect
except ImportError:
    expect = None

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("view_browser")]

CHROMIUM = os.environ.get("VIEW_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "view-question.png"


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: CI must run the browser tests")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[dev]')")
    if not (shutil.which(CHROMIUM) or Path(CHROMIUM).is_file()):
        _missing(f"no chromium at {CHROMIUM}")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    return write_runs(tmp_path_factory.mktemp("browse"))


@pytest.fixture(scope="module")
def server(runs) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    live = uvicorn.Server(uvicorn.Config(create_app(Catalog([runs])), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=live.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not live.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    live.should_exit = True
    thread.join(5)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    dialogs: list[str] = []
    opened.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    opened.dialogs = dialogs
    yield opened
    assert dialogs == [], "a script from the data ran"
    context.close()


def test_click_from_runs_to_a_filtered_list_to_the_evidence(page, server):
    page.goto(server + "/")
    page.click("text=run-a >> nth=0")
    page.wait_for_url("**/runs/run-a")
    page.select_option("select[name=stage]", "not_used")  # submits the form by itself
    page.wait_for_url("**stage=not_used**")
    assert sorted(page.locator("table.questions tbody a").all_inner_texts()) == ["q-not-used", "q-xss"]
    page.click("text=q-not-used")
    evidence = page.locator("table.hits tr.evidence")
    assert evidence.count() == 1
    assert evidence.locator("td").first.inner_text().startswith("2")
    assert evidence.locator(".badge.evidence").is_visible()
    assert page.locator(".entry").first.is_visible()  # what the agent wrote for the evidence turn
    if os.environ.get("VIEW_SCREENSHOT") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))


def test_compare_from_the_run_page(page, server):
    page.goto(server + "/runs/run-a")
    page.select_option("form.compare select[name=b]", "run-b")
    page.click("form.compare button")
    page.wait_for_url("**/compare/run-a/run-b")
    regressions = page.locator("section", has_text="Regressions").locator("table.flips")
    assert "q-correct" in regressions.inner_text()
    assert page.locator(".pvalue").inner_text() == "1.0000"


def test_xss_payloads_show_as_text(page, server):
    page.goto(server + "/runs/run-a/questions/q-xss")
    assert XSS_QUESTION in page.locator("dl.qa dd").first.inner_text()
    assert XSS_HYPOTHESIS in page.locator("dd.hypothesis").inner_text()
    assert page.locator("img[src=x]").count() == 0
    page.goto(server + "/runs/run-a?q=alert")
    assert XSS_QUESTION in page.locator("table.questions").inner_text()


def test_a_bundle_opens_from_file_and_filters_without_a_server(page, runs, tmp_path):
    out = tmp_path / "site"
    write_bundle(Catalog([runs]), out)
    page.goto((out / "index.html").as_uri())
    page.click("text=run-a >> nth=0")
    page.wait_for_url("**/runs/run-a/index.html")
    assert page.locator("table.questions tbody tr:visible").count() == 9
    page.select_option("select[name=stage]", "not_used")
    page.wait_for_url("**#stage=not_used")
    visible = page.locator("table.questions tbody tr:visible a")
    expect(visible).to_have_count(2)  # the script filters on hashchange: wait for it, never race it
    assert sorted(visible.all_inner_texts()) == ["q-not-used", "q-xss"]
    page.fill("input[name=q]", "ONERROR")
    page.press("input[name=q]", "Enter")
    expect(visible).to_have_text(["q-xss"])
    page.click("text=q-xss")
    page.wait_for_url("**/questions/q-xss.html")
    assert page.locator("table.hits tr.evidence .badge.evidence").count() == 1
    assert XSS_HYPOTHESIS in page.locator("dd.hypothesis").inner_text()
    page.goto((out / "runs" / "run-a" / "index.html").as_uri())
    page.click("table.questions th a[data-sort=id]")  # sorted by id already: the click reverses it
    assert "desc=1" in page.url
    expect(page.locator("table.questions tbody tr:visible td:first-child a").first).to_have_text("q-xss")
    shown = page.locator("table.questions tbody tr:visible td:first-child a").all_inner_texts()
    assert shown == sorted(shown, reverse=True) and len(shown) == 9
