"""Group "viewfiles": the run browser under changing or odd files (issue 42, item 4, and item 8's `view` part).

One small finished offline run (rundir_attack.make_source) is copied per case into a served folder, damaged,
and read through the app (Starlette's TestClient, in this process) or `view`'s own flag handling:
  inplace   results.jsonl rewritten in place, same size (its two lines swapped), mtime kept or not
  loop      a symlink loop at the served root, inside a run, among the plots, in place of summary.json
  bigline   a results line over view's line cap (quick: 40 MB; full: 512 MB), memory traced while served
  odd       a results line with Infinity / NaN tokens or timings, a non-numeric evidence turn_index, odd hits
  nested    a run folder named `questions` inside a run (server pages, and a bundle)
  bundle    `--bundle` into a dangling symlink (and below one)
  flags     `--port` 99999 / 65536 / -1, `--host 127.0.0.2`
  summary   a summary.json that is a list, a string, starts with a BOM, or is not JSON
Outcomes:
  clean     the pages answer 200 with what they should show; a bad file gets its banner; a bad flag or
            bundle folder is one UserError naming it
  wrong     a question page shows another question's line; the printed URL answers 403; a bad flag is
            blamed on another one
  lost      a question page hidden, or a bundle page overwritten, by a nested run
  5xx       a page answered 500
  crash     a traceback instead of one line (an exception other than UserError)
  accepted  a bad input taken silently: a port wrapped around, a summary treated as missing, a line over the
            cap read whole
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import escape

from bench.fuzz.outcome import Tally
from bench.fuzz.rundir_attack import make_source

BIG_LINE_MB = {True: 40, False: 512}  # quick: just over the 32 MB cap
LINE_CAP = 32 * 2**20  # what docs/view.md says a page reads of one line at most
PEAK_CAPS = 3  # reading a line up to the cap may take twice the cap (readline's buffer); one read whole takes its size
# label -> change to the first results line (a dict, changed in place); json.dumps writes Infinity / NaN as such
ODD: dict[str, Callable[[dict[str, Any]], None]] = {
    "tokens-infinity": lambda d: d.update(tokens=float("inf")),
    "tokens-nan-inside": lambda d: d.update(tokens={"qa": {"input": float("inf"), "output": float("nan")}}),
    "timings-infinity": lambda d: d.update(timings=float("-inf")),
    "turn_index-text": lambda d: d.update(evidence=[{**e, "turn_index": "x"} for e in d.get("evidence") or [{}]]),
    "turn_index-infinity": lambda d: d.update(evidence=[{**e, "turn_index": float("inf")} for e in d.get("evidence") or [{}]]),
    "turn_index-list": lambda d: d.update(evidence=[{**e, "turn_index": [1]} for e in d.get("evidence") or [{}]]),
    "evidence_turns-text": lambda d: d.update(evidence_turns=[["s", "x"]], evidence_messages=5),
    "evidence-not-objects": lambda d: d.update(evidence=[1, "two"], evidence_turns=7),
    "hits-odd-ranks": lambda d: d.update(retrieved=[{"rank": float("inf"), "score": float("nan"), "turn_index": "x"},
                                                    {"rank": "a"}, 3, *(d.get("retrieved") or [])]),
    "hits-not-a-list": lambda d: d.update(retrieved={"rank": 1}),
}
SUMMARIES = {"list": "[1, 2]", "string": '"a string"', "bom": "\ufeff{}", "not-json": "{not json"}
PORTS = ("99999", "65536", "-1")


def _client(served: Path, token: str | None = None, base: str = "http://127.0.0.1") -> Any:
    from starlette.testclient import TestClient

    from benchmarker.view.catalog import Catalog
    from benchmarker.view.server import create_app

    return TestClient(create_app(Catalog([served]), token), base_url=base, raise_server_exceptions=False)


def _copy(source: Path, to: Path) -> Path:
    shutil.copytree(source, to, ignore=shutil.ignore_patterns(".lock", "*.lock", "memory.sqlite*"))
    return to


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in (run / "results.jsonl").read_text(encoding="utf-8").splitlines() if raw.strip()]


def _write_lines(run: Path, lines: list[dict[str, Any]]) -> None:
    (run / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _shows(page: Any, line: dict[str, Any]) -> bool:
    return page.status_code == 200 and str(escape(str(line["question"]))) in page.text


def attack_inplace(base: Path, source: Path, tally: Tally) -> None:
    for keep_mtime in (True, False):
        served = base / f"inplace-{keep_mtime}"
        run = _copy(source, served / "run")
        raws = [json.dumps(x) for x in _lines(run)]
        width = max(len(r) for r in raws)
        raws = [r.ljust(width) for r in raws]  # JSON allows the trailing blanks: the lines have one length
        (run / "results.jsonl").write_text("".join(r + "\n" for r in raws), encoding="utf-8")
        client = _client(served)
        lines = _lines(run)
        for line in lines:  # index the file and read each line once
            client.get(f"/runs/run/questions/{line['question_id']}")
        st = os.stat(run / "results.jsonl")
        with open(run / "results.jsonl", "r+", encoding="utf-8") as f:
            f.write("".join(r + "\n" for r in reversed(raws)))
        if keep_mtime:
            os.utime(run / "results.jsonl", ns=(st.st_atime_ns, st.st_mtime_ns))
        shown = [_shows(client.get(f"/runs/run/questions/{x['question_id']}"), x) for x in lines]
        tally.add("clean" if all(shown) else "wrong", f"inplace.mtime-{'kept' if keep_mtime else 'new'}",
                  f"{sum(shown)} of {len(shown)} question pages show their own line")


def attack_loops(base: Path, source: Path, tally: Tally) -> None:
    first = _lines(source)[0]
    for label, where in (("root", "loop"), ("in-run", "run/loop"), ("plots", "run/plots/loop.png"),
                         ("summary", "run/summary.json")):
        served = base / f"loop-{label}"
        _copy(source, served / "run")
        link = served / where
        link.unlink(missing_ok=True)
        os.symlink(link, link)
        client = _client(served)
        codes = [client.get(p).status_code for p in ("/", "/runs/run", f"/runs/run/questions/{first['question_id']}")]
        tally.add("clean" if codes == [200, 200, 200] else "5xx", f"loop.{label}", f"HTTP {codes}")


def attack_bigline(base: Path, source: Path, tally: Tally, quick: bool) -> None:
    served = base / "bigline"
    run = _copy(source, served / "run")
    client = _client(served)
    client.get("/runs/run")  # templates compiled and the file indexed before memory is traced
    size = BIG_LINE_MB[quick] * 2**20
    big = {**_lines(run)[0], "question_id": "big", "reader_context": "x" * size}
    with open(run / "results.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(big) + "\n")
    del big
    tracemalloc.start()
    try:
        listing, page = client.get("/runs/run"), client.get("/runs/run/questions/big")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cap = LINE_CAP
    detail = f"run page HTTP {listing.status_code}, question page HTTP {page.status_code} ({len(page.content)} bytes), " \
             f"peak {peak // 2**20} MB for a {size // 2**20} MB line"
    if listing.status_code != 200 or page.status_code >= 500:
        tally.add("5xx", "bigline", detail)
    else:
        tally.add("clean" if peak < PEAK_CAPS * cap and len(page.content) < cap else "accepted", "bigline", detail)


def attack_odd(base: Path, source: Path, tally: Tally) -> None:
    for label, change in ODD.items():
        served = base / f"odd-{label}"
        run = _copy(source, served / "run")
        lines = _lines(run)
        change(lines[0])
        _write_lines(run, lines)
        client = _client(served)
        listing = client.get("/runs/run")
        page = client.get(f"/runs/run/questions/{lines[0]['question_id']}")
        ok = listing.status_code == 200 and _shows(page, lines[0])
        tally.add("clean" if ok else "5xx", f"odd.{label}", f"HTTP {listing.status_code} / {page.status_code}")


def attack_nested(base: Path, source: Path, tally: Tally) -> None:
    from benchmarker.view import add_arguments, run_view

    served = base / "nested"
    parent = _copy(source, served / "run")
    lines = _lines(parent)
    _write_lines(parent, [*lines, {**lines[0], "question_id": "index", "question": "the parent's index question"}])
    nested = _copy(source, parent / "questions")
    _write_lines(nested, [{**x, "question": f"NESTED {x['question']}"} for x in lines])
    client = _client(served)
    shown = [_shows(client.get(f"/runs/run/questions/{x['question_id']}"), x) for x in lines]
    tally.add("clean" if all(shown) else "lost", "nested.server", f"{sum(shown)} of {len(shown)} parent pages shown")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out = base / "nested-bundle"
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its "wrote N pages" line
            run_view(parser.parse_args([str(served), "--bundle", str(out)]))
        page = (out / "runs" / "run" / "questions" / "index.html").read_text(encoding="utf-8")
        kept = "the parent&#39;s index question" in page
        tally.add("clean" if kept else "lost", "nested.bundle", "" if kept else "the parent's page was overwritten")
    except Exception as exc:
        tally.add("crash", "nested.bundle", f"{type(exc).__name__}: {exc}")


def _refusal(tally: Tally, label: str, call: Callable[[], Any], names: str, blames: str = "") -> Any:
    """One case whose right answer is a UserError naming `names` (and not `blames`)."""
    from benchmarker.errors import UserError

    try:
        result = call()
    except UserError as err:
        message = str(err)
        outcome = "clean" if names in message and (not blames or blames not in message) else "wrong"
        tally.add(outcome, label, message)
        return None
    except Exception as exc:
        tally.add("crash", label, f"{type(exc).__name__}: {exc}")
        return None
    tally.add("accepted", label, repr(result)[:200])
    return result


def attack_flags(base: Path, source: Path, tally: Tally) -> None:
    from benchmarker.view import add_arguments, run_view
    from benchmarker.view.cli import prepare

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    served = base / "flags"
    _copy(source, served / "run")
    os.symlink(base / "nowhere", base / "dangling")
    for label, out in (("bundle.dangling", base / "dangling"), ("bundle.below-dangling", base / "dangling" / "sub")):
        _refusal(tally, label, lambda out=out: run_view(parser.parse_args([str(served), "--bundle", str(out)])),
                 "dangling")
    for port in PORTS:
        got = _refusal(tally, f"flags.port{port}", lambda port=port: prepare(parser.parse_args([str(served), "--port", port])),
                       "--port", blames="--host")
        if got is not None:
            got[0].close()
    sock, token, url = prepare(parser.parse_args([str(served), "--host", "127.0.0.2", "--port", "0"]))
    sock.close()
    code = _client(served, token, url).get("/").status_code
    tally.add("clean" if code == 200 else "wrong", "flags.host127.0.0.2", f"{url} answers HTTP {code}")


def attack_summary(base: Path, source: Path, tally: Tally) -> None:
    for label, content in SUMMARIES.items():
        served = base / f"summary-{label}"
        run = _copy(source, served / "run")
        (run / "summary.json").write_text(content, encoding="utf-8")
        page = _client(served).get("/runs/run")
        if page.status_code != 200:
            tally.add("5xx", f"summary.{label}", f"HTTP {page.status_code}")
        else:
            banner = "summary.json: not read" in page.text
            tally.add("clean" if banner else "accepted", f"summary.{label}", "" if banner else "no banner")


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "viewfiles"
    source = make_source(base, limit=2)
    attack_inplace(base, source, tally)
    attack_loops(base, source, tally)
    attack_odd(base, source, tally)
    attack_nested(base, source, tally)
    attack_flags(base, source, tally)
    attack_summary(base, source, tally)
    attack_bigline(base, source, tally, quick)
    return tally
