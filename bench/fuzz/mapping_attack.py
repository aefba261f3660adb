"""Group "mappings": a user's tool mapping and its server, attacked through real runs (issue 26).

Each case is one small retrieval-mode run (`mycelian-longmemeval run`, a child process with a
wall-clock limit) against bench/fuzz/mapped_server.py, a stdio MCP server whose scope is "process"
(one server per case, its data in `<run>/memory-servers/<scope>/`). The attacks: a scope path
that climbs out of the run directory (`{scope_dir}/../..` in env or args, an absolute path in
`[memory].env` replacing the mapping's `{scope_dir}` one, a symlinked `memory-servers`, `_probe` or
case folder), a server that never answers `initialize`, and one whose search returns 50 MiB.
  clean    refused: exit 2 with an `error:` line, or the case failed into errors.jsonl, naming why
  ok       the control run: exit 0, every file the server wrote inside the run directory
  leaked   a file outside the run directory was created or changed (the scope escaped)
  accepted the 50 MiB result was taken as a search hit (into the run's files)
  crash    a traceback, or no exit within the case's limit (a hang)
Each run's peak RSS (GNU time's %M, harness and children) is kept under extra.peak_rss_mib.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.fuzz.outcome import Tally

SERVER = Path(__file__).with_name("mapped_server.py")
ROOT = Path(__file__).resolve().parents[2]
RUN_ID = "fz-map"
MAPPING = """name = "fuzz-notes"
[server]
transport = "stdio"
command = "{python}"
args = {args}
env = {{ NOTES_PATH = "{notes}" }}
[scope]
kind = "process"
[write]
tool = "save_note"
arguments = {{ text = "{{text}}" }}
text_paths = ["text"]
[search]
tool = "find_notes"
arguments = {{ query = "{{query}}", limit = "{{top_k}}" }}
hits = "results[*]"
text = "text"
id = "id"
[agent]
tools = ["save_note", "find_notes"]
"""
RUN = """run_id = "{run_id}"
[dataset]
kind = "sample"
questions_per_type = 1
sessions_per_question = 3
[run]
mode = "retrieval"
limit = 1
output_dir = "runs"
progress = false
phases = {phases}
[memory]
backend = "mcp"
mapping = "mapping.toml"
{memory}
"""


@dataclass
class Case:
    notes: str = "{scope_dir}/notes.jsonl"           # the mapping's NOTES_PATH template
    args: tuple[str, ...] = ()                      # extra server args (after the script)
    memory: dict[str, str] = field(default_factory=dict)   # [memory] lines, raw TOML values
    before: Callable[[Path, Path], None] | None = None     # (run dir, outside dir) set-up before the run
    resume: bool = False                            # ingest first, then (after `before`) the full run
    expect: str = "refuse"                          # "ok" for the control
    limit_s: float = 150.0


def _symlink(relative: str) -> Callable[[Path, Path], None]:
    def plant(run_dir: Path, outside: Path) -> None:
        link = run_dir / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_dir() and not link.is_symlink():
            shutil.copytree(link, outside, dirs_exist_ok=True)
            shutil.rmtree(link)
        link.symlink_to(outside, target_is_directory=True)
    return plant


def _case_folder(run_dir: Path, outside: Path) -> None:
    """Swap the finished case's own server folder for a symlink to a folder outside the run."""
    (folder,) = [p for p in (run_dir / "memory-servers").iterdir() if p.name != "_probe"]
    _symlink(f"memory-servers/{folder.name}")(run_dir, outside)


def start_timeout_key() -> bool:
    """Whether this checkout's [memory] has start_timeout_s (the hang case then sets it to 3 s)."""
    from benchmarker.config_schema import MemoryConfig

    return "start_timeout_s" in MemoryConfig.model_fields


def cases(quick: bool, hang_limit_s: float) -> dict[str, Case]:
    outside_abs = "{outside}/shared-notes.jsonl"
    hang_memory = {"env": '{ FUZZ_MODE = "hang" }'}
    if start_timeout_key():
        hang_memory["start_timeout_s"] = "3.0"
    out = {
        "control": Case(expect="ok"),
        "scope.env-dotdot": Case(notes="{scope_dir}/../../../escaped.jsonl"),
        "scope.args-dotdot": Case(args=("--notes", "{scope_dir}/../../../escaped-arg.jsonl")),
        "scope.env-absolute-override": Case(memory={"env": f'{{ NOTES_PATH = "{outside_abs}" }}'}),
        "scope.symlinked-servers-dir": Case(before=_symlink("memory-servers")),
        "scope.symlinked-probe": Case(before=_symlink("memory-servers/_probe")),
        "scope.symlinked-case-folder-on-resume": Case(before=_case_folder, resume=True),
        "server.hang-at-initialize": Case(memory=hang_memory, limit_s=hang_limit_s),
        "server.50mib-search-result": Case(memory={"env": '{ FUZZ_MODE = "huge", FUZZ_HUGE_MB = "50" }'}),
    }
    if quick:  # one of each kind of escape; the variants only in the full set
        for label in ("scope.args-dotdot", "scope.symlinked-case-folder-on-resume"):
            out.pop(label)
        out["server.20mib-search-result"] = Case(memory={"env": '{ FUZZ_MODE = "huge", FUZZ_HUGE_MB = "20" }'})
        out.pop("server.50mib-search-result")
    else:
        out["scope.args-absolute-dotdot"] = Case(args=("--notes", "/{scope_dir}/../../x.jsonl"))
    return out


@dataclass
class Ran:
    code: int | None
    stderr: str
    seconds: float
    peak_mib: float | None


def run_once(folder: Path, limit_s: float) -> Ran:
    """`mycelian-longmemeval run run.toml` in `folder`, under GNU time when it is installed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "benchmarker.cli", "run", "run.toml"]
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    if timer:
        cmd = [timer, "-f", "FUZZ-PEAK-KB %M", *cmd]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=limit_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the harness and the servers it started
        _, stderr = proc.communicate()
        code = None
    peak = None
    lines = []
    for line in stderr.splitlines():
        if line.startswith("FUZZ-PEAK-KB "):
            peak = round(int(line.split()[1]) / 1024, 1)
        elif not line.startswith("Command exited with non-zero status"):
            lines.append(line)
    return Ran(code, "\n".join(lines), round(time.perf_counter() - started, 1), peak)


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """path -> (size, mtime_ns) of every file under `folder` (symlinks not followed)."""
    out = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            with_stat = path.lstat()
            out[str(path)] = (with_stat.st_size, with_stat.st_mtime_ns)
    return out


def judge(case: Case, ran: Ran, folder: Path, outside_before: dict, outside: Path) -> tuple[str, str]:
    run_dir = folder / "runs" / RUN_ID
    inside = str(run_dir) + os.sep
    after = {**snapshot(folder), **snapshot(outside)}
    changed = sorted(p for p, stat in after.items() if not p.startswith(inside) and outside_before.get(p) != stat
                     and p not in (str(folder / "run.toml"), str(folder / "mapping.toml")))
    if ran.code is None:
        return "crash", f"no exit within {case.limit_s:.0f} s (killed); stderr: {ran.stderr[-200:]!r}"
    if "Traceback (most recent call last)" in ran.stderr:
        return "crash", f"traceback: {ran.stderr.strip().splitlines()[-1][:300]}"
    if changed:
        return "leaked", f"exit {ran.code}; written outside the run directory: {', '.join(changed[:3])}"
    errors = _errors(run_dir)
    if case.expect == "ok":
        return ("ok", "") if ran.code == 0 and not errors else ("wrong", f"exit {ran.code}: {ran.stderr[-300:]}")
    if ran.code != 0 and "error:" in ran.stderr:
        return "clean", ""
    if errors:
        return "clean", ""
    big = [line for line in _lines(run_dir / "answers.jsonl") if len(line) > 1 << 20]
    if big:
        return "accepted", f"exit {ran.code}; answers.jsonl holds a {len(big[0]) >> 20} MiB line"
    return "accepted", f"exit {ran.code}, no error and no errors.jsonl line"


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def _errors(run_dir: Path) -> list[str]:
    return [json.loads(line).get("error", "") for line in _lines(run_dir / "errors.jsonl") if line.strip()]


def write_case(folder: Path, case: Case, outside: Path, phases: str) -> None:
    args = [str(SERVER), *(a.replace("{outside}", str(outside)) for a in case.args)]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mapping.toml").write_text(MAPPING.format(python=sys.executable, args=json.dumps(args),
                                                        notes=case.notes.replace("{outside}", str(outside))),
                                         encoding="utf-8")
    memory = "\n".join(f"{k} = {v.replace('{outside}', str(outside))}" for k, v in case.memory.items())
    (folder / "run.toml").write_text(RUN.format(run_id=RUN_ID, phases=phases, memory=memory), encoding="utf-8")


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    peaks: dict[str, float | None] = {}
    seconds: dict[str, float] = {}
    for label, case in cases(quick, hang_limit_s=45.0 if quick else 90.0).items():
        folder = workdir / "mappings" / label
        outside = workdir / "mappings" / f"{label}-outside"
        outside.mkdir(parents=True)
        (outside / "keep.txt").write_text("a folder outside the run directory\n", encoding="utf-8")
        run_dir = folder / "runs" / RUN_ID
        if case.resume:
            write_case(folder, case, outside, '["ingest"]')
            first = run_once(folder, case.limit_s)
            if first.code != 0:
                tally.add("wrong", f"mapping.{label}", f"the ingest-only run failed: {first.stderr[-300:]}")
                continue
        if case.before is not None:
            run_dir.mkdir(parents=True, exist_ok=True)
            case.before(run_dir, outside)
        write_case(folder, case, outside, '["ingest", "qa", "eval"]')
        before = {**snapshot(folder), **snapshot(outside)}
        ran = run_once(folder, case.limit_s)
        outcome, detail = judge(case, ran, folder, before, outside)
        tally.add(outcome, f"mapping.{label}", detail)
        peaks[label], seconds[label] = ran.peak_mib, ran.seconds
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)
    tally.extra["peak_rss_mib"] = peaks
    tally.extra["seconds"] = seconds
    return tally
