"""Group "rundirs": `score`, `replay` and `judge-online` on damaged run directories (issue 26).

One small finished agent-mode run (offline models, the embedded memory service) is made once;
each case copies it, damages one file the verb reads (a last line cut off mid-write, an empty
file, a missing or corrupt manifest.json, a missing summary.json ...) and runs the verb through
the real CLI entry point (`benchmarker.cli.main`, in this process). What a user must see: a
one-line `error:` naming the damaged file (exit non-zero), or a clean recovery that loses nothing.
  clean    exit != 0, one `error:` line naming the damaged file (unclear: it does not name it)
  ok       exit 0 and as many records out as from the undamaged copy (the controls too)
  lost     exit 0 with fewer records out than from the undamaged copy: something was dropped silently
  crash    a traceback (an exception escaped the CLI's error boundary) or a hang
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.fuzz.outcome import Tally

Damage = Callable[[Path], None]
SOURCE_TOML = """
run_id = "fz-src"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
limit = {limit}
output_dir = "{out}"
progress = false
[memory]
embedder = "static"
"""
ONLINE_TOML = """
run_id = "fz-online"
[dataset]
kind = "sample"
[run]
output_dir = "{out}"
progress = false
[online]
source = "run_dir"
run_dir = "{run_dir}"
"""


def _cut_last_line(name: str, keep_newline: bool = False) -> Damage:
    """The file's last line cut in half (a writer killed mid-line); with its newline when asked."""
    def damage(run: Path) -> None:
        path = run / name
        data = path.read_bytes().rstrip(b"\n")
        start = data.rfind(b"\n") + 1
        cut = data[: start + max(1, (len(data) - start) // 2)]
        path.write_bytes(cut + (b"\n" if keep_newline else b""))
    return damage


def _write(name: str, data: bytes) -> Damage:
    def damage(run: Path) -> None:
        (run / name).write_bytes(data)
    return damage


def _remove(name: str) -> Damage:
    def damage(run: Path) -> None:
        (run / name).unlink()
    return damage


def _garble_line(name: str, number: int) -> Damage:
    def damage(run: Path) -> None:
        path = run / name
        lines = path.read_bytes().split(b"\n")
        lines[number - 1] = lines[number - 1][:20] + b"#garbage#"
        path.write_bytes(b"\n".join(lines))
    return damage


QUICK = ("answers.jsonl.cut-last-line", "decisions.jsonl.cut-last-line", "memories.jsonl.cut-last-line",
         "memories.jsonl.empty", "manifest.json.truncated", "manifest.json.missing", "summary.json.missing")


def damages() -> dict[str, tuple[Damage, tuple[str, ...]]]:
    """{label: (damage, verbs it applies to)}: only files the verb reads."""
    every = ("score", "replay", "judge-online")
    out: dict[str, tuple[Damage, tuple[str, ...]]] = {}
    files = {"answers.jsonl": ("score",), "decisions.jsonl": ("replay", "judge-online"),
             "memories.jsonl": every}
    for name, verbs in files.items():
        out[f"{name}.cut-last-line"] = (_cut_last_line(name), verbs)
        out[f"{name}.cut-last-line+newline"] = (_cut_last_line(name, keep_newline=True), verbs)
        out[f"{name}.garbled-line-1"] = (_garble_line(name, 1), verbs)
        out[f"{name}.empty"] = (_write(name, b""), verbs)
        out[f"{name}.missing"] = (_remove(name), verbs)
    out["results.jsonl.cut-last-line"] = (_cut_last_line("results.jsonl"), ("score",))
    for label, data in (("empty", b""), ("truncated", None), ("array", b"[]"), ("binary", b"\xff\xfe\x00")):
        out[f"manifest.json.{label}"] = (_write("manifest.json", data) if data is not None
                                         else _cut_manifest, every)
    out["manifest.json.missing"] = (_remove("manifest.json"), every)
    out["summary.json.missing"] = (_remove("summary.json"), every)
    out["summary.json.truncated"] = (_write("summary.json", b'{"qa": {"overall": '), every)
    return out


def _cut_manifest(run: Path) -> None:
    path = run / "manifest.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@dataclass
class Outcome:
    code: int | None
    stderr: str
    error: str = ""     # the exception that escaped main(), if any
    seconds: float = 0.0


def run_cli(argv: list[str]) -> Outcome:
    """`mycelian-longmemeval ARGV` in this process; what it returned and printed on stderr."""
    from benchmarker.cli import main

    err, out = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    root = logging.getLogger()
    handlers = list(root.handlers)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code: int | None = main(argv)
        escaped = ""
    except SystemExit as exc:
        code, escaped = (exc.code if isinstance(exc.code, int) else 1), ""
    except BaseException as exc:
        code, escaped = None, f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        root.handlers[:] = handlers  # main() configures logging once per process
    return Outcome(code, err.getvalue(), escaped, round(time.perf_counter() - started, 2))


def counted(verb: str, work: Path) -> int:
    """How many records the verb wrote: scored answers, replayed results, judged items."""
    if verb == "score":
        return sum(_lines(p) for p in work.glob("src/scores/*/results.jsonl"))
    if verb == "replay":
        return sum(_lines(p) for p in (work / "replays").glob("*/results.jsonl"))
    return _lines(work / "online" / "fz-online" / "online.jsonl")


def _lines(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except OSError:
        return 0


def argv_for(verb: str, work: Path) -> list[str]:
    if verb == "score":
        return ["score", str(work / "src"), str(work / "source.toml")]
    if verb == "replay":
        (work / "replay.toml").write_text((work / "source.toml").read_text(encoding="utf-8").replace(
            'run_id = "fz-src"\n', "").replace(f'output_dir = "{work}"', f'output_dir = "{work / "replays"}"'),
            encoding="utf-8")
        return ["replay", str(work / "src"), str(work / "replay.toml")]
    (work / "online.toml").write_text(ONLINE_TOML.format(out=work / "online", run_dir=work / "src"), encoding="utf-8")
    return ["judge-online", str(work / "online.toml")]


def judge(outcome: Outcome, damaged: str | None, made: int, baseline: int) -> tuple[str, str]:
    if outcome.error:
        return "crash", f"traceback: {outcome.error}"
    if outcome.code == 0:
        if made < baseline:
            return "lost", f"exit 0 with {made} records out of {baseline}"
        return "ok", ""
    errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    if "Traceback" in outcome.stderr or not errors:
        return "crash", f"exit {outcome.code}, no error line: {outcome.stderr.strip()[-300:]!r}"
    if damaged is None:
        return "wrong", f"the undamaged run was refused: {errors[0][:300]}"
    said = outcome.stderr[outcome.stderr.index("error:"):]  # the error line and any problem list under it
    if damaged.split(".")[0] not in said:
        return "unclear", f"does not name {damaged}: {said[:300]}"
    return "clean", ""


def make_source(workdir: Path, limit: int) -> Path:
    """A finished offline agent-mode run (its config at workdir/source.toml, its files in workdir/fz-src)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "source.toml"
    config.write_text(SOURCE_TOML.format(limit=limit, out=workdir), encoding="utf-8")
    outcome = run_cli(["run", str(config)])
    if outcome.code != 0:
        raise RuntimeError(f"the source run failed: {outcome.error or outcome.stderr[-500:]}")
    return workdir / "fz-src"


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    base = workdir / "rundirs"
    source = make_source(base, limit=2)
    cases = list(damages().items())
    if quick:  # each file's commonest damage for the verbs that read it; the variants only in the full set
        cases = [(label, spec) for label, spec in cases if label in QUICK]
    baseline: dict[str, int] = {}
    seconds: dict[str, float] = {}
    number = 0
    for label, (damage, verbs) in [("control", (None, ("score", "replay", "judge-online"))), *cases]:
        for verb in verbs:
            number += 1
            work = base / f"case{number}"
            shutil.copytree(source, work / "src", ignore=shutil.ignore_patterns(".lock"))
            text = (base / "source.toml").read_text(encoding="utf-8").replace(f'output_dir = "{base}"',
                                                                               f'output_dir = "{work}"')
            (work / "source.toml").write_text(text, encoding="utf-8")
            _point_manifest_at(work)
            if damage is not None:
                damage(work / "src")
            outcome = run_cli(argv_for(verb, work))
            made = counted(verb, work)
            if damage is None:
                baseline[verb] = made
            result, detail = judge(outcome, None if damage is None else label, made, baseline.get(verb, 0))
            tally.add(result, f"{verb}.{label}", detail)
            seconds[verb] = seconds.get(verb, 0.0) + outcome.seconds
            shutil.rmtree(work, ignore_errors=True)
    tally.extra["baseline_records"] = baseline
    tally.extra["seconds_per_verb"] = {k: round(v, 1) for k, v in seconds.items()}
    return tally


def _point_manifest_at(work: Path) -> None:
    """The copy's manifest names the copy's own config (judge-online rebuilds the dataset from it)."""
    path = work / "src" / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["config_path"] = str(work / "source.toml")
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
