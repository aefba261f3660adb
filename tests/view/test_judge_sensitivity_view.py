"""The run page's "Does the judge decide it?": run-a of the view fixture re-judged (scores/<judge>/) by a judge that
flips two verdicts; its summary's judge_sensitivity block is computed from those files. Over HTTP: the section, its
escaping and its links to the question pages; in a real browser (the system chromium): a disagreement link opens
the question page, which lists both verdicts."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from starlette.testclient import TestClient
from test_view_browser import browser, page, server  # noqa: F401  (the browser tests' fixtures, over these runs)
from view_fixture import QUESTIONS, result, write_runs

from benchmarker.scoring.judge_sensitivity import judge_sensitivity
from benchmarker.view.bundle import write_bundle
from benchmarker.view.catalog import Catalog
from benchmarker.view.server import create_app

JUDGE = "strict<img src=x onerror=alert(1)>"   # a folder name is data too: shown as text, never run
FLIPPED = ("q-correct", "q-not-used")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = write_runs(tmp_path_factory.mktemp("judges"))
    run_a = root / "run-a"
    rejudged = [{**result(q, "a"), "grade": {"judge": "llm", "model": "gpt-strict", "reason": "strict judge"}} for q in QUESTIONS]
    for line in rejudged:
        if line["question_id"] in FLIPPED:
            line["label"] = not line["label"]
    (run_a / "scores" / JUDGE).mkdir(parents=True)
    (run_a / "scores" / JUDGE / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rejudged))
    summary = json.loads((run_a / "summary.json").read_text())
    summary["judge_sensitivity"] = judge_sensitivity(run_a)
    (run_a / "summary.json").write_text(json.dumps(summary))
    return root


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    return TestClient(create_app(Catalog([runs])), base_url="http://127.0.0.1")


def _section(page_html: str) -> str:
    found = re.search(r'<section class="judge-sensitivity">(.*?)</section>', page_html, re.S)
    assert found, "no judge-sensitivity section"
    return found.group(1)


def test_the_run_page_shows_every_judge_the_spread_the_pair_and_the_disagreements(client):
    section = _section(client.get("/runs/run-a").text)
    assert "Does the judge decide it?" in section
    assert "llm-gpt-4o-mini (run)" in section and html.escape(JUDGE) in section and JUDGE not in section
    assert "2 question(s) the judges disagree on" in section
    links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', section)
    assert sorted(text for _, text in links) == sorted(FLIPPED)
    for href, qid in links:
        assert href == f"/runs/run-a/questions/{qid}" and client.get(href).status_code == 200
    kappa = re.search(r'<td class="kappa">([^<]+)</td>', section)
    assert kappa and kappa.group(1) != "–"   # 8 paired answers, both judges say both labels: kappa defined


def test_in_a_bundle_each_disagreement_links_to_its_question_file(runs, tmp_path):
    out = tmp_path / "bundle"
    write_bundle(Catalog([runs]), out)
    run_page = out / "runs" / "run-a" / "index.html"
    hrefs = re.findall(r'<a href="([^"]+)">', _section(run_page.read_text(encoding="utf-8")))
    assert len(hrefs) == len(FLIPPED) and all((run_page.parent / unquote(h)).is_file() for h in hrefs)


def test_a_run_judged_once_has_no_section(client):
    assert 'class="judge-sensitivity"' not in client.get("/runs/run-b").text


@pytest.mark.slow
@pytest.mark.xdist_group("view_browser")
def test_a_disagreement_link_opens_the_question_page_with_both_verdicts(page, server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(server + "/runs/run-a")
    section = page.locator("section.judge-sensitivity")
    expect(section.locator("h2")).to_have_text("Does the judge decide it?")
    assert section.locator("table.disagreements tbody tr").count() == len(FLIPPED)
    section.locator("table.disagreements a", has_text="q-not-used").click()
    page.wait_for_url("**/runs/run-a/questions/q-not-used")
    body = page.locator("body").inner_text()
    assert "strict judge" in body and "judge said no" in body   # the run's verdict and the re-judging's
