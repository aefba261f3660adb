"""The run browser under changing or odd files (issue 42, item 4, and item 8's `view` part): a results.jsonl
rewritten in place, a symlink loop, a line over the size cap, non-finite or non-numeric fields, a nested run
folder named `questions`, a bundle into a dangling link, `--host` / `--port` edge values, and a summary.json
that is a list, a string or starts with a byte order mark."""

from __future__ import annotations

import argparse
import json
import os
import re
import tracemalloc
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from view_fixture import QUESTIONS, result, write_run, write_runs

from benchmarker.errors import UserError
from benchmarker.view import add_arguments, run_view
from benchmarker.view import lines as view_lines
from benchmarker.view.catalog import Catalog
from benchmarker.view.cli import prepare
from benchmarker.view.lines import ResultsIndex
from benchmarker.view.server import create_app

LOCAL = "http://127.0.0.1"


def client_of(runs: Path) -> TestClient:
    return TestClient(create_app(Catalog([runs])), base_url=LOCAL)


def qids(html: str) -> set[str]:
    return set(re.findall(r'/questions/([^"]+)"', html))


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def _same_length(a: str, b: str) -> tuple[str, str]:
    width = max(len(a), len(b))
    return a.ljust(width), b.ljust(width)


def test_a_results_file_rewritten_in_place_shows_each_question_its_own_line(tmp_path):
    path = tmp_path / "results.jsonl"
    first = {"question_id": "q1", "case_id": "q1", "hypothesis": "answer one"}
    second = {"question_id": "q2", "case_id": "q2", "hypothesis": "answer two"}
    a, b = _same_length(json.dumps(first), json.dumps(second))
    path.write_text(a + "\n" + b + "\n")
    index = ResultsIndex(path)
    assert index.line("q1")["hypothesis"] == "answer one"
    stat = os.stat(path)
    with open(path, "r+") as f:  # the same bytes, lines swapped: same size, same inode
        f.write(b + "\n" + a + "\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the mtime kept, the id is checked
    assert index.line("q1")["hypothesis"] == "answer one"
    assert index.line("q2")["hypothesis"] == "answer two"


def test_a_same_size_rewrite_is_rescanned_for_the_list(tmp_path):
    path = tmp_path / "results.jsonl"
    a, b = _same_length(json.dumps({"question_id": "q1", "label": True}), json.dumps({"question_id": "q2", "label": False}))
    path.write_text(a + "\n")
    index = ResultsIndex(path)
    assert set(index.rows()) == {"q1"}
    stat = os.stat(path)
    path.write_text(b + "\n")  # truncated and written again: same size, same inode
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert set(index.rows()) == {"q2"}


def test_a_symlink_loop_anywhere_leaves_every_page_answering(tmp_path):
    runs = write_runs(tmp_path)
    for loop in (runs / "loop", runs / "run-a" / "loop", runs / "run-a" / "plots" / "loop.png",
                 runs / "run-b" / "summary.json"):
        loop.unlink(missing_ok=True)
        os.symlink(loop, loop)
    client = client_of(runs)
    for page in ("/", "/runs/run-a", "/runs/run-b", "/runs/run-a/questions/q-correct", "/compare/run-a/run-b"):
        assert client.get(page).status_code == 200, page
    assert 'href="/runs/run-a"' in client.get("/").text


def test_a_line_over_the_cap_is_neither_read_whole_nor_shown(tmp_path, monkeypatch):
    monkeypatch.setattr(view_lines, "MAX_LINE_BYTES", 2**20)
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    client = client_of(runs)
    assert client.get("/runs/run-a/questions/q-correct").status_code == 200  # templates compiled, file indexed
    big = {**result("q-not-used", "a"), "question_id": "q-big", "reader_context": "x" * 16 * 2**20}
    with open(runs / "run-a" / "results.jsonl", "a") as f:  # after the fixture's torn last line
        f.write("\n" + json.dumps(big) + "\n")
    tracemalloc.start()
    try:
        page = client.get("/runs/run-a")
        missing = client.get("/runs/run-a/questions/q-big")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert page.status_code == 200 and qids(page.text) == set(QUESTIONS)
    assert f"larger than {2**20} bytes" in page.text  # the run page says a line was left out
    assert missing.status_code == 404
    assert peak < 8 * 2**20  # the 16 MB line was never held whole


def test_a_long_text_is_cut_on_the_question_page(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    path = runs / "run-a" / "results.jsonl"
    long = {**result("q-not-used", "a"), "reader_context": "word " * 100_000}
    with open(path, "a") as f:  # after the fixture's torn last line
        f.write("\n" + json.dumps(long) + "\n")
    page = client_of(runs).get("/runs/run-a/questions/q-not-used")
    assert page.status_code == 200
    assert page.text.count("word") < 30_000 and "more characters not shown" in page.text


@pytest.mark.parametrize("change", [
    ('"tokens": {"qa": {"input": 1200, "output": 40}}', '"tokens": Infinity'),
    ('"tokens": {"qa": {"input": 1200, "output": 40}}', '"tokens": {"qa": {"input": Infinity, "output": NaN}}'),
    ('"timings": {', '"timings": -Infinity, "x": {'),
    ('"turn_index": 0, "role": "user", "content"', '"turn_index": "x", "role": "user", "content"'),
    ('"turn_index": 0, "role": "user", "content"', '"turn_index": Infinity, "role": "user", "content"'),
    ('"turn_index": 0, "role": "user", "content"', '"turn_index": [1], "role": "user", "content"'),
    ('"evidence_turns": [["s-q-correct", 0]]', '"evidence_turns": [["s-q-correct", "x"]]'),
    ('"retrieved": [', '"retrieved": [{"rank": Infinity, "score": NaN, "turn_index": "x"}, {"rank": "a"}, '),
])
def test_odd_values_in_a_line_still_give_its_page(tmp_path, change):
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    path = runs / "run-a" / "results.jsonl"
    text = path.read_text()
    assert change[0] in text
    path.write_text(text.replace(change[0], change[1]))
    client = client_of(runs)
    assert client.get("/runs/run-a").status_code == 200
    page = client.get("/runs/run-a/questions/q-correct")
    assert page.status_code == 200 and "Where did I park the car? (q-correct)" in page.text


def test_a_nested_run_named_questions_hides_no_question_page(tmp_path):
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    nested = runs / "run-a" / "questions"
    nested.mkdir()
    (nested / "results.jsonl").write_text(json.dumps({**result("q-correct", "b"), "question": "NESTED"}) + "\n")
    (runs / "run-a" / "questions" / "q-correct").mkdir()  # a deeper run shadowing one question
    (runs / "run-a" / "questions" / "q-correct" / "results.jsonl").write_text("")
    client = client_of(runs)
    for qid in ("q-correct", "q-not-used"):
        page = client.get(f"/runs/run-a/questions/{qid}")
        assert page.status_code == 200 and f"Where did I park the car? ({qid})" in page.text
    index = client.get("/").text
    nested_links = [link for link in re.findall(r'href="(/runs/[^"]+)"', index) if "questions" in link]
    assert nested_links and all(client.get(link).status_code == 200 for link in nested_links)
    assert any("NESTED" in client.get(link).text for link in nested_links)


def test_a_bundle_keeps_a_question_page_beside_a_nested_questions_run(tmp_path):
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    with open(runs / "run-a" / "results.jsonl", "a") as f:
        f.write("\n" + json.dumps({**result("q-correct", "a"), "question_id": "index", "question": "THE INDEX QUESTION"}))
    nested = runs / "run-a" / "questions"
    nested.mkdir()
    (nested / "results.jsonl").write_text(json.dumps({**result("q-correct", "b"), "question": "NESTED"}) + "\n")
    out = tmp_path / "site"
    run_view(_args(str(runs), "--bundle", str(out)))
    assert "THE INDEX QUESTION" in (out / "runs" / "run-a" / "questions" / "index.html").read_text()
    assert any("NESTED" in p.read_text() for p in out.rglob("*.html") if "questions/" not in p.as_posix()[-30:])


def test_a_bundle_into_a_dangling_link_is_one_line(tmp_path):
    runs = write_runs(tmp_path)
    os.symlink(tmp_path / "nowhere", tmp_path / "out")
    for out in (tmp_path / "out", tmp_path / "out" / "sub"):
        with pytest.raises(UserError, match="dangling symbolic link"):
            run_view(_args(str(runs), "--bundle", str(out)))
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_refused_naming_the_port(tmp_path, port):
    with pytest.raises(UserError, match=r"--port") as caught:
        prepare(_args(str(tmp_path), "--port", port))
    assert "--host" not in str(caught.value)


def test_the_url_printed_for_another_loopback_address_answers(tmp_path):
    runs = write_runs(tmp_path)
    sock, token, url = prepare(_args(str(runs), "--host", "127.0.0.2", "--port", "0"))
    sock.close()
    assert token is None and url.startswith("http://127.0.0.2:")
    assert TestClient(create_app(Catalog([runs]), token), base_url=url).get("/").status_code == 200


@pytest.mark.parametrize(("content", "problem"), [
    ("[1, 2]", "not a JSON object"), ('"a string"', "not a JSON object"),
    ("\ufeff{}", "byte order mark"), ("{not json", "not valid JSON"),
])
def test_a_summary_that_is_not_an_object_gets_a_banner(tmp_path, content, problem):
    runs = tmp_path / "runs"
    write_run(runs / "run-a", "a", "2024-01-01T10:00:00+00:00")
    (runs / "run-a" / "summary.json").write_text(content, encoding="utf-8")
    page = client_of(runs).get("/runs/run-a")
    assert page.status_code == 200
    assert re.search(rf'<p class="note">[^<]*run-a/summary.json: [^<]*{problem}', page.text)
