"""Group "deep": run files and BEAM files nested 100,000 deep (issue 42, item 3).

`json.loads` recurses once per level, so such a document raised RecursionError in every reader. One small
finished offline run (rundir_attack.make_source) is copied per case; one file is replaced by (or, for
JSONL, gains a first line of) a 100,000-deep array or object, and then:
  - `report`, `compare`, `oracle`, `score` run through the real CLI entry point, in this process;
  - the run browser answers `/`, the damaged run's page and a healthy run's page (Starlette's TestClient);
  - the BEAM loader reads a deep chat.json, a deep .jsonl row and a deep literal field.
  clean     CLI: exit != 0 with one `error:` line naming the file; BEAM: a DatasetError naming it;
            view: every page 200, the damaged run shown with its error line (or its other questions)
  unclear   refused, but the line does not name the file
  accepted  exit 0: the deep file was read as if it were fine
  5xx       view: a page answered 500 (or listed no questions); BEAM: another exception
  crash     a traceback (RecursionError escaped) or no error line
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from bench.fuzz.outcome import Tally
from bench.fuzz.rundir_attack import Outcome, _point_manifest_at, make_source, run_cli

DEPTH = 100_000
SHAPES: dict[str, Callable[[], str]] = {
    "array": lambda: "[" * DEPTH + "]" * DEPTH,
    "object": lambda: '{"a": ' * DEPTH + "1" + "}" * DEPTH,
}
# (file, verb): a .jsonl file gets the deep line first, a .json file is replaced (score reads only answers.jsonl)
CLI_CASES = (("manifest.json", "report"), ("results.jsonl", "report"), ("summary.json", "compare"),
             ("manifest.json", "oracle"), ("results.jsonl", "oracle"), ("answers.jsonl", "score"))
VIEW_FILES = ("summary.json", "manifest.json", "results.jsonl")


def plant(run: Path, name: str, deep: str) -> None:
    path = run / name
    path.write_text(deep + "\n" + path.read_text(encoding="utf-8") if name.endswith(".jsonl") else deep,
                    encoding="utf-8")


def judge_cli(outcome: Outcome, name: str) -> tuple[str, str]:
    if outcome.error or "Traceback" in outcome.stderr:
        return "crash", outcome.error or outcome.stderr.strip()[-300:]
    if outcome.code == 0:
        return "accepted", "exit 0"
    errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    if not errors:
        return "crash", f"exit {outcome.code}, no error line: {outcome.stderr.strip()[-300:]!r}"
    return ("clean", "") if name in errors[0] else ("unclear", errors[0][:300])


def argv(verb: str, work: Path) -> list[str]:
    run = str(work / "src")
    if verb == "compare":
        return ["compare", run, str(work / "healthy"), "--out", str(work / "compare.md")]
    if verb == "score":
        return ["score", run, str(work / "source.toml")]
    return [verb, run]


def copy_run(base: Path, source: Path, work: Path) -> None:
    shutil.copytree(source, work / "src", ignore=shutil.ignore_patterns(".lock"))
    text = (base / "source.toml").read_text(encoding="utf-8").replace(f'output_dir = "{base}"', f'output_dir = "{work}"')
    (work / "source.toml").write_text(text, encoding="utf-8")
    _point_manifest_at(work)


def attack_cli(base: Path, source: Path, tally: Tally, shapes: list[str]) -> None:
    for number, (shape, (name, verb)) in enumerate(((s, c) for s in shapes for c in CLI_CASES), start=1):
        work = base / f"cli{number}"
        copy_run(base, source, work)
        if verb == "compare":
            shutil.copytree(work / "src", work / "healthy")
        plant(work / "src", name, SHAPES[shape]())
        result, detail = judge_cli(run_cli(argv(verb, work)), name)
        tally.add(result, f"{verb}.{name}.{shape}", detail)
        shutil.rmtree(work, ignore_errors=True)


def attack_view(base: Path, source: Path, tally: Tally, shapes: list[str]) -> None:
    from starlette.testclient import TestClient

    from benchmarker.view.catalog import Catalog
    from benchmarker.view.server import create_app

    served = base / "served"
    shutil.copytree(source, served / "healthy", ignore=shutil.ignore_patterns(".lock"))
    wanted = {f"{name}.{shape}": (name, shape) for shape in shapes for name in VIEW_FILES}
    for label, (name, shape) in wanted.items():
        shutil.copytree(source, served / label, ignore=shutil.ignore_patterns(".lock"))
        plant(served / label, name, SHAPES[shape]())
    client = TestClient(create_app(Catalog([served])), base_url="http://127.0.0.1", raise_server_exceptions=False)
    healthy = client.get("/runs/healthy")
    questions = set(re.findall(r'/questions/([^"]+)"', healthy.text))
    index = client.get("/")
    tally.add("clean" if index.status_code == 200 else "5xx", "view./", f"HTTP {index.status_code}")
    for label, (name, _) in wanted.items():
        page = client.get(f"/runs/{label}")
        if page.status_code != 200 or client.get("/runs/healthy").status_code != 200:
            tally.add("5xx", f"view.{label}", f"HTTP {page.status_code}")
        elif name.endswith(".jsonl"):
            shown = set(re.findall(r'/questions/([^"]+)"', page.text))
            tally.add("clean" if shown == questions else "lost", f"view.{label}", f"{len(shown)} of {len(questions)}")
        else:
            tally.add("clean" if f"{name}: not read" in page.text else "unclear", f"view.{label}", "no error line")


def attack_beam(base: Path, tally: Tally, shapes: list[str]) -> None:
    from benchmarker.errors import DatasetError
    from benchmarker.suites.beam.data import load_beam

    for shape in shapes:
        deep = SHAPES[shape]()
        folder = base / f"beam-{shape}" / "5"
        (folder / "probing_questions").mkdir(parents=True)
        (folder / "probing_questions" / "probing_questions.json").write_text("{}", encoding="utf-8")
        (folder / "chat.json").write_text(deep, encoding="utf-8")
        rows = base / f"beam-{shape}" / "rows.jsonl"
        rows.write_text(deep + "\n", encoding="utf-8")
        literal = base / f"beam-{shape}" / "literal.json"
        literal.write_text(json.dumps([{"conversation_id": "1", "chat": deep, "probing_questions": "{}"}]),
                           encoding="utf-8")
        for label, path, named in (("chat.json", folder, "chat.json"), ("rows.jsonl", rows, "rows.jsonl"),
                                   ("literal", literal, "literal.json")):
            try:
                load_beam(path, "100K")
                result, detail = "accepted", "loaded"
            except DatasetError as exc:
                result, detail = ("clean", "") if named in str(exc) else ("unclear", str(exc)[:300])
            except RecursionError as exc:
                result, detail = "crash", f"RecursionError: {exc}"
            except Exception as exc:
                result, detail = "5xx", f"{type(exc).__name__}: {str(exc)[:300]}"
            tally.add(result, f"beam.{label}.{shape}", detail)


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "deep"
    source = make_source(base, limit=2)
    shapes = ["array"] if quick else list(SHAPES)
    attack_cli(base, source, tally, shapes)
    attack_view(base, source, tally, shapes)
    attack_beam(base, tally, shapes)
    return tally
