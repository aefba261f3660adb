"""The board (`view`'s /board): valid runs and result bundles ranked by suite and dataset, like-for-like marks, the
sort script, the two frontier figures, and the same in the static bundle; the Pareto function on known points."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from view_fixture import QUESTIONS, write_run

from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.compare import compare_runs, format_compare
from benchmarker.reporting.summary_model import parse_summary
from benchmarker.reporting.unit_cost import usd_per_correct
from benchmarker.view.bundle import write_bundle
from benchmarker.view.catalog import Catalog
from benchmarker.view.frontier import pareto_front
from benchmarker.view.server import create_app

LOCAL = "http://127.0.0.1"
SHA_A, SHA_B = "a" * 64, "b" * 64
XSS_RUN = "<b>x</b>$\\alpha$"


def _rewrite(path: Path, change: Any) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def _lines(path: Path, change: Any) -> None:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.endswith("}")]
    path.write_text("".join(json.dumps(change(x)) + "\n" for x in lines))


def board_run(folder: Path, *, sha: str, correct: int, usd: float, p95: float, judge: str = "gpt-4o-mini",
              context: int = 1000, valid: bool = True, subject_model: str = "gpt-4o-mini") -> Path:
    """A finished run with a validity verdict, a price, a search latency and a context size."""
    write_run(folder, "a", "2024-01-01T10:00:00+00:00")
    n = 10

    def summary(s: dict[str, Any]) -> dict[str, Any]:
        s["qa"]["overall"] = {"n": n, "correct": correct, "accuracy": correct / n, "ci95": [0.1, 0.9], "unjudged": 0}
        s["qa"]["task_averaged"] = {"accuracy": correct / n - 0.05}
        s["cost"] = {"usd": {"total": usd}, "usd_per_question": usd / n}
        s["speed"] = {"tool_latency_by_tool_ms": {"search_memories": {"n": 9, "p50": p95 / 2, "p95": p95}}}
        s["budget"] = {"context_tokens": {"n": 9, "mean": context}}
        s["run"] = {"mode": "agent", "top_k": 10}
        s["validity"] = {"valid": valid, "reasons": [] if valid else ["37 of 500 searches failed"], "checks": {}}
        return s

    def manifest(m: dict[str, Any]) -> dict[str, Any]:
        m["dataset"] = {"kind": "longmemeval", "sha256": sha, "questions": n}
        m["judge"] = {"kind": "llm", "model": judge}
        m["models"] = {"agent": subject_model, "qa": "reader-model-x"}
        m["memory"] = {"backend": "mycelian"}
        return m

    _rewrite(folder / "summary.json", summary)
    _rewrite(folder / "manifest.json", manifest)
    _lines(folder / "results.jsonl", lambda x: {**x, "grade": {**x["grade"], "model": judge}, "context_tokens": context,
                                                 "top_k": 10})
    return folder


def make_bundle(run: Path, out: Path, *, tamper: bool = False) -> Path:
    """A result bundle written by hand as bundle_format.md describes it (bundle.json lists every file's sha256)."""
    members = {name: (run / name).read_bytes() for name in ("summary.json", "manifest.json", "results.jsonl")}
    manifest = json.loads(members["manifest.json"])
    # a run id a figure must draw as text, never typeset as a formula (which would fail)
    bundle = {"bundle_version": 1, "run_id": f"{run.name} $\\notatex{{$", "suite": "longmemeval",
              "created_at": "2024-02-01T00:00:00+00:00",
              "files": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()},
              "dataset": {"name": "longmemeval_s", "sha256": manifest["dataset"]["sha256"], "question_ids": list(QUESTIONS)},
              "config": {}, "package": {"name": "mycelian-longmemeval", "version": "0", "git_commit": None},
              "judge": {"name": "llm", "model": "gpt-4o-mini", "prompt_sha256": None}, "python": "3.11", "packages": {}}
    if tamper:
        members["summary.json"] = members["summary.json"].replace(b'"correct": ', b'"correct": 1')
    with tarfile.open(out, "w:gz") as tar:
        for name, data in {"bundle.json": json.dumps(bundle).encode(), **members, "bundle.sig": b"c2ln\n"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("board") / "runs"
    board_run(root / "cheap", sha=SHA_A, correct=5, usd=0.10, p95=40.0)
    board_run(root / "best", sha=SHA_A, correct=8, usd=1.00, p95=90.0)
    board_run(root / "dominated", sha=SHA_A, correct=4, usd=2.00, p95=120.0, judge="gpt-4o", context=5000)
    board_run(root / "other-data", sha=SHA_B, correct=6, usd=0.50, p95=60.0)
    board_run(root / "broken", sha=SHA_A, correct=10, usd=0.01, p95=1.0, valid=False)
    board_run(root / XSS_RUN, sha=SHA_B, correct=3, usd=0.2, p95=10.0, subject_model="<script>alert(1)</script>")
    stash = root.parent / "stash"
    board_run(stash / "shipped", sha=SHA_A, correct=7, usd=0.30, p95=70.0)
    make_bundle(stash / "shipped", root / "shipped.tar.gz")
    make_bundle(stash / "shipped", root / "tampered.tar.gz", tamper=True)
    (root / "linked.tar.gz").symlink_to(stash.parent / "elsewhere.tar.gz")  # a link is never followed
    make_bundle(stash / "shipped", stash.parent / "elsewhere.tar.gz")
    return root


@pytest.fixture(scope="module")
def client(served) -> TestClient:
    return TestClient(create_app(Catalog([served])), base_url=LOCAL)


def _rows(html: str) -> list[str]:
    return re.findall(r'<tr class="[^"]*" data-key="([^"]+)"', html)


def _groups(html: str) -> list[str]:
    return html.split('<section class="board-group">')[1:]


def test_the_board_groups_valid_runs_and_bundles_by_suite_and_dataset_best_first(client):
    html = client.get("/board").text
    first, second = _groups(html)
    assert SHA_A in first and SHA_B in second
    assert _rows(first) == ["best", "shipped.tar.gz", "cheap", "dominated"]
    assert _rows(second)[0] == "other-data" and len(_rows(second)) == 2
    assert 'href="/runs/best"' in html and "80.0%" in html and "reader-model-x" in html
    assert "$0.1000" in html and "$0.1250" in html  # best: $1.00 over 10 questions, over 8 correct answers
    assert "hashes ok · signature not checked" in html and "local" in html


def test_an_invalid_run_and_a_tampered_bundle_are_not_ranked_and_say_why(client):
    html = client.get("/board").text
    ranked = "".join(_groups(html))
    assert 'data-key="broken"' not in ranked and 'data-key="tampered.tar.gz"' not in ranked
    skipped = html.split("Not ranked")[1]
    assert "<code>broken</code>: INVALID: 37 of 500 searches failed" in skipped
    assert "<code>tampered.tar.gz</code>: summary.json" in skipped  # the file whose hash differs
    assert "linked.tar.gz" not in html


def test_a_row_judged_or_budgeted_differently_from_the_first_is_marked(client):
    first = _groups(client.get("/board").text)[0]
    rows = {key: body for key, body in re.findall(r'data-key="([^"]+)">(.*?)</tr>', first, re.S)}
    assert "not like-for-like" not in rows["cheap"] and "not like-for-like" not in rows["shipped.tar.gz"]
    assert "judged by different judges" in rows["dominated"] and "the context of run A" in rows["dominated"]
    assert '<tr class="unlike" data-key="dominated">' in first


def test_the_board_escapes_run_text_and_links_from_the_index(client):
    html = client.get("/board").text
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>x</b>" not in html
    assert 'href="/board"' in client.get("/").text


def test_the_sort_script_is_served_and_loaded_without_inline_script(client):
    response = client.get("/board")
    html = response.text
    assert response.headers["content-security-policy"].endswith("script-src 'self'")
    assert '<script src="/static/board.js" defer></script>' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert 'data-sort="num"' in html and "data-sortable" in html
    script = client.get("/static/board.js")
    assert script.status_code == 200 and "aria-sort" in script.text


def test_both_figures_are_png_per_group_and_unknown_names_are_404(client):
    html = client.get("/board").text
    names = re.findall(r'src="/board/plots/([^"]+)"', html)
    assert len(names) == 4 and any(n.endswith("-cost.png") for n in names) and any(n.endswith("-latency.png") for n in names)
    for name in names:
        response = client.get(f"/board/plots/{name}")
        assert response.status_code == 200 and response.headers["content-type"] == "image/png"
        assert response.content.startswith(b"\x89PNG")
    assert client.get("/board/plots/nothing.png").status_code == 404
    assert client.get("/board/plots/..%2Fsummary.json").status_code == 404


@pytest.mark.parametrize(("points", "front"), [
    ([], []),
    ([(1.0, 0.5)], [0]),
    # cheap, best, dominated (dearer and worse than best), and one as cheap as cheap but better
    ([(0.1, 0.5), (1.0, 0.8), (2.0, 0.4), (0.1, 0.6)], [3, 1]),
    ([(1.0, 0.5), (1.0, 0.5), (0.5, 0.2)], [2, 0, 1]),   # equal points share the frontier
    ([(3.0, 0.9), (2.0, 0.7), (1.0, 0.5)], [2, 1, 0]),   # each dearer one is better: all on it
    ([(1.0, 0.9), (2.0, 0.9)], [0]),                     # same accuracy for more: off it
])
def test_the_pareto_front_keeps_exactly_the_points_nothing_beats(points, front):
    assert pareto_front(points) == front


def test_the_static_bundle_carries_the_board_and_its_figures(served, tmp_path):
    out = tmp_path / "site"
    write_bundle(Catalog([served]), out)
    html = (out / "board.html").read_text()
    names = re.findall(r'src="board/([^"]+)"', html)
    assert len(names) == 4 and all((out / "board" / n).read_bytes().startswith(b"\x89PNG") for n in names)
    assert 'href="runs/best/index.html"' in html and 'src="static/board.js"' in html
    assert (out / "static" / "board.js").is_file()
    assert 'href="board.html"' in (out / "index.html").read_text()


def test_report_and_compare_quote_cost_per_correct_answer(served):
    summary = json.loads((served / "best" / "summary.json").read_text())
    assert usd_per_correct(parse_summary(summary)) == pytest.approx(0.125)
    assert usd_per_correct(parse_summary({**summary, "qa": {"overall": {"correct": 0}}})) is None
    text = format_compare(compare_runs([served / "cheap", served / "best"], SUITE_LOOKUP), SUITE_LOOKUP)
    assert "| USD per correct answer | $0.0200 | $0.1250 |" in text
    assert "| USD per question | $0.0100 | $0.1000 |" in text


def test_report_quotes_cost_per_question_and_per_correct_answer(served, tmp_path):
    from benchmarker.reporting.report import render_markdown

    summary = json.loads((served / "best" / "summary.json").read_text())
    summary.pop("attribution"), summary.pop("speed")  # sketches of the view fixture that the report does not draw
    text = render_markdown(tmp_path, parse_summary(summary), [], suites=SUITE_LOOKUP)
    assert "Cost per question: $0.1000; per correct answer: $0.1250." in text


def test_a_bundle_from_export_is_ranked_beside_its_run(tmp_path):
    from benchmarker.bundle.write import write_bundle as export

    root = tmp_path / "runs"
    board_run(root / "mine", sha=SHA_A, correct=6, usd=0.2, p95=30.0)
    board_run(tmp_path / "theirs", sha=SHA_A, correct=9, usd=0.9, p95=80.0)
    export(tmp_path / "theirs", root / "theirs.tar.gz", with_memory=False, created_at="2024-02-01T00:00:00+00:00")
    html = TestClient(create_app(Catalog([root])), base_url=LOCAL).get("/board").text
    assert _rows(_groups(html)[0]) == ["theirs.tar.gz", "mine"]
    assert "hashes ok · unsigned" in html and "Not ranked" not in html
