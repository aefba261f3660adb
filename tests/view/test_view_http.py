"""The run browser over HTTP (Starlette's TestClient): every page, the list's filters, the token gate,
traversal attempts, escaping and the security headers."""

from __future__ import annotations

import argparse
import re
import socket
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from view_fixture import XSS_HYPOTHESIS, XSS_QUESTION, write_runs

from benchmarker.errors import UserError
from benchmarker.view import add_arguments, run_view
from benchmarker.view.catalog import Catalog
from benchmarker.view.cli import MIN_TOKEN, prepare
from benchmarker.view.server import create_app

LOCAL = "http://127.0.0.1"
# Written out, not imported: a page may run only the package's own scripts, never an inline one.
EXPECTED_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    return write_runs(tmp_path_factory.mktemp("view"))


@pytest.fixture(scope="module")
def client(runs) -> TestClient:
    return TestClient(create_app(Catalog([runs])), base_url=LOCAL)


def qids(html: str) -> list[str]:
    return re.findall(r'/questions/([^"]+)"', html)


@pytest.mark.parametrize("path", ["/", "/runs/run-a", "/runs/run-b", "/runs/run-live", "/runs/run-a/points/alpha=0.5",
                                  "/runs/run-a/questions/q-not-used", "/runs/run-a/questions/q-unattributed",
                                  "/runs/run-a/questions/q-unjudged", "/runs/run-a/points/alpha=0.5/questions/q-correct",
                                  "/compare/run-a/run-b", "/compare/run-a/points/alpha=0.5/run-b",
                                  "/calibrations/calibration/llm", "/static/view.css", "/static/view.js",
                                  "/runs/run-a/plots/accuracy_by_type.png"])
def test_every_page_answers_with_the_security_headers(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response.headers["content-security-policy"] == EXPECTED_CSP
    directives = dict(d.strip().split(" ", 1) for d in response.headers["content-security-policy"].split(";"))
    assert directives["script-src"] == "'self'"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_runs_table_lists_runs_points_and_calibrations(client):
    html = client.get("/").text
    for link in ("/runs/run-a", "/runs/run-b", "/runs/run-a/points/alpha=0.5", "/calibrations/calibration/llm"):
        assert f'href="{link}"' in html
    assert "/runs/run-a/oracle" not in html  # a run's oracle answers are not a run
    assert "in progress" in html and 'http-equiv="refresh"' in html  # run-live is still running


def test_only_pages_showing_a_run_in_progress_refresh(client):
    assert 'http-equiv="refresh"' in client.get("/runs/run-live").text
    assert 'http-equiv="refresh"' not in client.get("/runs/run-a").text


def test_run_page_shows_summary_chart_plots_and_oracle(client):
    html = client.get("/runs/run-a").text
    assert "<svg" in html and "not_retrieved" in html  # attribution chart
    assert "oracle accuracy" in html
    assert "turn.recall_any@10" in html and "$0.0120" in html
    assert 'src="/runs/run-a/plots/accuracy_by_type.png"' in html
    assert "evil.png" not in html  # the symlink leading outside is not listed
    assert "a note &lt;b&gt;bold&lt;/b&gt;" in html


def test_the_last_line_of_a_question_wins_and_a_torn_line_is_skipped(client):
    html = client.get("/runs/run-a?q=q-correct").text
    assert qids(html) == ["q-correct"] and 'class="badge correct"' in html
    assert "q-torn" not in client.get("/runs/run-a").text


@pytest.mark.parametrize("query, expected", [
    ("stage=not_used", {"q-not-used", "q-xss"}),
    ("verdict=unjudged", {"q-unjudged"}),
    ("verdict=correct", {"q-correct"}),
    ("type=multi-session", {"q-not-written", "q-not-retrieved"}),
    ("q=ONERROR", {"q-xss"}),
    ("stage=not_used&type=temporal-reasoning", {"q-not-used"}),
])
def test_filters(client, query, expected):
    assert set(qids(client.get(f"/runs/run-a?{query}").text)) == expected


def test_sort_and_pages(client):
    ids = qids(client.get("/runs/run-a?sort=id&desc=1").text)
    assert ids == sorted(ids, reverse=True) and len(ids) == 9
    by_stage = qids(client.get("/runs/run-a?sort=stage").text)
    assert by_stage[0] == "q-unjudged"  # no stage sorts first
    assert "page 1 of" not in client.get("/runs/run-a").text
    assert qids(client.get("/runs/run-a?page=99").text)  # past the end: the last page


def test_question_page_marks_evidence_hits_and_shows_writes(client):
    html = client.get("/runs/run-a/questions/q-not-used").text
    rows = re.findall(r'<tr class="(evidence|)"><td>(\d+)', html)
    assert [rank for cls, rank in rows if cls == "evidence"] == ["2"]
    assert '<span class="badge evidence">evidence</span>' in html
    assert "Parked on level 3 (q-not-used)" in html  # what the agent wrote for the evidence turn
    assert "oracle says level 3" in html and "strict grader agrees" in html
    assert "gpt-4o-mini" in html and "judge said no" in html
    assert "Context the reader saw" in html
    assert "search_memories" in html and "add_entry" in html
    assert "&#34;text&#34;: &#34;level 3&#34;" in html  # a dict answer shown as JSON


def test_never_written_evidence_and_case_errors(client):
    html = client.get("/runs/run-a/questions/q-not-written").text
    assert "never written" in html and "TimeoutError: memory call past 30 s" in html


def test_xss_payloads_are_text_and_credentials_masked(client):
    html = client.get("/runs/run-a/questions/q-xss").text
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert XSS_QUESTION not in client.get("/runs/run-a").text and XSS_HYPOTHESIS not in html
    other = client.get("/runs/run-a/questions/q-correct").text
    assert "hunter2secret" not in other and "https://***@example.com/x" in other


def test_compare_lists_regressions_first_and_stage_moves(client):
    html = client.get("/compare/run-a/run-b").text
    regressions, improvements = html.split("Improvements:")
    assert "q-correct" in regressions and "q-not-used" in improvements
    assert "exact McNemar p" in html and ">1.0000<" in html
    assert "stage-not_used" in html and "Attribution stage changes (2)" in html


def test_compare_form_redirects_to_the_pair(client):
    response = client.get("/compare?a=run-a&b=run-b", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/compare/run-a/run-b"
    assert client.get("/compare?a=run-a&b=nope", follow_redirects=False).status_code == 404


def test_calibration_page(client):
    html = client.get("/calibrations/calibration/llm").text
    assert "Cohen's kappa 0.780" in html and "multi-session" in html and "cal-1" in html


@pytest.mark.parametrize("path", [
    "/runs/../../etc/passwd", "/runs/%2e%2e/%2e%2e/etc/passwd", "/runs/run-a/%2e%2e/run-b", "/runs/run-a/plots/evil.png",
    "/runs/run-a/plots/..%2f..%2fsummary.json", "/runs/run-a/plots/%2fetc%2fpasswd", "/runs//etc/passwd",
    "/runs/run-a/questions/nope", "/runs/run-evil/questions/q-correct", "/static/..%2fcli.py", "/static/%2e%2e",
    "/calibrations/../run-a", "/compare/run-a/..%2frun-b", "/runs/run-a/summary.json", "/runs/run-a/decisions.jsonl",
])
def test_nothing_outside_the_served_pages_is_readable(client, path):
    response = client.get(path)
    assert response.status_code == 404, path
    assert "TOP SECRET" not in response.text


def test_raw_dot_segments_are_not_normalised_into_a_file(runs):
    """httpx would remove `..` before sending; a raw request line keeps it, as a hostile client would."""
    app = create_app(Catalog([runs]))
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    import asyncio
    scope = {"type": "http", "method": "GET", "path": "/runs/run-a/../../../outside/secret.txt",
             "raw_path": b"/runs/run-a/../../../outside/secret.txt", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1")], "scheme": "http", "server": ("127.0.0.1", 80), "http_version": "1.1"}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 404


def test_a_foreign_host_header_is_refused_without_a_token(runs):
    client = TestClient(create_app(Catalog([runs])), base_url="http://evil.example")
    assert client.get("/").status_code == 403
    assert TestClient(create_app(Catalog([runs])), base_url="http://localhost:7575").get("/").status_code == 200


def test_a_token_gates_every_request_then_a_cookie_carries_it(runs):
    token = "t0ken-" + "x" * 20
    client = TestClient(create_app(Catalog([runs]), token=token), base_url="http://10.0.0.5:7575")
    assert client.get("/").status_code == 403
    assert client.get("/static/view.css").status_code == 403
    assert client.get("/?token=wrong").status_code == 403
    first = client.get(f"/?token={token}")
    assert first.status_code == 200 and "httponly" in first.headers["set-cookie"].lower()
    assert client.get("/runs/run-a").status_code == 200  # the cookie now
    stranger = TestClient(create_app(Catalog([runs]), token=token), base_url="http://10.0.0.5")
    stranger.cookies.set("view_token", "wrong")
    assert stranger.get("/runs/run-a").status_code == 403


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_refuses_bad_input(runs, tmp_path):
    with pytest.raises(UserError, match="not a folder"):
        run_view(_args(str(tmp_path / "missing")))
    with pytest.raises(UserError, match="non-loopback --host needs a token"):
        run_view(_args(str(runs), "--host", "0.0.0.0", "--port", "0", "--token", ""))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(UserError, match="in use"):
            run_view(_args(str(runs), "--port", str(busy.getsockname()[1])))
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(UserError, match="not an empty folder"):
        run_view(_args(str(runs), "--bundle", str(tmp_path / "full")))


def test_bundle_writes_relative_pages(runs, tmp_path, capsys):
    out = tmp_path / "site"
    assert run_view(_args(str(runs), "--bundle", str(out))) == 0
    index = (out / "index.html").read_text()
    assert 'href="runs/run-a/index.html"' in index and 'href="/' not in index
    run_page = (out / "runs" / "run-a" / "index.html").read_text()
    assert 'data-bundle="1"' in run_page and run_page.count("data-verdict=") == 9
    assert 'href="questions/q-xss.html"' in run_page and 'src="../../static/view.js"' in run_page
    assert (out / "runs" / "run-a" / "plots" / "accuracy_by_type.png").is_file()
    assert not (out / "runs" / "run-a" / "plots" / "evil.png").exists()
    question = (out / "runs" / "run-a" / "questions" / "q-not-used.html").read_text()
    assert 'href="../index.html"' in question and "badge evidence" in question
    assert (out / "compare" / "run-a" / "run-b.html").is_file()
    assert (out / "calibrations" / "calibration" / "llm" / "index.html").is_file()
    assert "TOP SECRET" not in "".join(p.read_text() for p in out.rglob("*.html"))


def test_a_non_loopback_host_without_a_token_always_gets_a_generated_one(runs):
    tokens = []
    for _ in range(2):
        sock, token, _ = prepare(_args(str(runs), "--host", "0.0.0.0", "--port", "0"))
        sock.close()
        assert token is not None and len(token) >= MIN_TOKEN
        tokens.append(token)
    assert tokens[0] != tokens[1]  # generated each time, not a constant
    sock, token, _ = prepare(_args(str(runs), "--port", "0"))  # loopback: no token unless asked for
    sock.close()
    assert token is None


def test_a_plot_url_one_level_up_is_not_served(client):
    assert client.get("/runs/run-a/plots/accuracy_by_type.png").status_code == 200
    response = client.get("/runs/run-a/plots/..%2fdecisions.jsonl")
    assert response.status_code == 404 and "search_memories" not in response.text


def test_a_run_id_with_characters_after_it_is_not_that_run(client):
    assert client.get("/runs/run-a").status_code == 200
    for path in ("/runs/run-aX", "/runs/run-aX/questions/q-correct", "/runs/run-a-/"):
        assert client.get(path).status_code == 404, path


def test_an_ipv6_loopback_host_is_served(runs):
    assert TestClient(create_app(Catalog([runs])), base_url="http://[::1]:7575").get("/").status_code == 200
    assert TestClient(create_app(Catalog([runs])), base_url="http://[::2]:7575").get("/").status_code == 403
